from core.heading_text import MAX_SHOWN_HEADING, plain_heading, plain_section, shown_section


def test_a_heading_is_shown_without_its_decoration() -> None:
    assert plain_heading("[Common dashboard SOPs](./hypershift-addon-sop.md)") == (
        "Common dashboard SOPs"
    )
    assert plain_heading("**Primary SLO: Secret Generation Availability**") == (
        "Primary SLO: Secret Generation Availability"
    )
    assert plain_heading("b. If the condition `ManagedClusterJoined` exists") == (
        "b. If the condition ManagedClusterJoined exists"
    )
    assert plain_heading("Mitigation {#mitigation}") == "Mitigation"


def test_a_section_path_is_plain_heading_by_heading() -> None:
    assert plain_section("**SLO Categories** > **1. Availability SLOs**") == (
        "SLO Categories > 1. Availability SLOs"
    )
    assert plain_section("Mitigation > Restart pgbouncer") == "Mitigation > Restart pgbouncer"
    assert plain_section("``") == "``"  # nothing but decoration: kept as written


def test_a_long_heading_above_the_cited_one_is_shortened_for_its_label() -> None:
    long = "An EC2 instance is exhibiting unusual behavior by communicating with port 25."
    shown = shown_section(f"{long} > Remediation recommendations")
    assert shown == "An EC2 instance is exhibiting unusual… > Remediation recommendations"
    assert len(shown.split(" > ")[0]) <= MAX_SHOWN_HEADING
    # the cited heading, and short ones above it, stay whole
    assert shown_section(long) == long
    assert shown_section("Mitigation > Restart pgbouncer") == "Mitigation > Restart pgbouncer"

from core.heading_text import plain_heading, plain_section


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

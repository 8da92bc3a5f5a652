"""Section-aware scoring: is a citation the expected section, or inside it?"""

from __future__ import annotations

from retrieval.evaluation import (
    CitedSpan,
    Outcome,
    Question,
    compute,
    judge_sections,
    section_spans,
)

TEXT = """# KubeProxyDown

## Diagnosis

check things

### AWS EKS

eks specifics

## Mitigation

#### **Defrag**

run defrag
"""


def q(section: str) -> Question:
    return Question("x", "q", ("a.md",), True, "exact-name", None, section)


def span_of(needle: str) -> CitedSpan:
    start = TEXT.index(needle)
    return CitedSpan("a.md", "s", start, start + len(needle))


def test_section_spans_match_any_level_and_ignore_inline_markup() -> None:
    (eks,) = section_spans(TEXT, "AWS EKS")
    assert (
        TEXT[eks[0] : eks[1]].startswith("### AWS EKS")
        and "Mitigation" not in TEXT[eks[0] : eks[1]]
    )
    (diag,) = section_spans(TEXT, "Diagnosis")
    assert "eks specifics" in TEXT[diag[0] : diag[1]]  # nested subsections belong to it
    assert section_spans(TEXT, "**Defrag**") == section_spans(TEXT, "Defrag") != []


def test_judge_sections_hit_inside_and_lead() -> None:
    inside = span_of("eks specifics")
    elsewhere = span_of("run defrag")
    assert judge_sections(q("Diagnosis"), [elsewhere, inside], TEXT) == (True, False)
    assert judge_sections(q("Diagnosis"), [inside], TEXT) == (True, True)
    assert judge_sections(q("AWS EKS"), [span_of("check things")], TEXT) == (False, False)
    other_doc = CitedSpan("b.md", "s", inside.start, inside.end)
    assert judge_sections(q("Diagnosis"), [other_doc], TEXT) == (False, False)
    unanswerable = Question("u", "q", None, False)
    assert judge_sections(unanswerable, [inside], TEXT) == (None, None)


def test_compute_reports_section_and_lead_hits_and_declines() -> None:
    qa = q("Diagnosis")
    outcomes = [
        Outcome(qa, ("a.md",), True, True, (span_of("check things"),), True, True),
        Outcome(qa, ("a.md",), False, None, (), False, False),
    ]
    m = compute(outcomes)
    assert m.section_hit == 0.5 and m.lead_hit == 0.5
    assert m.answerable_declined == 1 and m.n_answerable == 2
    assert any(line.startswith("section_hit 0.500 lead_hit 0.500") for line in m.lines())

"""Section-aware scoring: is a citation the expected section, or inside it?"""

from __future__ import annotations

from retrieval.answer.evaluation import (
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
    linked = "# Hosted\n\n## [Common dashboard SOPs](./sop.md)\n\nsee the panels\n"
    (sops,) = section_spans(linked, "Common dashboard SOPs")
    assert linked[sops[0] : sops[1]].endswith("see the panels")


def test_judge_sections_hit_inside_and_lead() -> None:
    inside = span_of("eks specifics")
    elsewhere = span_of("run defrag")
    texts = {"a.md": TEXT}
    assert judge_sections(q("Diagnosis"), [elsewhere, inside], texts) == (True, False)
    assert judge_sections(q("Diagnosis"), [inside], texts) == (True, True)
    assert judge_sections(q("AWS EKS"), [span_of("check things")], texts) == (False, False)
    other_doc = CitedSpan("b.md", "s", inside.start, inside.end)
    assert judge_sections(q("Diagnosis"), [other_doc], texts) == (False, False)
    unanswerable = Question("u", "q", None, False)
    assert judge_sections(unanswerable, [inside], texts) == (None, None)


def test_the_section_of_any_expected_document_is_a_hit() -> None:
    """Two runbooks answer the question: quoting the section of the second one counts."""
    twin = "# KubeProxyDown (EKS)\n\n## Diagnosis\n\ncheck the eks things\n"
    both = Question("x", "q", ("a.md", "b.md"), True, "symptom", None, "Diagnosis")
    start = twin.index("check the eks")
    second = CitedSpan("b.md", "s", start, start + len("check the eks things"))
    texts = {"a.md": TEXT, "b.md": twin}
    assert judge_sections(both, [second], texts) == (True, True)
    assert judge_sections(both, [span_of("run defrag"), second], texts) == (True, False)
    # the same offsets in a document that is not expected are no hit
    stray = CitedSpan("c.md", "s", second.start, second.end)
    assert judge_sections(both, [stray], {**texts, "c.md": twin}) == (False, False)


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


def test_compute_counts_the_best_guesses_that_name_the_right_runbook() -> None:
    qa = q("Diagnosis")  # a.md answers it
    right, wrong = (span_of("check things"),), (CitedSpan("b.md", "s", 0, 5),)
    outcomes = [
        Outcome(qa, ("a.md",), True, True, right, True, True, sure=True),
        Outcome(qa, ("a.md",), True, True, right, True, True, sure=False, named=("b.md",)),
        Outcome(qa, ("b.md",), True, True, wrong, False, False, sure=False, named=("a.md",)),
        Outcome(qa, ("b.md",), True, True, wrong, False, False, sure=False, named=("c.md",)),
        Outcome(Question("u", "q", None, False), ("b.md",), True, True, wrong, sure=False),
    ]
    m = compute(outcomes)
    assert (m.guesses, m.guesses_elsewhere, m.guesses_named_right) == (3, 2, 1)
    assert "best guesses 3: 2 quote another runbook, 1 of those name the right one" in m.lines()


def test_a_section_named_by_the_front_matter_title_is_the_whole_document() -> None:
    """The procedure sits before any heading: the question set names the document's
    title, which only the front matter spells."""
    text = (
        "---\ntitle: Troubleshooting Nessus Manager\n---\n\nRun the fetch first.\n\n## Scans\n\nx\n"
    )
    start = text.index("Run the fetch")
    cited = [CitedSpan("n.md", "Troubleshooting Nessus Manager", start, start + 20)]
    question = Question(
        "n", "q", ("n.md",), True, "procedure", None, "Troubleshooting Nessus Manager"
    )
    assert judge_sections(question, cited, {"n.md": text}) == (False, False)
    titles = {"n.md": "Troubleshooting Nessus Manager"}
    assert judge_sections(question, cited, {"n.md": text}, titles) == (True, True)
    # a heading that spells the section still decides where it lies
    assert judge_sections(
        q("Diagnosis"), [span_of("run defrag")], {"a.md": TEXT}, {"a.md": "Diagnosis"}
    ) == (False, False)

"""Quotes laid out by runbook: one heading per section, a gap marked."""

from __future__ import annotations

from bot.quote_layout import by_runbook, cut_note, example_blocks, lead_cut
from tests.bot.corpus_quotes import POD_FAILURE, section
from tests.bot.test_answer_view import cite


def test_quotes_are_grouped_by_runbook_in_order_of_first_citation() -> None:
    a1 = cite(1, section="Mitigation", start=100, end=200)
    b1 = cite(2, section="Diagnosis", start=0, end=50)
    a2 = cite(1, section="Diagnosis", start=10, end=60)
    groups = by_runbook([a1, b1, a2])
    assert [[s.citation for s in g] for g in groups] == [[a1, a2], [b1]]
    assert all(s.heading and not s.gap for g in groups for s in g)


def test_a_section_in_pieces_has_one_heading_and_a_gap_is_marked() -> None:
    first = cite(1, section="Diagnosis", start=0, end=100)
    next_to_it = cite(1, section="Diagnosis", start=101, end=300)
    after_a_gap = cite(1, section="Diagnosis", start=900, end=1000)
    other = cite(1, section="Mitigation", start=1000, end=1100)
    shown = by_runbook([first, next_to_it, after_a_gap, other])[0]
    assert [(s.heading, s.gap) for s in shown] == [
        (True, False),
        (False, False),
        (False, True),
        (True, False),
    ]


def test_blank_lines_between_two_pieces_are_no_gap() -> None:
    """Pieces of a section split at three blank lines follow each other: no "…"."""
    first = cite(1, section="Notes", start=0, end=20, line=5, quote="**Remediation:**")
    blank_lines = cite(1, section="Notes", start=23, end=60, line=8, quote="Isolate it.")
    text_between = cite(1, section="Notes", start=90, end=120, line=10, quote="Then rebuild.")
    shown = by_runbook([first, blank_lines, text_between])[0]
    assert [s.gap for s in shown] == [False, False, True]


def test_a_cut_procedure_says_which_steps_as_a_sentence() -> None:
    assert cut_note(cite(1, note="steps 1-3 of 7")) == "Steps 1-3 of 7"
    assert cut_note(cite(1)) is None


def test_indented_sample_output_under_a_step_is_an_example() -> None:
    """A Kubernetes task page's output, indented eight spaces under a "1." step after
    "The output includes …:", folds as a fenced sample output does; the commands above
    and below it do not."""
    steps = section(POD_FAILURE, "Writing and reading a termination message")
    lines = steps.split("\n")
    (example,) = example_blocks(steps)
    assert lines[example.start - 2] == '    The output includes the "Sleep expired" message:'
    # less the step's text indent ("1. ": three) and the four that make it code
    assert example.text.startswith(" apiVersion: v1\n kind: Pod\n ...\n     lastState:\n")
    assert example.text.endswith("           Sleep expired\n         ...")
    assert example.end - example.start == 11 and not example.fenced
    assert example.indent == 4  # the step's text: a line standing for it stays in the step


def test_a_long_lead_is_not_cut_inside_quoted_code() -> None:
    quoted = ["> **WARNING:** only on the primary:", ">", "> ```bash"]
    quoted += [f"> kubectl -n db exec db-0 -- psql -c 'SELECT {n};'" for n in range(8)]
    quoted += ["> ```"]
    steps = [f"{n}. Step {n}." for n in range(1, 8)]
    markdown = "\n".join([*steps, "", *quoted, "", *steps])
    cut = lead_cut(markdown)
    assert cut is not None and cut < markdown.index("> ```bash")
    assert markdown[:cut].count("```") == 0  # a command is never cut: before the quote's code

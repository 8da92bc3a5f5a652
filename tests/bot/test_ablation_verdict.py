"""`make ablate`'s verdict on a signal: more than a refit's noise, or not.

Built from question outcomes as `make quality` scores them (answered or not, the right
section quoted, the right section leading), with and without a signal.
"""

from __future__ import annotations

from bot.quality import Ablation, ablation_table, held_out, sign_test, totals
from retrieval.answer import Outcome, Question
from retrieval.answer.answer_config import CALIBRATED_MODEL


def outcome(qid: str, *, answerable: bool, answered: bool, section: bool | None) -> Outcome:
    q = Question(qid, "q", ("a.md",) if answerable else (), answerable, section="S")
    return Outcome(q, ("a.md",), answered, None, (), section, section)


def sets(flips: int, against: int, size: int = 20) -> tuple[list[Outcome], list[Outcome]]:
    """One set's outcomes with a signal and without it: ``flips`` questions answered with
    the right section only with it, ``against`` only without it."""
    with_it, without = [], []
    for i in range(size):
        good = outcome(f"q{i}", answerable=True, answered=True, section=True)
        bad = outcome(f"q{i}", answerable=True, answered=False, section=False)
        if i < flips:
            with_it.append(good)
            without.append(bad)
        elif i < flips + against:
            with_it.append(bad)
            without.append(good)
        else:
            with_it.append(good)
            without.append(good)
    return with_it, without


def row(
    changes: list[tuple[int, int]],
    name: str = "relevance",
    unseen: frozenset[str] = frozenset(),
) -> list[str]:
    """The ablation table's row for a signal that moves ``(flips, against)`` questions
    on each set (``set0``, ``set1``, ...; those in ``unseen`` no rule was written from):
    its cells, the verdict and the keep column last."""
    base, ablated = [], {}
    for n, (flips, against) in enumerate(changes):
        with_it, without = sets(flips, against)
        base.append(held_out(f"set{n}", CALIBRATED_MODEL, with_it))
        ablated[f"set{n}"] = held_out(f"set{n}", CALIBRATED_MODEL, without)
    ablation = Ablation(
        name,
        {k: v.metrics for k, v in ablated.items()},
        {k: v.points for k, v in ablated.items()},
    )
    return ablation_table(base, [ablation], unseen)[-1].rstrip(" |").split(" | ")


def verdict_of(changes: list[tuple[int, int]]) -> str:
    return row(changes)[-2]


def test_the_sign_test_is_a_binomial_tail() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 0) == 1 / 32
    assert sign_test(3, 3) > 0.5


def test_a_signal_that_wins_on_many_sets_and_loses_on_none_helps() -> None:
    assert verdict_of([(2, 0), (2, 0), (1, 0), (2, 0)]) == "helps"


def test_wins_and_losses_in_equal_measure_are_noise_however_many_sets_it_wins() -> None:
    assert verdict_of([(2, 0), (2, 0), (0, 2), (0, 2), (1, 1)]) == "noise"


def test_a_signal_the_sets_do_better_without_harms() -> None:
    assert verdict_of([(0, 3), (0, 2), (1, 2), (0, 2)]) == "harms"


def test_a_signal_that_wins_on_one_set_alone_does_not_earn_its_place() -> None:
    assert verdict_of([(6, 0), (0, 0), (0, 0)]) == "one set"


def test_a_hand_written_rule_keeps_its_place_only_when_it_helps() -> None:
    noise = [(2, 0), (2, 0), (0, 2), (0, 2), (1, 1)]
    # the same noise: a rule written by hand goes, a signal read from the corpus stays
    assert row(noise, "intent")[-1] == "no"
    assert row(noise, "relevance")[-1] == "yes"
    assert row([(3, 0), (2, 0), (2, 0)], "intent")[-1] == "yes"


def test_a_hand_written_rule_must_also_win_on_the_sets_it_was_not_written_from() -> None:
    changes = [(3, 0), (3, 0), (2, 0), (0, 0), (0, 1)]
    # it helps over every set, but every question it wins is on the sets it was written from
    fitted = row(changes, "intent", unseen=frozenset({"set3", "set4"}))
    assert fitted[-2] == "helps"
    assert fitted[-4:-2] == ["0", "1"]
    assert fitted[-1] == "no"
    # the same wins, one of them on a set no rule was written from: it stays
    fresh = row(changes, "intent", unseen=frozenset({"set2", "set4"}))
    assert fresh[-4:-2] == ["2", "1"]
    assert fresh[-1] == "yes"
    # as many won as lost on the unseen sets: a refit's noise there, and it stays
    tied = row(
        [(3, 0), (3, 0), (2, 0), (1, 0), (0, 1)], "intent", unseen=frozenset({"set3", "set4"})
    )
    assert tied[-4:-2] == ["1", "1"]
    assert tied[-1] == "yes"
    # a signal read from the corpus itself is not held to it
    assert row(changes, "relevance", unseen=frozenset({"set3", "set4"}))[-1] == "yes"


def test_the_totals_line_sums_the_sets_and_counts_the_best_guesses() -> None:
    q = Question("g", "q", ("a.md",), True, section="S")
    guess = Outcome(q, ("b.md",), True, None, (), False, False, sure=False, named=("a.md",))
    declined = outcome("d", answerable=True, answered=False, section=False)
    trap = Outcome(Question("t", "q", (), False, trap="a.md"), ("a.md",), True)
    rows = [
        held_out("one", CALIBRATED_MODEL, [guess, declined, trap]),
        held_out("two", CALIBRATED_MODEL, [guess]),
    ]
    line = totals(rows)
    assert "traps answered 1/1, answerable declined 1/3" in line
    assert line.endswith("best guesses 2: 2 quote another runbook, 2 of those name the right one.")

"""Answers from one file of runbooks against the same runbooks one file each.

    .venv/bin/python scripts/folded_quality.py [--corpora ../shared/corpora] [--only NAME]

Some teams keep every alert's runbook in one file. For each question set this
folds the corpus into one Markdown file (each document under a ``##`` heading of
its H1 title or file name, its own headings one level down), ingests both layouts
into temporary data dirs, asks every question with the shipped model, and prints
side by side: confident answers, the first quote inside the right runbook, some
quote inside the asked-for section of the right runbook, and unanswerable
questions answered.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.quality import QuestionSet, discover  # noqa: E402
from bot.runtime import Runtime  # noqa: E402
from bot.settings import load_settings  # noqa: E402
from core.markdown import HEADING, MARKDOWN, headings  # noqa: E402
from core.models import SearchFilter  # noqa: E402
from ingest.errors import MalformedDocumentError  # noqa: E402
from ingest.frontmatter import split_front_matter  # noqa: E402
from retrieval.answer.evaluation import Question, clean_heading, load_questions  # noqa: E402
from retrieval.search.embeddings import FastEmbedder  # noqa: E402


def _folded(text: str, rel: str) -> tuple[str | None, str]:
    """(its H1 title or None, the body without front matter and that H1, every other
    heading outside code one level down)."""
    body = text[split_front_matter(text, rel).body_start :]
    heads = headings(body)
    h1 = next((h for h in heads if h[2] == 1), None)
    for start, end, level, _title in reversed(heads):
        if h1 is not None and start == h1[0]:
            body = body[:start] + body[end:]
        elif HEADING.match(body[start:end]) and level < 6:  # ATX: ## -> ###
            hashes = body.index("#", start)
            body = body[:hashes] + "#" + body[hashes:]
    return (h1[3] if h1 is not None else None), body


def fold(corpus: Path, target: Path) -> dict[str, str]:
    """Write every document of ``corpus`` into ``target/runbooks.md``; the topic heading
    of each document, by its path."""
    parts = ["# Runbooks\n\nEvery runbook of the team, one section each.\n"]
    topics: dict[str, str] = {}
    for path in sorted(p for p in corpus.rglob("*") if p.name.lower().endswith(MARKDOWN.suffixes)):
        rel = path.relative_to(corpus).as_posix()
        try:
            title, body = _folded(path.read_text(encoding="utf-8", errors="replace"), rel)
        except MalformedDocumentError:
            continue  # ingest skips it too
        topics[rel] = title or path.stem
        parts.append(f"## {topics[rel]}\n\n" + body.strip() + "\n")
    target.mkdir(parents=True, exist_ok=True)
    (target / "runbooks.md").write_text("\n".join(parts), encoding="utf-8")
    return topics


@dataclass
class Tally:
    answerable: int = 0
    answered: int = 0
    right_runbook: int = 0
    section: int = 0
    unanswerable: int = 0
    wrongly_answered: int = 0

    def row(self, name: str) -> str:
        return (
            f"| {name} | {self.answered}/{self.answerable} | {self.right_runbook} "
            f"| {self.section} | {self.wrongly_answered}/{self.unanswerable} |"
        )


def _judge(
    q: Question, section: str, path: str, topics: dict[str, str], folded: bool
) -> tuple[bool, bool]:
    """Is a citation in the right runbook, and inside the asked-for section?"""
    expected = set(q.expect or ())
    want = clean_heading(q.section or "")
    segments = section.split(" > ")
    if folded:
        runbook, segments = segments[0], segments[1:]
        right = runbook in {topics[p] for p in expected if p in topics}
    else:
        runbook, right = topics.get(path, ""), path in expected
    inside = want in {clean_heading(s) for s in segments} or want == clean_heading(runbook)
    return right, right and inside


def score(rt: Runtime, questions: list[Question], topics: dict[str, str], folded: bool) -> Tally:
    """``topics``: each document's runbook heading (its H1 title or file name), by path;
    in the folded file it is the top of every citation's section path."""
    t = Tally()
    for q in questions:
        if q.answerable is None:
            continue
        answer = rt.extractive.answer(q.q, SearchFilter())
        answered = answer.state == "answer" and bool(answer.citations)
        if not q.answerable:
            t.unanswerable += 1
            t.wrongly_answered += answered
            continue
        t.answerable += 1
        if not answered:
            continue
        t.answered += 1
        judged = [_judge(q, c.section, c.path, topics, folded) for c in answer.citations]
        t.right_runbook += judged[0][0]
        t.section += any(inside for _right, inside in judged)
    return t


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=ROOT.parent / "shared" / "corpora")
    parser.add_argument("--only", help="one question set's name")
    args = parser.parse_args()
    sets: list[QuestionSet] = [
        s for s in discover(args.corpora) if args.only is None or s.name == args.only
    ]
    if not sets:
        print(f"no question set under {args.corpora}", file=sys.stderr)
        return 2
    print(
        "| layout | confident answers | first quote in the right runbook "
        "| asked-for section quoted | unanswerable answered |"
    )
    print("|" + " --- |" * 5)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        embedder: FastEmbedder | None = None
        for qset in sets:
            questions = load_questions(qset.questions)
            topics = fold(qset.root, base / qset.name / "folded")
            for label, root, folded in (
                ("one file each", qset.root, False),
                ("one file", base / qset.name / "folded", True),
            ):
                settings = load_settings(data_dir=base / qset.name / label.replace(" ", "-"))
                rt = Runtime(settings, embedder=embedder)
                embedder = rt.embedder
                try:
                    rt.ingest(root)
                    print(
                        score(rt, questions, topics, folded).row(f"{qset.name}: {label}"),
                        flush=True,
                    )
                finally:
                    rt.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Collections of runbooks in one file: the topic is chosen before the part."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.models import SearchFilter
from ingest.chunker import chunk_document
from retrieval.answer.outline import Part, document_parts
from retrieval.answer.part_ranking import SectionWeights
from retrieval.answer.topics import rank_topics, topic_of, topics
from retrieval.reading.evidence import TermStats
from retrieval.reading.tokenize import tokenize
from retrieval.search.embeddings import FastEmbedder
from tests.conftest import markdown_document, runtime_over

ALERT = """## {name}

### Meaning

{meaning}

### Diagnosis

{diagnosis}

### Mitigation

{mitigation}
"""

COLLECTION = "# Platform alert runbooks\n\nOne section per alert.\n\n" + "\n".join(
    ALERT.format(name=name, meaning=meaning, diagnosis=diagnosis, mitigation=mitigation)
    for name, meaning, diagnosis, mitigation in [
        (
            "QueueConsumerLag",
            "Consumers of the orders queue fall behind producers.",
            "Compare `consumer_offset` with `log_end_offset` per partition in the lag "
            "dashboard; one partition far behind means a stuck consumer.",
            "Restart the stuck consumer pod with `kubectl rollout restart deploy/orders-consumer`.",
        ),
        (
            "DiskAlmostFull",
            "A node's root filesystem is above 90%.",
            "Run `du -xh / | sort -h | tail` on the node to find what grew.",
            "Rotate and compress logs, then vacuum journald: `journalctl --vacuum-size=500M`.",
        ),
        (
            "QueueDiskFull",
            "A broker's data disk is above 85%.",
            "Find the largest topics with `kafka-log-dirs --describe`.",
            "When an orders queue partition fills its disk, delete the old segments of that "
            "orders queue partition with `kafka-delete-records --offset-json-file old.json`.",
        ),
    ]
)

SINGLE = """# Queue consumer lag

## Meaning

Consumers fall behind.

## Diagnosis

Compare offsets per partition.

## Mitigation

### Restart the consumer

Restart it.

### Scale out

Add consumers.
"""


def parts_of(text: str, title: str) -> list[Part]:
    return document_parts(chunk_document(markdown_document(text, title, "alerts.md"), 0))


STATS = TermStats.from_doc_terms({"a": tokenize(COLLECTION), "b": tokenize("unrelated words")})


def test_a_file_of_runbooks_laid_out_alike_is_a_collection() -> None:
    found = topics(parts_of(COLLECTION, "Platform alert runbooks"))
    assert found is not None
    assert list(found) == ["QueueConsumerLag", "DiskAlmostFull", "QueueDiskFull"]
    assert {p.own_path[-1] for p in found["DiskAlmostFull"]} == {
        "Meaning",
        "Diagnosis",
        "Mitigation",
    }


def test_one_runbook_is_not_a_collection() -> None:
    parts = parts_of(SINGLE, "Queue consumer lag")
    assert topics(parts) is None
    assert rank_topics(parts, tokenize("restart"), STATS, lambda p: 0.5, frozenset(), SW) is None


SW = SectionWeights()


def test_the_named_topic_wins_whatever_the_words() -> None:
    parts = parts_of(COLLECTION, "Platform alert runbooks")
    # the words match the queue disk runbook's Mitigation, the name the node disk runbook
    question = tokenize("diskalmostfull what do i do delete old segments")
    ranked = rank_topics(parts, question, STATS, lambda p: 0.5, frozenset({"diskalmostfull"}), SW)
    assert ranked is not None and ranked[0][0] == "DiskAlmostFull"
    assert {p.own_path[0] for p in ranked[0][1]} == {"DiskAlmostFull"}


def test_without_a_name_the_topic_with_the_best_evidence_is_chosen() -> None:
    parts = parts_of(COLLECTION, "Platform alert runbooks")
    question = tokenize("one partition of the orders queue is far behind its producers")
    ranked = rank_topics(parts, question, STATS, lambda p: 0.5, frozenset(), SW)
    assert ranked is not None and ranked[0][0] == "QueueConsumerLag"


def test_a_question_about_one_runbook_of_a_collection_is_answered_from_it(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """The queue disk runbook's Mitigation shares the most words with the question
    ("orders", "partition"); before the topic was chosen first, it led the answer to a
    question about consumer lag."""
    with runtime_over({"alerts.md": COLLECTION}, tmp_path, embedder) as rt:
        question = "one orders partition lags behind its producers, fix?"
        answer = rt.extractive.answer(question, SearchFilter())
        assert answer.citations, answer
        sections = [c.section for c in answer.citations]
        assert all(s.startswith("QueueConsumerLag > ") for s in sections), sections
        assert "kafka-delete-records" not in " ".join(c.quote for c in answer.citations)


def test_a_file_of_h1_runbooks_is_a_collection_its_first_runbook_included() -> None:
    """``# QueueConsumerLag`` is the first runbook and also the document's title."""
    text = COLLECTION.split("\n", 3)[3].replace("\n## ", "\n# ").replace("### ", "## ")
    assert text.lstrip().startswith("# QueueConsumerLag\n")
    parts = parts_of(text, "QueueConsumerLag")
    found = topics(parts)
    assert found is not None and list(found) == [
        "QueueConsumerLag",
        "DiskAlmostFull",
        "QueueDiskFull",
    ]
    first = found["QueueConsumerLag"]
    assert {p.section for p in first} == {"Meaning", "Diagnosis", "Mitigation"}
    # a citation of the first runbook (its sections carry no title) finds its runbook
    assert topic_of(parts, "Mitigation") == first
    assert topic_of(parts, "QueueDiskFull > Mitigation") == found["QueueDiskFull"]
    question = tokenize("one orders partition is far behind its producers")
    ranked = rank_topics(parts, question, STATS, lambda p: 0.5, frozenset(), SW)
    assert ranked is not None and ranked[0][0] == "QueueConsumerLag"


# the same runbooks a level down, under headings that only group them
GROUPED = (
    "# Platform alert runbooks\n\nOne section per alert.\n\n## Queues\n\n"
    + "\n".join(
        "### " + r.replace("\n### ", "\n#### ")
        for r in COLLECTION.split("\n## ")[1:]
        if not r.startswith("DiskAlmostFull")
    )
    + "\n## Nodes\n\n### "
    + next(r for r in COLLECTION.split("\n## ") if r.startswith("DiskAlmostFull")).replace(
        "\n### ", "\n#### "
    )
)

# one runbook whose fix offers options, each with its own checks and steps
OPTIONS = """# Queue consumer lag

## Meaning

Consumers fall behind.

## Mitigation

### Option A: restart

#### Check

Compare offsets.

#### Steps

Restart it.

### Option B: scale out

#### Check

Count consumers.

#### Steps

Add consumers.

### Option C: skip ahead

#### Check

Find the poison message.

#### Steps

Reset the offset.
"""


def test_runbooks_under_headings_that_only_group_them_are_a_collection() -> None:
    found = topics(parts_of(GROUPED, "Platform alert runbooks"))
    assert found is not None
    assert list(found) == ["QueueConsumerLag", "QueueDiskFull", "DiskAlmostFull"]
    assert {p.own_path[-1] for p in found["DiskAlmostFull"]} == {
        "Meaning",
        "Diagnosis",
        "Mitigation",
    }
    question = tokenize("diskalmostfull what do i do delete old segments")
    ranked = rank_topics(
        parts_of(GROUPED, "Platform alert runbooks"),
        question,
        STATS,
        lambda p: 0.5,
        frozenset({"diskalmostfull"}),
        SW,
    )
    assert ranked is not None and ranked[0][0] == "DiskAlmostFull"


def test_the_options_of_one_runbooks_fix_are_not_a_collection() -> None:
    assert topics(parts_of(OPTIONS, "Queue consumer lag")) is None


def test_a_runbook_under_a_grouping_heading_is_answered_from_its_own_sections(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    with runtime_over({"alerts.md": GROUPED}, tmp_path, embedder) as rt:
        answer = rt.extractive.answer("QueueDiskFull what do i do", SearchFilter())
    assert answer.citations, answer
    assert answer.citations[0].section == "Queues > QueueDiskFull > Mitigation"
    assert all("QueueDiskFull" in c.section for c in answer.citations)


def one_file_each() -> dict[str, str]:
    """The collection's runbooks, each in a file of its own (``# QueueDiskFull``)."""
    files = {}
    for runbook in COLLECTION.split("\n## ")[1:]:
        name, body = runbook.split("\n", 1)
        files[f"{name}.md"] = f"# {name}\n" + body.replace("### ", "## ")
    return files


@pytest.mark.parametrize(
    "question",
    [
        "QueueDiskFull",
        "DiskAlmostFull what do i do",
        "one orders partition lags behind its producers, fix?",
        "how do i find what grew on the node",
    ],
)
def test_a_runbook_answers_alike_in_a_file_of_its_own_and_in_a_collection(
    tmp_path: Path, embedder: FastEmbedder, question: str
) -> None:
    with (
        runtime_over({"alerts.md": COLLECTION}, tmp_path / "one", embedder) as together,
        runtime_over(one_file_each(), tmp_path / "each", embedder) as apart,
    ):
        folded = together.extractive.answer(question, SearchFilter())
        alone = apart.extractive.answer(question, SearchFilter())
    assert folded.citations and folded.state == alone.state
    assert [c.section for c in folded.citations] == [
        f"{c.path.removesuffix('.md')} > {c.section}" for c in alone.citations
    ]
    assert [c.quote for c in folded.citations] == [c.quote for c in alone.citations]


def test_a_file_of_runbooks_offers_its_closest_runbooks_when_not_sure(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """ "Not sure" lists the closest runbooks: in an index of one file of runbooks, the
    runbook asked about and the next ones, not the one file once."""
    with runtime_over({"alerts.md": COLLECTION}, tmp_path, embedder) as rt:
        extractive = rt.extractive
        offered = extractive.suggest(extractive.retrieve("broker data disk filling up"))
    assert len(offered) == 3
    assert {s.path for s in offered} == {"alerts.md"}
    tops = [s.section.split(" > ")[0] for s in offered]
    assert tops[0] == "QueueDiskFull"
    assert sorted(tops) == ["DiskAlmostFull", "QueueConsumerLag", "QueueDiskFull"]


def test_a_pinned_file_of_runbooks_answers_from_the_runbook_its_link_points_at(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """An alert's runbook_url names the file and, by its #anchor, the runbook in it: that
    runbook answers even when the alert's words match another one better."""
    with runtime_over({"alerts.md": COLLECTION}, tmp_path, embedder) as rt:
        sid = next(iter(rt.searcher.snapshot().chunks_by_source))
        question = "BrokerVolumeAlmostFull firing: the root filesystem is above 90%"
        unanchored = rt.extractive.answer(question, SearchFilter(sources=(sid,)))
        anchored = rt.extractive.answer(
            question, SearchFilter(sources=(sid,), anchor="queue-disk-full")
        )
    assert unanchored.citations[0].section.startswith("DiskAlmostFull > ")
    assert anchored.citations and all(
        c.section.startswith("QueueDiskFull > ") for c in anchored.citations
    )


PLAYBOOKS = (
    "# Playbooks\n\nA checklist per alert.\n\n## Alerts\n\n"
    + "".join(
        f"### {name}\n\n{body}\n\nHow to **fix**:\n- {fix}\n\n"
        for name, body, fix in [
            ("StoreIngesterRestarts", "An ingester restarted.", "Check `kubectl get events`."),
            ("StoreIngesterUnhealthy", "The ring marks an ingester unhealthy.", "Forget it."),
            ("StoreCompactorFailing", "Compactions keep failing.", "Read the compactor logs."),
            ("StoreRulerMissedRuns", "Rule groups miss their runs.", "Scale the rulers."),
            ("StoreQuerierSlow", "Queries are slow.", "Scale the queriers."),
        ]
    )
    + "## Manual procedures\n\n### Resizing volumes\n\nEdit the claim's size.\n"
)


def test_a_file_of_playbooks_by_alert_name_is_a_collection_for_its_evidence() -> None:
    parts = parts_of(PLAYBOOKS, "Playbooks")
    # its playbooks hold no Diagnosis or Mitigation subsections: not laid out alike
    assert topics(parts) is None
    found = topics(parts, by_name=True)
    assert found is not None
    assert list(found)[:2] == ["StoreIngesterRestarts", "StoreIngesterUnhealthy"]
    assert "Resizing volumes" in found  # a heading of the same level is a runbook too
    assert all("A checklist per alert." not in p.body for ps in found.values() for p in ps)
    question = tokenize("StoreCompactorFailing on prod, what now")
    ranked = rank_topics(
        parts, question, STATS, lambda p: 0.5, frozenset({"storecompactorfailing"}), SW
    )
    assert ranked is None  # quotes may come from anywhere in the file
    ranked = rank_topics(
        parts,
        question,
        STATS,
        lambda p: 0.5,
        frozenset({"storecompactorfailing"}),
        SW,
        by_name=True,
    )
    assert ranked is not None and ranked[0][0] == "StoreCompactorFailing"


def test_the_evidence_of_a_file_of_playbooks_is_the_asked_playbooks(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """Every word of a question about one playbook is somewhere in a long file: what
    counts is whether the playbook asked about holds them."""
    with runtime_over({"playbooks.md": PLAYBOOKS}, tmp_path, embedder) as rt:
        extractive = rt.extractive
        near = extractive.retrieve("StoreQuerierSlow firing: queries are slow, scale them?")
        far = extractive.retrieve("StoreQuerierSlow firing: read the compactor logs and forget it?")
    assert near.runbooks[0].coverage > 0.8
    assert far.runbooks[0].coverage < 0.6  # those words belong to other playbooks

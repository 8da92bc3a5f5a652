"""Pages that are mostly links (a service index, a table of contents): they point at
answers instead of holding one, so they are never the answer.

Links are measured two ways, and a text is mostly links only when both say so:

- as written: the characters of the links, their targets included;
- as read: the link text a reader sees.

Comments are neither written for the reader nor read, so they count in neither.

Either alone misleads. Written, one dashboard link with a two-thousand-character query
in its target outweighs a whole alert playbook of prose; read, a list of links whose
text is a file name looks like a list of words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.models import Chunk
from core.wiki_links import WIKI_LINK, as_words
from retrieval.search.spans import section_text

LINK_LIST_SHARE = 0.8  # of the characters as written, link targets included
READ_LINK_SHARE = 0.6  # of the text as read: link text
# a link: [text](target), [text][ref], [[wiki page]] or a bare address; a reader sees
# its text
_LINK = re.compile(
    r"\[(?P<text>[^\]\n]*)\]\([^)\s]*\)|\[(?P<ref>[^\]\n]*)\]\[[^\]\n]*\]"
    r"|(?P<wiki>" + WIKI_LINK.pattern + r")|(?P<bare>https?://\S+)"
)
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s*", re.MULTILINE)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def is_link_list(chunks: Sequence[Chunk]) -> bool:
    """Is this document (its chunks) mostly links: an index, not an answer?"""
    return mostly_links("\n".join(section_text(c) for c in chunks))


def mostly_links(text: str) -> bool:
    """Are links most of this text, both as written and as read?"""
    return link_share(text) >= LINK_LIST_SHARE and read_link_share(text) >= READ_LINK_SHARE


def _visible(text: str) -> int:
    """Non-space characters: ``str.split`` breaks at exactly the characters
    ``str.isspace`` calls space, in C rather than a loop per character."""
    return sum(map(len, text.split()))


def link_share(text: str) -> float:
    """Share of a text's non-space characters taken up by links (and their list
    markers), link targets included; comments left out."""
    body = _LIST_MARK.sub("", _COMMENT.sub("", text))
    total = _visible(body)
    if total == 0:
        return 0.0
    return sum(_visible(m.group(0)) for m in _LINK.finditer(body)) / total


def read_link_share(text: str) -> float:
    """Share of the text a reader sees that is link text (a bare address is read as
    written); comments and list markers left out."""
    body = _LIST_MARK.sub("", _COMMENT.sub("", text))
    linked = 0
    shown: list[str] = []
    last = 0
    for m in _LINK.finditer(body):
        words = m.group("text") if m.group("text") is not None else m.group("ref")
        if words is None:
            words = as_words(m.group("wiki")) if m.group("wiki") else m.group("bare")
        linked += _visible(words)
        shown += [body[last : m.start()], words]
        last = m.end()
    shown.append(body[last:])
    total = _visible("".join(shown))
    return linked / total if total else 0.0

"""Identifier-aware tokenizer for the keyword (BM25) side of search.

Runbooks are full of identifiers - alert names, metric names, service names,
CLI flags, error codes, paths - and people ask about them both verbatim
(``KubePodCrashLooping``) and in words ("pod crash looping"). So an identifier
is kept WHOLE (lowercased, never stemmed, so an exact query hits it exactly)
and is ALSO split into its parts (stemmed like plain words)::

    KubePodCrashLooping         -> kubepodcrashlooping kube pod crash loop
    checkout-api                -> checkout-api checkout api
    node_filesystem_avail_bytes -> node_filesystem_avail_bytes node filesystem avail byte
    kube-state-metrics.io       -> kube-state-metrics.io kube-state-metrics kube state metric io
    --force                     -> --force forc
    CHK-5023                    -> chk-5023 chk 5023
    /proc/mdstat                -> proc mdstat
    PVCs                        -> pvc
    403s                        -> 403s 403

Splitting is hierarchical: on ``.`` first, then on ``-``/``_``, then on
camelCase boundaries; every level that actually splits emits its whole piece
too (so ``checkout-api`` is found inside ``checkout-api.prod.svc``). An acronym
with a plural ``s`` (``PVCs``, ``CRDs``) is the acronym: the stemmer, which needs a
vowel before the ``s``, would keep ``pvcs`` apart from ``pvc``. So is a number in the
plural (``403s``, ``500s``) the number as well. ``/``,
``:``, ``=``, quotes, brackets and whitespace are plain separators.

Plain words and parts are lowercased, dropped if they are a stopword or a single
non-digit character, and stemmed with the Snowball English stemmer. Negations
("not", "no") and words that carry technical meaning ("up", "down", "off",
"all", "out") are deliberately not stopwords.

Tokenizing is cached per whitespace-delimited word, so the cost on a large corpus
is mostly one ``str.split`` plus a C-level dict lookup per word.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import chain

import Stemmer

__all__ = ["ACRONYM_PLURAL", "STOPWORDS", "TOKENIZER_VERSION", "tokenize"]

# Bump whenever tokenize() output changes: persisted keyword indexes record it
# and are rebuilt instead of loaded when it differs.
TOKENIZER_VERSION = 3

# A raw token: an optional flag prefix (``-n``, ``--force``) or a word
# character, then word characters and the in-identifier connectors ``.`` ``-``.
_RAW = re.compile(r"--?\w[\w.\-]*|\w[\w.\-]*")
_DOT = re.compile(r"\.+")
_DASH = re.compile(r"[-_]+")
# camelCase pieces: an acronym followed by a capitalised word (HTTP|Server),
# a (capitalised) lowercase run with digits (Kube, k8s, S3), or an acronym.
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z]{2,})|[A-Z]?[a-z0-9]+|[A-Z0-9]+")
# an acronym in the plural: PVCs, CRDs, VMIs, S3s
ACRONYM_PLURAL = re.compile(r"[A-Z0-9]*[A-Z][A-Z0-9]*[A-Z0-9]s")

_MAX_TOKEN_LEN = 128  # longer runs are blobs (base64, minified code), not words
_WORD_CACHE_MAX = 1 << 17

# Negations and words with a technical meaning (up, down, off, all, out, no, not)
# are deliberately absent.
STOPWORDS: frozenset[str] = frozenset(
    """
    a an the is are was were be been being am
    to of and or in on at by for from with into onto as
    it its this that these those there here
    i me my we our ours you your yours he she him her his they them their
    do does did doing done have has had having
    how what which who whom whose when where why
    can could should would shall
    if then than so but also just too very
    some any such each
    about after before again further once
    """.split()
)

_stemmer = Stemmer.Stemmer("english")


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    return str(_stemmer.stemWord(word))


# a number in the plural, as on-call speech counts status codes: "403s", "500s"
_NUMBER_PLURAL = re.compile(r"\d+s")


def _atom(word: str, out: list[str]) -> None:
    """A plain word or the smallest part of an identifier."""
    w = word.lower()
    if len(w) == 1 and not w.isdigit():
        return
    if w in STOPWORDS:
        return
    if _NUMBER_PLURAL.fullmatch(w):
        out.extend((w, w[:-1]))  # "403s" is 403 too ("30s" stays 30s as well)
        return
    out.append(_stem(w))


def _camel(piece: str, out: list[str]) -> None:
    if ACRONYM_PLURAL.fullmatch(piece):
        _atom(piece[:-1], out)
        return
    if piece.isascii() and not piece.islower() and not piece.isupper():
        parts = _CAMEL.findall(piece)
        if len(parts) > 1:
            out.append(piece.lower())
            for part in parts:
                _atom(part, out)
            return
    _atom(piece, out)


def _dashed(piece: str, out: list[str]) -> None:
    parts = [p for p in _DASH.split(piece) if p]
    if len(parts) > 1 or (parts and parts[0] != piece):
        # Split, or wrapped in connectors (``__init__``): keep the whole too.
        out.append(piece.lower())
    for part in parts:
        _camel(part, out)


@lru_cache(maxsize=1 << 18)
def _expand(raw: str) -> tuple[str, ...]:
    """All tokens for one raw token as the regex found it (case preserved)."""
    out: list[str] = []
    if raw[0] == "-":
        # A CLI flag: keep it verbatim, then tokenize the name as usual.
        flag = raw.rstrip(".-")
        if len(flag) > 1:
            out.append(flag.lower())
        raw = flag.lstrip("-")
    else:
        raw = raw.rstrip(".-")
    if not raw or len(raw) > _MAX_TOKEN_LEN:
        return tuple(out)
    parts = [p for p in _DOT.split(raw) if p]
    if len(parts) > 1:
        out.append(raw.lower())
    for part in parts:
        _dashed(part, out)
    return tuple(out)


class _WordCache(dict[str, tuple[str, ...]]):
    """Whitespace-delimited word -> its tokens.

    A dict subclass so that the hit path is a C-level ``dict.__getitem__`` (no
    Python frame per word); ``__missing__`` runs only on a miss. Bounded by
    clearing when full, which is cheap and safe to race under the GIL.
    """

    def __missing__(self, word: str) -> tuple[str, ...]:
        tokens = tuple(chain.from_iterable(map(_expand, _RAW.findall(word))))
        if len(self) >= _WORD_CACHE_MAX:
            self.clear()
        self[word] = tokens
        return tokens


_words = _WordCache()
_lookup = _words.__getitem__


def tokenize(text: str) -> list[str]:
    """Tokens for indexing or querying; the same function must be used for both."""
    # Raw tokens never contain whitespace, so tokenizing word by word is exact.
    return list(chain.from_iterable(map(_lookup, text.split())))

"""Redact secrets from free text before it is stored.

On-call engineers paste tokens, passwords and connection strings into questions.
Every question goes through :func:`redact` before it is written to the query log.

Each entry of :data:`SECRET_PATTERNS` is a ``(kind, pattern)`` pair. When a pattern
has a named group ``secret``, only that group is redacted and the rest of the match
(``password=``, ``Authorization: Bearer ``, ``postgres://user:``) is kept, so the log
still says what kind of value was there and which host it was for. Otherwise the
whole match is the secret.

The patterns lean towards redacting too much: a lost word in the query log is cheap,
a leaked credential is not. Generic ``label=value`` patterns only fire on an explicit
secret-ish label, and bare high-entropy strings (git SHAs, digests, UUIDs) are left
alone unless a secret-ish word labels them.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Final

__all__ = [
    "REDACTED",
    "SECRET_PATTERNS",
    "Redaction",
    "find_secrets",
    "placeholder",
    "redact",
]

REDACTED: Final = "[REDACTED]"


@dataclass(frozen=True)
class Redaction:
    """A secret found in a text: ``text[start:end]`` is the secret, of this ``kind``."""

    kind: str
    start: int
    end: int


def placeholder(kind: str) -> str:
    """The text that replaces a secret of ``kind``: ``[REDACTED:<kind>]``."""
    return f"{REDACTED[:-1]}:{kind}]"


# --- building blocks ------------------------------------------------------------------

# Characters of an opaque token (base64, base64url, hex, JWT, ...).
_TOK = r"[A-Za-z0-9._~+/=-]"
# The separator between a label and its value: `=`, `:`, `=>`, `:=`, with an optional
# closing quote on the label (JSON: "password": "...").  Never crosses a line.
_SEP = r"""["']?[ \t]*(?:=>|:=|[:=])[ \t]*"""
# Like _SEP, but a plain space also works ("aws configure set aws_secret_access_key X").
_SEP_OR_SPACE = r"""["']?(?:[ \t]*(?:=>|:=|[:=])[ \t]*|[ \t]+)["']?"""
# A value that is either quoted (everything up to the matching closing quote) or bare
# (up to whitespace, a quote or a list/query separator).
_VALUE = r"""(?P<q>["'])?(?P<secret>(?(q)(?:(?!(?P=q))[^\r\n])+|[^\s"'`,;&]+))"""

# A label starts a word (optionally as a --flag).  Not starting inside a_b_c keeps the
# prefix scan linear: otherwise every segment of a long snake_case run is a new start.
_LABEL_START = r"(?<![A-Za-z0-9_.-])-{0,2}"
# Words that make a `label=value` pair a secret.  `(?:[A-Za-z0-9]+[_.-])*` lets the
# label carry a prefix (DB_PASSWORD, client_secret, X-Auth-Token, aws_secret_access_key)
# while requiring a separator, so "monkey=" is not "key=".
_KEY_WORDS = (
    r"(?:api|secret|private|access|account|signing|encryption|master|auth|app|license"
    r"|routing|integration)[_-]?key"
)
_LABEL = (
    _LABEL_START + r"(?:"
    # password family: any alphanumeric prefix too (PGPASSWORD, dbpassword)
    r"(?:[A-Za-z0-9]+[_.-])*[A-Za-z0-9]*(?:password|passwd|passphrase)"
    r"|(?:[A-Za-z0-9]+[_.-])*(?:pwd|pw|pass|secret|token|apikey|" + _KEY_WORDS + r")"
    # camelCase labels (JSON from SDKs and CLIs): SessionToken, clientSecret, apiKey
    r"|(?-i:[A-Za-z0-9]*[a-z0-9](?:Token|Secret|Password|Passwd|Passphrase|Pwd))"
    r"|(?-i:[A-Za-z0-9]*(?:[Aa]pi|[Ss]ecret|[Pp]rivate|[Aa]ccess|[Aa]ccount|[Ss]igning"
    r"|[Ee]ncryption|[Mm]aster|[Aa]uth|[Aa]pp|[Ll]icense|[Rr]outing|[Ii]ntegration)Key)"
    r")"
)
# Looser label for the high-entropy rule: the value itself must look random.
_ENTROPY_LABEL = (
    _LABEL_START + r"(?=(?:[A-Za-z0-9]+[_.-])*"
    r"(?:secret|token|key|password|passwd|passphrase|credentials?|auth|signature|sig"
    r"|hmac|salt|cookie|session|apikey)s?(?![A-Za-z0-9]))[A-Za-z0-9_.-]++"
)
_ENTROPY_SEP = (
    r"""(?:["']?[ \t]*(?:=>|:=|[:=])[ \t]*|[ \t]+(?:(?:is|was|are|of)[ \t]*:?[ \t]+)?)["']?"""
)
_HIGH_ENTROPY = (
    r"(?P<secret>"
    # hex with both digits and letters (a run of 32 digits is not a key)
    r"(?=[A-Fa-f0-9]*[0-9])(?=[A-Fa-f0-9]*[A-Fa-f])[A-Fa-f0-9]{32,}"
    # base64 / base64url with upper, lower and digits
    r"|(?=[A-Za-z0-9+/_-]*[0-9])(?=[A-Za-z0-9+/_-]*[A-Z])(?=[A-Za-z0-9+/_-]*[a-z])"
    r"[A-Za-z0-9+/_-]{32,}={0,2}"
    r")(?![A-Za-z0-9+/=_-])"
)
_DB_SCHEMES = (
    r"(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver"
    r"|clickhouse|cockroachdb)"
)
_AUTH_HEADER = r"""\b(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?"""

# Plain-language passwords: "password hunter2", "the password is hunter2", "pw: hunter2",
# "the password for admin is hunter2".  ``conn`` is the connecting "is" / ":" / "for X is"
# when there is one; without it the value must look like a password (see
# :func:`_looks_like_password`), so "password reset procedure" stays as it is.
_PLAIN_PASSWORD = (
    _LABEL_START + r"(?:[A-Za-z0-9]+[_.-])*(?:password|passwd|passphrase|pw)"
    r"(?P<conn>(?:[ \t]+(?:for|of)[ \t]+(?:the[ \t]+)?[A-Za-z0-9_.@/-]{1,64})?"
    r"(?:[ \t]+(?:is|was)|[ \t]*[:=]))?"
    r"[ \t]+" + _VALUE
)
# A secret-ish command-line flag followed by its value after a space: --password X.
_FLAG_SECRET = (
    r"(?<![A-Za-z0-9_.-])--(?:[A-Za-z0-9]+-)*"
    r"(?:password|passwd|passphrase|pass|pw|token|secret|api-?key|secret-key|access-key)"
    r"[ \t]+" + _VALUE
)
# "creds admin / hunter2", "credentials: admin:hunter2"
_CREDENTIALS_PAIR = (
    _LABEL_START + r"(?:creds?|credentials?)"
    r"(?:[ \t]+(?:(?:is|are|were|was)[ \t]*)?[:=]?|[ \t]*[:=])[ \t]*"
    r"[\"']?[A-Za-z0-9_.@+-]{1,64}[\"']?[ \t]*[/:][ \t]*" + _VALUE
)

_I = re.IGNORECASE

#: ``(kind, pattern)`` pairs, most specific first.  When matches overlap they are merged
#: into one redaction that takes the kind of the earliest entry in this table.
SECRET_PATTERNS: Final[tuple[tuple[str, re.Pattern[str]], ...]] = (
    (
        "pem_private_key",
        re.compile(
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            # up to the END line, or (a truncated paste) to the end of the text
            r"(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|.*)",
            re.DOTALL,
        ),
    ),
    ("slack_token", re.compile(r"\bxox[abeoprs](?:\.xox[abeoprs])?-[A-Za-z0-9-]{10,}")),
    ("slack_app_token", re.compile(r"\bxapp-[A-Za-z0-9-]{10,}")),
    (
        "slack_webhook",
        re.compile(
            r"\bhttps?://hooks\.slack\.com/(?:services|workflows|triggers)/"
            r"(?P<secret>[A-Za-z0-9_-]+(?:/[A-Za-z0-9_-]+)*)"
        ),
    ),
    ("aws_access_key_id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b")),
    (
        "aws_secret_access_key",
        re.compile(
            _LABEL_START
            + r"(?:[A-Za-z0-9]+[_.-])*?(?:aws[_.-]?)?secret[_.-]?(?:access[_.-]?)?key"
            + _SEP_OR_SPACE
            + r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
            _I,
        ),
    ),
    ("github_token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b")),
    ("github_fine_grained_token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b")),
    ("gitlab_token", re.compile(r"\bgl(?:pat|dt|rt|ptt|cbt|soat)-[A-Za-z0-9_-]{20,}")),
    (
        "jwt",
        re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"),
    ),
    ("stripe_key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("stripe_webhook_secret", re.compile(r"\bwhsec_[A-Za-z0-9]{24,}")),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])")),
    ("google_oauth_client_secret", re.compile(r"\bGOCSPX-[A-Za-z0-9_-]{20,}")),
    (
        "anthropic_api_key",
        re.compile(r"\bsk-ant-(?:api|admin|oat)\d{2}-[A-Za-z0-9_-]{20,}"),
    ),
    (
        "openai_api_key",
        # needs an upper-case letter and a digit so host names like sk-prod-node-... pass
        re.compile(
            r"\bsk-(?:proj-|svcacct-|admin-)?"
            r"(?=[A-Za-z0-9_-]{0,255}[A-Z])(?=[A-Za-z0-9_-]{0,255}[0-9])[A-Za-z0-9_-]{20,}"
        ),
    ),
    ("npm_token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    (
        "azure_storage_key",
        re.compile(
            r"\b(?:AccountKey|SharedAccessKey)[ \t]*=[ \t]*(?P<secret>[A-Za-z0-9+/]{20,}={0,2})",
            _I,
        ),
    ),
    ("azure_sas_signature", re.compile(r"[?&]sig=(?P<secret>[A-Za-z0-9%+/=]{20,})")),
    ("twilio_api_key", re.compile(r"\bSK[0-9a-f]{32}\b")),
    ("sendgrid_api_key", re.compile(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{20,}")),
    (
        "datadog_api_key",
        re.compile(
            _LABEL_START
            + r"(?:dd|datadog)[_.-]?(?:api|app|application)[_.-]?key"
            + _SEP_OR_SPACE
            + r"(?P<secret>[a-f0-9]{32,40})(?![A-Za-z0-9])",
            _I,
        ),
    ),
    (
        "pagerduty_key",
        re.compile(
            _LABEL_START + r"(?:pagerduty|pd)[_.-]?"
            r"(?:(?:api|integration|routing|service|events|user)[_.-]?)?(?:key|token)"
            + _SEP_OR_SPACE
            + r"(?P<secret>[A-Za-z0-9+_-]{20,})",
            _I,
        ),
    ),
    ("vault_token", re.compile(r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}")),
    ("huggingface_token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    ("digitalocean_token", re.compile(r"\bdo[por]_v1_[a-f0-9]{64}\b")),
    (
        "connection_string",
        re.compile(
            r"\b" + _DB_SCHEMES + r"://[^:/@\s]{0,256}:(?P<secret>[^@\s]{1,256})@",
            _I,
        ),
    ),
    (
        "url_credentials",
        re.compile(
            # the password stops at "/": in host:port/path there is no userinfo
            r"(?<![A-Za-z0-9+.-])[a-z][a-z0-9+.-]{0,31}://"
            r"[^:/@\s]{0,256}:(?P<secret>[^@\s/]{1,256})@",
            _I,
        ),
    ),
    (
        "bearer_token",
        re.compile(_AUTH_HEADER + r"bearer[ \t]+(?P<secret>" + _TOK + r"+)", _I),
    ),
    (
        # Outside a header, "Bearer" is also an English word: demand a long token with a digit.
        "bearer_token",
        re.compile(
            r"\bbearer[ \t]+(?P<secret>(?=" + _TOK + r"*[0-9])" + _TOK + r"{16,})",
            _I,
        ),
    ),
    (
        "basic_auth",
        re.compile(_AUTH_HEADER + r"basic[ \t]+(?P<secret>[A-Za-z0-9+/=]+)", _I),
    ),
    (
        "authorization_header",
        re.compile(
            _AUTH_HEADER + r"(?!(?:bearer|basic)\b)"
            r"(?:(?:token|bot|apikey|digest|negotiate|ntlm|sso-key)[ \t]+)?"
            r"(?P<secret>" + _TOK + r"{8,})",
            _I,
        ),
    ),
    (
        "curl_user_password",
        re.compile(
            r"""\bcurl\b[^\n]{0,300}?[ \t](?:-u|--user)[ \t]*["']?[^:\s"']+:"""
            r"""(?P<secret>[^\s"']+)"""
        ),
    ),
    (
        "mysql_cli_password",
        re.compile(
            r"\bmysql(?:dump|admin|sh)?\b[^\n]{0,300}?[ \t]-p(?P<secret>[^\s\"'-][^\s\"']*)"
        ),
    ),
    ("secret_assignment", re.compile(_LABEL + _SEP + _VALUE, _I)),
    # `key=...` on its own only with `=`: "key: timestamp" in a schema is not a secret.
    ("secret_assignment", re.compile(r"(?<![A-Za-z0-9_.-])key[ \t]*=[ \t]*" + _VALUE, _I)),
    (
        "sshpass_password",
        re.compile(r"\bsshpass\b[^\n]{0,300}?[ \t]-p[ \t]*" + _VALUE),
    ),
    (
        "redis_cli_password",
        re.compile(r"\bredis-cli\b[^\n]{0,300}?[ \t]-a[ \t]+" + _VALUE),
    ),
    ("password_flag", re.compile(_FLAG_SECRET, _I)),
    ("credentials_pair", re.compile(_CREDENTIALS_PAIR, _I)),
    ("plain_password", re.compile(_PLAIN_PASSWORD, _I)),
    ("labelled_high_entropy", re.compile(_ENTROPY_LABEL + _ENTROPY_SEP + _HIGH_ENTROPY, _I)),
)

# Values of `label=value` that are not secrets: references, templates, masks and words.
_NOT_SECRET_VALUES: Final = frozenset(
    {
        "a",
        "an",
        "changed",
        "empty",
        "expired",
        "false",
        "hidden",
        "in",
        "incorrect",
        "invalid",
        "is",
        "key",
        "masked",
        "missing",
        "n/a",
        "na",
        "nil",
        "no",
        "none",
        "not",
        "null",
        "password",
        "redacted",
        "required",
        "reset",
        "rotated",
        "secret",
        "see",
        "tbd",
        "the",
        "todo",
        "token",
        "true",
        "undefined",
        "unknown",
        "unset",
        "use",
        "wrong",
        "yes",
    }
)
_MASK_CHAR: Final = "\x00"
_NOT_SECRET_PREFIXES: Final = ("$", "{{", "<", "%", "[REDACTED", _MASK_CHAR)
_MASK_CHARS: Final = frozenset("*xX•.")

# token=os.environ["SLACK_BOT_TOKEN"], key = Fernet.generate_key(): code, not a value.
_CODE_REFERENCE_RE: Final = re.compile(r"""[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:\(|\[(?:["']|$))""")

_VALUE_CHECKED_KINDS: Final = frozenset(
    {
        "secret_assignment",
        "curl_user_password",
        "mysql_cli_password",
        "authorization_header",
        "sshpass_password",
        "redis_cli_password",
        "password_flag",
        "credentials_pair",
        "plain_password",
    }
)

# Words that follow "the password is" in ordinary sentences ("the password is wrong").
_PLAIN_WORDS: Final = frozenset(
    {
        "also",
        "always",
        "at",
        "bad",
        "blank",
        "case",
        "correct",
        "different",
        "fine",
        "for",
        "from",
        "gone",
        "good",
        "here",
        "how",
        "it",
        "just",
        "known",
        "long",
        "lost",
        "never",
        "new",
        "now",
        "ok",
        "okay",
        "old",
        "on",
        "only",
        "right",
        "same",
        "short",
        "still",
        "strong",
        "that",
        "there",
        "this",
        "to",
        "too",
        "valid",
        "very",
        "weak",
        "what",
        "when",
        "where",
        "which",
        "why",
    }
)
_ORDINARY_SUFFIXES: Final = ("ed", "ing", "ly", "able", "ible")
# Markdown links, URLs and shell substitutions are not a word that follows "password".
_NOT_A_WORD: Final = ("](", "://", "$(", "=")

_MAX_PASSES: Final = 4

_PLACEHOLDER_RE: Final = re.compile(r"\[REDACTED(?::[A-Za-z0-9_]+)?\]")


def _is_secret_value(kind: str, match: re.Match[str]) -> bool:
    """Reject label-driven matches whose value is clearly not a secret."""
    if kind not in _VALUE_CHECKED_KINDS:
        return True
    value = match.group("secret")
    if kind == "authorization_header" and not any(c.isdigit() for c in value):
        return False  # "Authorization: forbidden" is an error message, not a credential
    if value.lower() in _NOT_SECRET_VALUES or set(value) <= _MASK_CHARS:
        return False
    if value.startswith(_NOT_SECRET_PREFIXES) or _CODE_REFERENCE_RE.match(value):
        return False
    if value[0] == "-" or (value[0] == "[" and value.endswith("]")):
        return False  # the next flag ("--password --region"), a template ("[db-name]")
    if kind == "plain_password" and not match.group("q"):
        return _looks_like_password(value, connected=bool(match.group("conn")))
    # PWD=/home/alice is the working directory, not a password.
    label = match.group(0)[: match.start("secret") - match.start()]
    return not (re.search(r"pwd\W*$", label, _I) and value.startswith(("/", "~")))


def _looks_like_password(value: str, *, connected: bool) -> bool:
    """Is the bare word after "password" a password rather than the rest of a sentence?

    After "password is" / "pw:" any word is, except ordinary ones ("is wrong", "is
    stored in vault"); right after "password" the word needs a digit, a symbol or
    mixed case ("password hunter2", but not "password reset procedure").
    """
    word = value.rstrip(".!?)")
    lowered = word.lower()
    if not connected and (len(word) < 4 or any(m in word for m in _NOT_A_WORD)):
        return False
    if lowered in _PLAIN_WORDS or lowered in _NOT_SECRET_VALUES:
        return False
    if any(c.isdigit() for c in word) or not word.isalpha():
        return True
    mixed = any(c.isupper() for c in word[1:]) and any(c.islower() for c in word)
    if mixed:
        return True
    return connected and len(word) >= 4 and not lowered.endswith(_ORDINARY_SUFFIXES)


def find_secrets(text: str) -> list[Redaction]:
    """The secrets in ``text``, sorted by position and non-overlapping.

    Overlapping matches (``token=ghp_...`` is both a GitHub token and a labelled token)
    are merged into one redaction covering all of them, with the kind of the most
    specific pattern. Text that is already a ``[REDACTED...]`` placeholder is never
    part of a redaction, so redacting twice changes nothing.
    """
    # Placeholders are matched as runs of NUL: their ":" and letters must not complete a
    # pattern ("https://[REDACTED:jwt]@" is not user:password@).
    placeholders = [m.span() for m in _PLACEHOLDER_RE.finditer(text)]
    placeholder_ends = [p_end for _, p_end in placeholders]
    masked = _PLACEHOLDER_RE.sub(lambda m: _MASK_CHAR * len(m[0]), text)
    candidates: list[tuple[int, int, int, str]] = []
    for priority, (kind, pattern) in enumerate(SECRET_PATTERNS):
        has_group = "secret" in pattern.groupindex
        for match in pattern.finditer(masked):
            start, end = match.span("secret") if has_group else match.span()
            if start >= end or not _is_secret_value(kind, match):
                continue
            # Never redact inside an existing placeholder: keep only the pieces around it.
            i = bisect.bisect_right(placeholder_ends, start)
            while i < len(placeholders) and placeholders[i][0] < end:
                p_start, p_end = placeholders[i]
                if start < p_start:
                    candidates.append((start, p_start, priority, kind))
                start = max(start, p_end)
                i += 1
            if start < end:
                candidates.append((start, end, priority, kind))

    # Merge overlapping candidates; a merged redaction keeps its best (lowest) priority.
    merged: list[Redaction] = []
    priorities: list[int] = []
    for start, end, priority, kind in sorted(candidates):
        if merged and start < merged[-1].end:
            last = merged[-1]
            if priority < priorities[-1]:
                priorities[-1] = priority
            else:
                kind = last.kind
            merged[-1] = Redaction(kind, last.start, max(last.end, end))
        else:
            merged.append(Redaction(kind, start, end))
            priorities.append(priority)
    return merged


def _replace(text: str, secrets: list[Redaction]) -> str:
    parts: list[str] = []
    pos = 0
    for secret in secrets:
        parts.append(text[pos : secret.start])
        parts.append(placeholder(secret.kind))
        pos = secret.end
    parts.append(text[pos:])
    return "".join(parts)


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``.

    The result has no secrets left for :func:`find_secrets`, so ``redact`` is
    idempotent. Normally that takes one pass; if replacing secrets exposes new matches,
    it takes more, and text that is still not clean after :data:`_MAX_PASSES` passes
    is replaced as a whole (``[REDACTED:text]``) rather than stored half-redacted.
    """
    for _ in range(_MAX_PASSES):
        secrets = find_secrets(text)
        if not secrets:
            return text
        text = _replace(text, secrets)
    return text if not find_secrets(text) else placeholder("text")

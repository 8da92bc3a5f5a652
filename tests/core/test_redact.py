"""Secrets pasted into questions never reach the query log.

Every secret below is fake (EXAMPLE / 0123... bodies) but has the real format. The
provider tokens are assembled from pieces so that secret scanners on the repository
do not flag this file.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core.redact as redact_module
from core.redact import (
    REDACTED,
    SECRET_PATTERNS,
    Redaction,
    find_secrets,
    placeholder,
    redact,
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

SLACK_BOT = "xoxb-" + "000000000000-0000000000000-EXAMPLEexampleEXAMPLEexa"
SLACK_USER = "xoxp-" + "000000000000-000000000000-0000000000000-" + "0123456789abcdef" * 2
SLACK_APP = "xapp-" + "1-A00000000-0000000000000-" + "0123456789abcdef" * 4
SLACK_HOOK_PATH = "T00000000/B00000000/" + "X" * 24
AWS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
GITHUB = "ghp_" + "EXAMPLE0123456789abcdefghijklmnopqrs"
GITHUB_PAT = "github_pat_" + "11EXAMPLE0123456789abcd_" + "EXAMPLEexample0123456789" * 2
GITLAB = "glpat-" + "EXAMPLEexample012345"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
STRIPE = "sk_" + "live_" + "EXAMPLE0123456789abcdefgh"
STRIPE_RESTRICTED = "rk_" + "live_" + "EXAMPLE0123456789abcdefgh"
STRIPE_WEBHOOK = "whsec_" + "EXAMPLE0123456789abcdefghijkl"
GOOGLE = "AIza" + "SyD-EXAMPLE" + "x" * 24
GOOGLE_OAUTH = "GOCSPX-" + "EXAMPLE0123456789abcdefgh"
ANTHROPIC = "sk-ant-" + "api03-" + "EXAMPLE0123456789abcdefghij_KLMNOP"
OPENAI = "sk-" + "proj-" + "EXAMPLE0123456789abcdefghijKLMNOP_qrstuv-wxyz"
NPM = "npm_" + "EXAMPLE0123456789abcdefghijklmnopqrs"
AZURE_KEY = "EXAMPLEexample0123456789+/" * 3 + "EXAMPLEexample==" + ""
TWILIO = "SK" + "0123456789abcdef" * 2
SENDGRID = "SG." + "EXAMPLE0123456789abcd" + "." + "EXAMPLE0123456789abcdefghijklmnopqrstuvwxyz0"
HEX32 = "0123456789abcdef" * 2
HEX64 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
VAULT = "hvs." + "CAESIEXAMPLE0123456789abcdefGh"
HUGGINGFACE = "hf_" + "EXAMPLE0123456789abcdefghijklmnop"
DIGITALOCEAN = "dop_v1_" + HEX64
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEpAIBAAKCAQEAEXAMPLEexampleEXAMPLEexampleEXAMPLEexampleEXAMPLE\n"
    "EXAMPLEexampleEXAMPLEexampleEXAMPLEexampleEXAMPLEexample0123456789\n"
    "-----END RSA PRIVATE KEY-----"
)
GIT_SHA = "a685d14cf5128bb30e2bf935c3983decd772d885"

# (kind, text, the secret: exactly the span that is redacted, text that must remain)
SECRET_CASES: list[tuple[str, str, str, str]] = [
    ("slack_token", f"bot fails with {SLACK_BOT} invalid_auth", SLACK_BOT, "invalid_auth"),
    ("slack_token", f"user token {SLACK_USER} expired?", SLACK_USER, "user token "),
    ("slack_app_token", f"socket mode app token is {SLACK_APP}", SLACK_APP, "socket mode"),
    (
        "slack_webhook",
        f"alerts go to https://hooks.slack.com/services/{SLACK_HOOK_PATH} now",
        SLACK_HOOK_PATH,
        "https://hooks.slack.com/services/",
    ),
    ("aws_access_key_id", f"access key {AWS_KEY_ID} is denied", AWS_KEY_ID, "is denied"),
    (
        "aws_secret_access_key",
        f"aws_secret_access_key = {AWS_SECRET}",
        AWS_SECRET,
        "aws_secret_access_key = ",
    ),
    (
        "aws_secret_access_key",
        f'{{"AccessKeyId": "x", "SecretAccessKey": "{AWS_SECRET}"}}',
        AWS_SECRET,
        '"SecretAccessKey": "',
    ),
    ("github_token", f"git push with {GITHUB} gets 403", GITHUB, "gets 403"),
    ("github_fine_grained_token", f"GH_TOKEN {GITHUB_PAT}", GITHUB_PAT, "GH_TOKEN "),
    ("gitlab_token", f"glab auth uses {GITLAB} for ci", GITLAB, "for ci"),
    ("jwt", f"jwt {JWT} fails validation", JWT, "fails validation"),
    ("stripe_key", f"STRIPE_KEY {STRIPE} returns 401", STRIPE, "returns 401"),
    ("stripe_key", f"restricted key {STRIPE_RESTRICTED}", STRIPE_RESTRICTED, "restricted key"),
    ("stripe_webhook_secret", f"webhook signing {STRIPE_WEBHOOK}", STRIPE_WEBHOOK, "webhook"),
    ("google_api_key", f"maps calls use {GOOGLE} and 429", GOOGLE, "and 429"),
    ("google_oauth_client_secret", f"oauth {GOOGLE_OAUTH} rotated", GOOGLE_OAUTH, "rotated"),
    ("anthropic_api_key", f"llm fallback key {ANTHROPIC}", ANTHROPIC, "llm fallback"),
    ("openai_api_key", f"OPENAI key {OPENAI} hits rate limits", OPENAI, "hits rate limits"),
    ("npm_token", f"//registry.npmjs.org/:_authToken {NPM}", NPM, "registry.npmjs.org"),
    (
        "azure_storage_key",
        f"DefaultEndpointsProtocol=https;AccountName=logs;AccountKey={AZURE_KEY};"
        "EndpointSuffix=core.windows.net",
        AZURE_KEY,
        "AccountName=logs;AccountKey=",
    ),
    (
        "azure_sas_signature",
        "https://logs.blob.core.windows.net/c?sv=2022-11-02&sig=EXAMPLE%2Bsig0123456789abcd",
        "EXAMPLE%2Bsig0123456789abcd",
        "logs.blob.core.windows.net",
    ),
    ("twilio_api_key", f"sms via twilio {TWILIO} fails", TWILIO, "sms via twilio"),
    ("sendgrid_api_key", f"mailer uses {SENDGRID} since monday", SENDGRID, "since monday"),
    ("datadog_api_key", f"DD_API_KEY={HEX32} in the agent", HEX32, "DD_API_KEY="),
    ("pagerduty_key", f"pagerduty_routing_key: {HEX32}", HEX32, "pagerduty_routing_key: "),
    ("vault_token", f"VAULT_TOKEN {VAULT} is denied", VAULT, "is denied"),
    ("huggingface_token", f"model pull with {HUGGINGFACE}", HUGGINGFACE, "model pull"),
    ("digitalocean_token", f"doctl {DIGITALOCEAN}", DIGITALOCEAN, "doctl "),
    ("pem_private_key", f"is this key right?\n{PEM}\nthanks", PEM, "is this key right?"),
    (
        "connection_string",
        "postgres://app:s3cr3tpw@db.internal:5432/orders times out",
        "s3cr3tpw",
        "postgres://app:",
    ),
    (
        "connection_string",
        "mongodb+srv://svc:Mongo%21pw42@cluster0.example.mongodb.net/orders",
        "Mongo%21pw42",
        "@cluster0.example.mongodb.net/orders",
    ),
    ("connection_string", "REDIS_URL=redis://:r3dispw@cache-01:6379/0", "r3dispw", "cache-01"),
    (
        "connection_string",
        "mysql://root:My5qlRootPw@db-02.internal:3306/app",
        "My5qlRootPw",
        "db-02.internal:3306/app",
    ),
    ("connection_string", "amqp://guest:rabbitPw9@mq:5672/", "rabbitPw9", "@mq:5672/"),
    (
        "url_credentials",
        "git clone https://deploy:Cl0neTokenPw@git.example.com/org/repo.git",
        "Cl0neTokenPw",
        "git.example.com/org/repo.git",
    ),
    (
        "bearer_token",
        "curl -H 'Authorization: Bearer EXAMPLEopaque0123456789.token' https://api",
        "EXAMPLEopaque0123456789.token",
        "Authorization: Bearer ",
    ),
    ("jwt", f"Authorization: Bearer {JWT}", JWT, "Authorization: Bearer "),
    (
        "bearer_token",
        "the gateway rejects Bearer EXAMPLE0123456789abcdef with 401",
        "EXAMPLE0123456789abcdef",
        "with 401",
    ),
    (
        "basic_auth",
        "Authorization: Basic dXNlcjpFWEFNUExFcGFzcw==",
        "dXNlcjpFWEFNUExFcGFzcw==",
        "Authorization: Basic ",
    ),
    (
        "authorization_header",
        "Authorization: EXAMPLEraw0123456789",
        "EXAMPLEraw0123456789",
        "Authorization: ",
    ),
    (
        "curl_user_password",
        "curl -u admin:Sup3rS3cret https://api.internal/health",
        "Sup3rS3cret",
        "curl -u admin:",
    ),
    (
        "mysql_cli_password",
        "mysql -h db-01 -u root -pS3cretRoot orders",
        "S3cretRoot",
        "-u root -p",
    ),
    ("secret_assignment", "login fails: password=hunter2", "hunter2", "password="),
    (
        "secret_assignment",
        'config has "api_key": "EXAMPLE-1234-abcd"',
        "EXAMPLE-1234-abcd",
        "api_key",
    ),
    (
        "secret_assignment",
        "export DB_PASSWORD='correct horse battery staple'",
        "correct horse battery staple",
        "export DB_PASSWORD='",
    ),
    ("secret_assignment", "PGPASSWORD=pgPass123 psql -h db", "pgPass123", "psql -h db"),
    ("secret_assignment", "client_secret: EXAMPLEclient42", "EXAMPLEclient42", "client_secret: "),
    (
        "secret_assignment",
        "GET /v1/export?access_token=EXAMPLEtoken123&page=2",
        "EXAMPLEtoken123",
        "&page=2",
    ),
    (
        "secret_assignment",
        "kubectl create secret generic db --from-literal=password=Sup3rS3cret!",
        "Sup3rS3cret!",
        "kubectl create secret generic db --from-literal=password=",
    ),
    ("secret_assignment", "SECRET: t0ps3cr3t", "t0ps3cr3t", "SECRET: "),
    ("secret_assignment", "passwd=Passw0rd pwd=Pwd0rd9", "Passw0rd", "pwd="),
    ("secret_assignment", "redis-cli --pass=R3disPass -h cache", "R3disPass", "-h cache"),
    (
        "secret_assignment",
        "{'SessionToken': 'FwoGZXIvYXdzEXAMPLE'}",
        "FwoGZXIvYXdzEXAMPLE",
        "SessionToken",
    ),
    ("secret_assignment", "X-Api-Key: EXAMPLEkey42 gets 403", "EXAMPLEkey42", "gets 403"),
    ("secret_assignment", "signing key=EXAMPLE-signing", "EXAMPLE-signing", "signing key="),
    ("plain_password", "login fails with password hunter2 on db-01", "hunter2", "on db-01"),
    ("plain_password", "the password is Winter2024! for now", "Winter2024!", "for now"),
    ("plain_password", "the root password is letmein", "letmein", "root password is "),
    ("plain_password", "the password for admin is S3cret", "S3cret", "password for admin is "),
    ("plain_password", "password 'correct horse' rejected", "correct horse", "rejected"),
    ("secret_assignment", "pw: hunter2 does not work", "hunter2", "pw: "),
    ("password_flag", "mysql -h db -u root --password S3cretRoot orders", "S3cretRoot", "orders"),
    ("secret_assignment", "mysql -u root --password=S3cretRoot orders", "S3cretRoot", "orders"),
    ("mysql_cli_password", "mysql -uroot -pS3cretRoot orders", "S3cretRoot", "-uroot -p"),
    ("sshpass_password", "sshpass -p 'Ssh!Pass42' ssh admin@bastion", "Ssh!Pass42", "@bastion"),
    ("sshpass_password", "sshpass -pSshPass42 ssh admin@bastion", "SshPass42", "sshpass -p"),
    ("redis_cli_password", "redis-cli -h cache-01 -a R3disPw ping", "R3disPw", "ping"),
    ("credentials_pair", "creds admin / Adm1nPw! do not work", "Adm1nPw!", "creds admin / "),
    ("credentials_pair", "credentials: deploy:D3ployPw", "D3ployPw", "credentials: deploy:"),
    (
        "labelled_high_entropy",
        f"the webhook signing key is {HEX64} right?",
        HEX64,
        "the webhook signing key is ",
    ),
    (
        "labelled_high_entropy",
        "session cookie EXAMPLEcookie0123456789abcdefABCDEF/+x was stolen",
        "EXAMPLEcookie0123456789abcdefABCDEF/+x",
        "was stolen",
    ),
]

NEGATIVE_CASES: list[str] = [
    "KubePodCrashLooping is firing for payments-api in prod",
    'node_filesystem_avail_bytes{mountpoint="/"} is below 10% on node-7',
    f"deploy {GIT_SHA} broke it",
    f"git revert {GIT_SHA[:7]} or {GIT_SHA}?",
    "trace 123e4567-e89b-12d3-a456-426614174000 shows a timeout",
    "10.0.12.7 cannot reach db-01.prod.internal:5432 and 2001:db8::1 is fine",
    "kubectl -n payments rollout restart deployment/api && kubectl get secret db-creds -o yaml",
    "checkout fails with CHK-5023 after the deploy",
    "how do I do a password reset for the admin user?",
    "token expired for the grafana datasource",
    "error: token: expired, password: reset required",
    "password: ${DB_PASSWORD} comes from the vault agent",
    'password: "{{ .Values.db.password }}" in the chart',
    "Bearer tokens expire after an hour",
    "Authorization: forbidden for this namespace",
    "postgres://app@db.internal:5432/orders refuses connections",
    "https://grafana.example.com:3000/d/abc123/latency?orgId=1",
    f"pulled registry.example.com/api@sha256:{HEX64}",
    "sk-prod-node-01-eu-west-1 has disk pressure",
    "secretName: db-creds\nkey: password",
    "docker run -u 1000:1000 busybox",
    "DB_PASSWORD is set in the Secret, see the runbook",
    "PWD=/home/alice/runbooks",
    "password=******** in the logs is fine",
    'app = App(token=os.environ["SLACK_BOT_TOKEN"])',
    "automountServiceAccountToken: false",
    "the key rotation job and the token bucket limiter both run hourly",
    "SLACK_SIGNING_SECRET was rotated, see INC-4411",
    # plain-language questions about passwords are not passwords
    "password reset procedure for the admin console",
    "how do I rotate the password",
    "how do I rotate the password for the admin console?",
    "password for the admin console expired",
    "the password is expired for svc-deploy",
    "the password is stored in vault",
    "the password is wrong and the account is locked",
    "is the password correct?",
    "password policy requires 12 characters",
    "password rotation schedule for db-01",
    "docker login --password-stdin",
    "mysql -u root -p orders",
    "redis-cli -a $REDISCLI_AUTH ping",
    "credentials for admin / ops team",
    "pw reset link does not arrive",
]


def _ids(cases: list[tuple[str, str, str, str]]) -> list[str]:
    return [f"{kind}-{i}" for i, (kind, *_) in enumerate(cases)]


@pytest.mark.parametrize(("kind", "text", "secret", "kept"), SECRET_CASES, ids=_ids(SECRET_CASES))
def test_secret_is_redacted_and_context_kept(kind: str, text: str, secret: str, kept: str) -> None:
    assert secret in text and kept in text  # the case itself is well-formed
    out = redact(text)
    assert secret not in out
    assert kept in out
    assert placeholder(kind) in out


@pytest.mark.parametrize(("kind", "text", "secret", "kept"), SECRET_CASES, ids=_ids(SECRET_CASES))
def test_offsets_point_at_the_secret(kind: str, text: str, secret: str, kept: str) -> None:
    found = find_secrets(text)
    assert [(r.kind, text[r.start : r.end]) for r in found][:1] == [(kind, secret)]
    # the redacted text is the original with exactly those spans replaced
    r = found[0]
    assert redact(text).startswith(text[: r.start] + placeholder(kind))


@pytest.mark.parametrize(("kind", "text", "secret", "kept"), SECRET_CASES, ids=_ids(SECRET_CASES))
def test_redacting_twice_changes_nothing(kind: str, text: str, secret: str, kept: str) -> None:
    once = redact(text)
    assert redact(once) == once
    assert find_secrets(once) == []


@pytest.mark.parametrize("text", NEGATIVE_CASES)
def test_ordinary_runbook_text_is_unchanged(text: str) -> None:
    assert find_secrets(text) == []
    assert redact(text) == text


def test_sample_questions_are_unchanged() -> None:
    lines = (FIXTURES / "sample_questions.jsonl").read_text().splitlines()
    questions = [json.loads(line)["q"] for line in lines if line.strip()]
    assert questions
    assert [q for q in questions if redact(q) != q] == []


def test_every_pattern_kind_has_a_case() -> None:
    kinds = {kind for kind, _ in SECRET_PATTERNS}
    assert len(kinds) >= 20
    assert kinds == {kind for kind, *_ in SECRET_CASES}


def test_multiple_secrets_in_one_string() -> None:
    text = (
        f"tried {AWS_KEY_ID} then password=hunter2 and "
        "postgres://app:s3cr3tpw@db.internal/orders; still failing"
    )
    found = find_secrets(text)
    assert [(r.kind, text[r.start : r.end]) for r in found] == [
        ("aws_access_key_id", AWS_KEY_ID),
        ("secret_assignment", "hunter2"),
        ("connection_string", "s3cr3tpw"),
    ]
    assert redact(text) == (
        "tried [REDACTED:aws_access_key_id] then password=[REDACTED:secret_assignment] and "
        "postgres://app:[REDACTED:connection_string]@db.internal/orders; still failing"
    )


def test_overlapping_matches_merge_into_the_most_specific_kind() -> None:
    text = f"GITHUB_TOKEN={GITHUB} and token: {SLACK_BOT}"
    found = find_secrets(text)
    assert [(r.kind, text[r.start : r.end]) for r in found] == [
        ("github_token", GITHUB),
        ("slack_token", SLACK_BOT),
    ]


def test_found_secrets_are_sorted_and_disjoint() -> None:
    text = "\n".join(t for _, t, _, _ in SECRET_CASES)
    found = find_secrets(text)
    assert len(found) >= len(SECRET_CASES)
    for a, b in itertools.pairwise(found):
        assert a.start < a.end <= b.start < b.end
    out = redact(text)
    assert not any(secret in out for _, _, secret, _ in SECRET_CASES)
    assert redact(out) == out


def test_truncated_pem_block_is_redacted_to_the_end() -> None:
    text = "key:\n" + PEM.split("-----END")[0]
    assert redact(text) == "key:\n[REDACTED:pem_private_key]"


def test_secrets_exposed_by_a_first_pass_are_redacted_too() -> None:
    # "-----SECRET:" is no label, but once the key block is a placeholder it is
    text = PEM + "SECRET: t0ps3cr3t"
    assert redact(text) == "[REDACTED:pem_private_key]SECRET: [REDACTED:secret_assignment]"


def test_text_that_never_settles_is_replaced_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redact_module, "_MAX_PASSES", 1)
    assert redact(PEM + "SECRET: t0ps3cr3t") == "[REDACTED:text]"
    assert redact("password=hunter2") == "password=[REDACTED:secret_assignment]"


def test_placeholder_format_and_value_type() -> None:
    assert REDACTED == "[REDACTED]"
    assert placeholder("jwt") == "[REDACTED:jwt]"
    r = Redaction("jwt", 1, 5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.start = 2  # type: ignore[misc]
    assert redact("") == ""
    assert find_secrets("") == []
    # a placeholder already in the text is left alone
    assert redact("password=[REDACTED:secret_assignment]") == (
        "password=[REDACTED:secret_assignment]"
    )


@pytest.mark.parametrize(
    "text",
    [
        "a_" * 20_000,
        "key_" * 10_000,
        "token_" * 8_000 + "=x",
        "-a" * 20_000,
        "a." * 20_000,
        "postgres://a:" * 5_000,
        "sk-" * 10_000,
        "xapp-" * 10_000,
        "eyJaaaaa." * 5_000,
        "curl " + " -u" * 10_000,
        "password: " * 5_000,
    ],
    ids=lambda t: repr(t[:12]),
)
def test_pathological_input_is_redacted_once_and_for_all(text: str) -> None:
    # inputs that would make a backtracking pattern quadratic (their time is
    # scripts/bench.py's, section "text"): redacting them finishes, and again changes nothing
    once = redact(text)
    assert redact(once) == once


_FRAGMENTS = [
    AWS_KEY_ID,
    GITHUB,
    SLACK_BOT,
    JWT,
    HEX64,
    GIT_SHA,
    "password",
    "token",
    "key",
    "secret",
    "Authorization",
    "Bearer",
    "postgres://",
    "app",
    "hunter2",
    "@",
    ":",
    "=",
    "'",
    '"',
    " ",
    "\n",
    "_",
    "-",
    "/",
    "[REDACTED:jwt]",
    "[REDACTED]",
    "-----BEGIN PRIVATE KEY-----",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS) | st.text(max_size=5), max_size=25).map("".join))
def test_redaction_properties_hold_for_any_text(text: str) -> None:
    found = find_secrets(text)
    for a, b in itertools.pairwise(found):
        assert a.end <= b.start
    assert all(0 <= r.start < r.end <= len(text) for r in found)
    once = redact(text)
    assert redact(once) == once

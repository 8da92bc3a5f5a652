"""Alert parsing and query building, the acronym glossary, HyDE with fallback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from retrieval.errors import RetrievalError
from retrieval.reading.query import (
    AlertContext,
    Glossary,
    GlossaryError,
    build_query,
    drop_links,
    load_glossary,
    parse_alert_text,
)

# Alertmanager's default Slack template (title + text with a labels list)
ALERTMANAGER_SLACK = """\
[FIRING:1] KubePodCrashLooping (checkout-api prod)
*Alert:* Pod is crash looping. - `critical`
*Description:* Pod checkout/checkout-api-7d9f8b6c5d-x2x7q (api) is in waiting state \
(reason: "CrashLoopBackOff").
*Details:*
  • *alertname:* `KubePodCrashLooping`
  • *container:* `api`
  • *namespace:* `checkout`
  • *pod:* `checkout-api-7d9f8b6c5d-x2x7q`
  • *service:* `checkout-api`
  • *severity:* `critical`
<https://grafana.acme.internal/d/k8s|Dashboard> | <https://runbooks.acme.internal/k8s|Runbook>
"""

# The PagerDuty Slack app
PAGERDUTY_SLACK = """\
:rotating_light: *Triggered* #48213: CheckoutApiDbConnectionErrors on checkout-api
*Service:* Checkout API
*Urgency:* High
*Assigned to:* Jane Doe
*Details:* sum(rate(checkout_db_errors_total{kind="connect"}[5m])) > 1 for 2 minutes
Last log line: 2026-11-02T10:14:03.123Z FATAL: remaining connection slots are reserved \
for non-replication superuser connections
"""

# amtool / webhook relays: "Labels:" and "Annotations:" blocks of key = value
ALERTMANAGER_LABEL_BLOCKS = """\
[FIRING:2] NodeDiskAlmostFull
Labels:
 - alertname = NodeDiskAlmostFull
 - instance = ip-10-0-4-17.ec2.internal:9100
 - mountpoint = /var
 - severity = warning
Annotations:
 - summary = Disk /var on ip-10-0-4-17 is 97% full
 - description = Filesystem /var has less than 3% space left. Predicted to fill in 4h.
Source: http://prometheus:9090/graph?g0.expr=node_filesystem_avail_bytes
"""

# A human pasting a label set and log lines with a question
PASTED_WITH_LOGS = """\
anyone know what to do with this one?
alert {alertname="PaymentProviderLatencyHigh", provider="stripe", \
service="payments-gateway", severity="critical"}
```
2026-11-02T10:14:03.123Z ERROR request_id=5f1c2e7a-8b3d-4c1e-9f0a-1b2c3d4e5f60 upstream \
timeout after 3000ms provider=stripe trace_id=4bf92f3577b34da6a3ce929d0e0e4736
2026-11-02T10:14:04.001Z ERROR request_id=6a1c2e7a-8b3d-4c1e-9f0a-1b2c3d4e5f61 upstream \
timeout after 3000ms provider=stripe trace_id=5bf92f3577b34da6a3ce929d0e0e4737
2026-11-02T10:14:05.551Z WARN circuit breaker half-open for 10.42.7.19:443 \
payments-gateway-5c7d9f8b6d-abcde
```
"""

NOISE = [
    re.compile(r"\d{4}-\d{2}-\d{2}"),  # dates / timestamps
    re.compile(r"\d{1,2}:\d{2}:\d{2}"),
    re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-"),  # UUIDs
    re.compile(r"[0-9a-f]{16,}"),  # long hex ids
    re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b"),  # IPs
    re.compile(r"https?://"),
]


def assert_clean(query: str, max_chars: int = 400) -> None:
    assert 0 < len(query) <= max_chars
    for pattern in NOISE:
        assert not pattern.search(query), (pattern.pattern, query)
    words = [w.lower() for w in query.split()]
    assert len(words) == len(set(words)), query


# --------------------------------------------------------------------------- alerts


def test_alertmanager_slack_template() -> None:
    ctx = parse_alert_text(ALERTMANAGER_SLACK)
    assert ctx.alert_name == "KubePodCrashLooping"
    assert ctx.service == "checkout-api"
    assert ctx.summary is not None and "crash looping" in ctx.summary
    q = build_query(ctx)
    assert q.startswith("KubePodCrashLooping checkout-api")
    assert "CrashLoopBackOff" in q
    assert "7d9f8b6c5d" not in q  # pod hash suffix is noise
    assert "grafana" not in q
    assert_clean(q)


def test_pagerduty_slack_message() -> None:
    ctx = parse_alert_text(PAGERDUTY_SLACK)
    assert ctx.alert_name == "CheckoutApiDbConnectionErrors"
    assert ctx.service is not None and "checkout" in ctx.service.lower()
    assert ctx.evidence is not None and "remaining connection slots" in ctx.evidence
    q = build_query(ctx)
    assert q.split()[0] == "CheckoutApiDbConnectionErrors"
    assert "remaining connection slots reserved" in q
    assert "Jane" not in q and "High" not in q  # assignee and urgency are not the problem
    assert_clean(q)


def test_alertmanager_label_and_annotation_blocks() -> None:
    ctx = parse_alert_text(ALERTMANAGER_LABEL_BLOCKS)
    assert ctx.alert_name == "NodeDiskAlmostFull"
    assert ctx.summary is not None and "97% full" in ctx.summary
    assert "less than 3% space left" in ctx.summary
    q = build_query(ctx)
    assert q.startswith("NodeDiskAlmostFull ")
    assert "ip-10-0-4-17" not in q and "9100" not in q and "97" not in q
    assert "full" in q.split()
    assert_clean(q)


def test_pasted_labels_and_logs_with_a_question() -> None:
    ctx = parse_alert_text(PASTED_WITH_LOGS)
    assert ctx.alert_name == "PaymentProviderLatencyHigh"
    assert ctx.service == "payments-gateway"
    assert ctx.question == "anyone know what to do with this one?"
    assert ctx.evidence is not None and "upstream" in ctx.evidence
    q = build_query(ctx)
    assert q.startswith("PaymentProviderLatencyHigh payments-gateway anyone know")
    assert "upstream timeout" in q
    assert "3000ms" not in q and "request_id" not in q and "trace_id" not in q
    assert_clean(q)


def test_build_query_order_dedup_and_cap() -> None:
    ctx = AlertContext(
        service="orders-consumer",
        category="kafka",
        summary="Consumer lag on orders topic is above 50000 messages",
        evidence=(
            "2026-11-02 10:14:03 INFO heartbeat ok\n"
            "2026-11-02 10:14:04 ERROR consumer group orders-consumer rebalancing failed: "
            "CommitFailedException\n"
            "2026-11-02 10:14:04 ERROR consumer group orders-consumer rebalancing failed: "
            "CommitFailedException\n"
        ),
        alert_name="OrderEventsConsumerLag",
        question="Can I scale the consumers?",
    )
    q = build_query(ctx)
    words = q.split()
    assert words[:2] == ["OrderEventsConsumerLag", "orders-consumer"]
    assert q.index("scale") < q.index("lag") < q.index("kafka") < q.index("CommitFailedException")
    assert "50000" not in q
    assert_clean(q)
    short = build_query(ctx, max_chars=40)
    assert len(short) <= 40 and short.startswith("OrderEventsConsumerLag orders-consumer")
    assert build_query(AlertContext()) == ""


# --------------------------------------------------------------------------- glossary


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "glossary.yml"
    path.write_text(text, encoding="utf-8")
    return path


def test_glossary_whole_word_matches_only(tmp_path: Path) -> None:
    g = load_glossary(
        write(tmp_path, "PG: PostgreSQL\nDLQ: dead-letter queue\nk8s: Kubernetes\nNO: Norway\n")
    )
    assert g.entries["NO"] == "Norway"  # raw YAML scalar, not the boolean False
    assert g.expand("PG down") == "PG down (PostgreSQL)"
    assert g.expand("page the DBA") == "page the DBA"
    assert g.expand("pg down") == "pg down"  # lower case is not the acronym
    assert g.expand("PGBouncer pool full") == "PGBouncer pool full"
    assert g.expand("PG-bouncer and PG again, PG") == "PG-bouncer and PG again, PG (PostgreSQL)"
    assert g.expand("DLQ and PG") == "DLQ and PG (PostgreSQL; dead-letter queue)"
    assert g.expand("K8S node down") == "K8S node down (Kubernetes)"  # upper case form
    assert g.expand("PG (PostgreSQL) down") == "PG (PostgreSQL) down"  # already expanded
    assert g("PG down") == "PG down (PostgreSQL)"  # usable as rewrite=


def test_glossary_same_expansion_appended_once() -> None:
    g = Glossary({"PG": "PostgreSQL", "PSQL": "PostgreSQL"})
    assert g.expand("PG or PSQL") == "PG or PSQL (PostgreSQL)"


def test_missing_glossary_is_empty(tmp_path: Path) -> None:
    assert len(load_glossary(None)) == 0
    assert len(load_glossary(tmp_path / "nope.yml")) == 0
    assert load_glossary(write(tmp_path, "")).expand("PG") == "PG"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("PG: PostgreSQL\nDLQ: [dead-letter\nSLO: x\n", 3),
        ("PG: PostgreSQL\n  bad indent: here\n", 2),
        ("- PG\n- DLQ\n", 1),
        ("PG: PostgreSQL\nDLQ:\n  nested: mapping\n", 3),
        ("PG: PostgreSQL\nDLQ:\n", 2),
        ("PG: PostgreSQL\nPG: Postgres again\n", 2),
    ],
    ids=["unclosed-flow", "bad-indent", "not-a-mapping", "nested", "empty", "duplicate"],
)
def test_malformed_glossary_reports_file_and_line(tmp_path: Path, text: str, line: int) -> None:
    path = write(tmp_path, text)
    with pytest.raises(GlossaryError) as err:
        load_glossary(path)
    assert isinstance(err.value, RetrievalError)
    assert f"{path}:{line}" in str(err.value)


def test_links_are_no_words_of_the_question() -> None:
    assert drop_links("disk full <https://grafana.example.com/d/x|graph> on node-7") == (
        "disk full on node-7"
    )
    assert drop_links("checkout 500s https://grafana.example.com/d/x?orgId=1") == "checkout 500s"
    only = "https://runbooks.example.com/KubePodCrashLooping"
    assert drop_links(only) == only  # nothing else to search

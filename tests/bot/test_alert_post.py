"""Reading alerts as Alertmanager, Grafana, PagerDuty and Opsgenie post them in Slack."""

from __future__ import annotations

import pytest

from bot.slack.alert_post import parse_alert_post
from tests.bot.alert_fixtures import alert_message

CHECKOUT_URL = (
    "https://github.com/acme/runbooks/blob/main/checkout-api/"
    "database-connection-failures.md#mitigation"
)


def test_alertmanager_default_receiver_with_the_usual_text_template() -> None:
    alert = parse_alert_post(alert_message("alertmanager-firing"))
    assert alert is not None
    assert (alert.source, alert.status) == ("alertmanager", "firing")
    assert alert.alertname == "CheckoutApiDbConnectionErrors"
    assert alert.label_map == {
        "alertname": "CheckoutApiDbConnectionErrors",
        "env": "prod",
        "namespace": "checkout",
        "service": "checkout-api",
        "severity": "critical",
    }
    assert alert.annotation_map["alert"] == "checkout-api cannot reach its database"
    assert alert.annotation_map["description"].startswith("More than 1 connection error")
    assert alert.runbook_url == CHECKOUT_URL
    assert alert.service == "checkout-api"
    assert alert.title.startswith("[FIRING:1] CheckoutApiDbConnectionErrors")
    query = alert.query()
    assert query.startswith("CheckoutApiDbConnectionErrors checkout-api")
    assert "http" not in query


def test_resolved_shares_the_fingerprint_of_firing() -> None:
    firing = parse_alert_post(alert_message("alertmanager-firing"))
    resolved = parse_alert_post(alert_message("alertmanager-resolved"))
    assert firing is not None and resolved is not None
    assert resolved.status == "resolved"
    assert resolved.fingerprint == firing.fingerprint
    # another service's alert of the same name is another alert
    other = alert_message("alertmanager-firing")
    other["attachments"][0]["text"] = other["attachments"][0]["text"].replace(
        "*service:* `checkout-api`", "*service:* `cart-api`"
    )
    moved = parse_alert_post(other)
    assert moved is not None and moved.fingerprint != firing.fingerprint


def test_alertmanager_title_only() -> None:
    alert = parse_alert_post(alert_message("alertmanager-default"))
    assert alert is not None
    assert alert.alertname == "OrderEventsConsumerLag"
    assert alert.group_values == ("order-fulfillment", "prod", "critical")
    assert alert.runbook_url is None
    assert alert.status == "firing"
    # the fingerprint follows the title's label values
    other = alert_message("alertmanager-default")
    other["attachments"][0]["title"] = other["attachments"][0]["title"].replace("prod", "staging")
    changed = parse_alert_post(other)
    assert changed is not None and changed.fingerprint != alert.fingerprint


def test_a_notification_of_several_alerts_keeps_the_labels_they_share() -> None:
    alert = parse_alert_post(alert_message("alertmanager-unindexed"))
    assert alert is not None
    assert alert.alertname == "InventoryCacheHitRatioLow"
    assert "pod" not in alert.label_map  # differs between the two alerts
    assert alert.label_map["service"] == "inventory-service"
    assert (
        alert.runbook_url
        == "https://github.com/acme/runbooks/blob/main/inventory/redis-eviction.md"
    )


def test_grafana_labels_and_annotations() -> None:
    alert = parse_alert_post(alert_message("grafana"))
    assert alert is not None
    assert (alert.source, alert.status, alert.alertname) == (
        "grafana",
        "firing",
        "ElasticsearchClusterRed",
    )
    assert alert.label_map["cluster"] == "search-prod"
    assert alert.service == "search-api"
    assert (
        alert.runbook_url
        == "https://github.com/acme/runbooks/blob/main/search/elasticsearch-cluster-red.md"
    )
    assert alert.annotation_map["summary"].startswith("Elasticsearch cluster search-prod is red")
    assert "source" not in alert.annotation_map  # Grafana's links are no annotations
    resolved = alert_message("grafana")
    att = resolved["attachments"][0]
    att["title"] = att["title"].replace("[FIRING:1]", "[RESOLVED]")
    att["text"] = att["text"].replace("**Firing**", "**Resolved**")
    again = parse_alert_post(resolved)
    assert again is not None and again.status == "resolved"
    assert again.fingerprint == alert.fingerprint


def test_pagerduty_triggered_and_resolved() -> None:
    alert = parse_alert_post(alert_message("pagerduty-triggered"))
    assert alert is not None
    assert (alert.source, alert.status) == ("pagerduty", "firing")
    assert alert.alertname == "NodeDiskAlmostFull"
    assert alert.service == "platform"
    assert alert.runbook_url is None  # "View in PagerDuty" is no runbook
    assert "node-7" in (alert.summary or "")
    resolved = parse_alert_post(alert_message("pagerduty-resolved"))
    assert resolved is not None and resolved.status == "resolved"
    assert resolved.fingerprint == alert.fingerprint


def test_pagerduty_resolved_with_an_alertmanager_incident_title() -> None:
    message = alert_message("pagerduty-resolved")
    message["blocks"][0]["text"]["text"] = (
        ":large_green_circle: *Resolved* <https://acme.pagerduty.com/incidents/Q2|"
        "#48214: [FIRING:1] NodeDiskAlmostFull platform>"
    )
    alert = parse_alert_post(message)
    assert alert is not None
    assert (alert.status, alert.alertname) == ("resolved", "NodeDiskAlmostFull")


def test_opsgenie_new_and_closed() -> None:
    alert = parse_alert_post(alert_message("opsgenie"))
    assert alert is not None
    assert (alert.source, alert.status) == ("opsgenie", "firing")
    assert alert.alertname == "PaymentProviderLatencyHigh"
    assert (
        alert.runbook_url
        == "https://github.com/acme/runbooks/blob/main/payments/provider-latency.md"
    )
    closed = parse_alert_post(alert_message("opsgenie-closed"))
    assert closed is not None and closed.status == "resolved"
    assert closed.fingerprint == alert.fingerprint


@pytest.mark.parametrize(
    "message",
    [
        {"type": "message", "user": "U1", "text": "[FIRING:1] KubePodCrashLooping (prod)"},
        {"type": "message", "bot_id": "B1", "text": "Deploy of checkout-api finished"},
        {"type": "message", "bot_id": "B1", "text": ""},
    ],
)
def test_what_is_no_alert(message: dict[str, object]) -> None:
    # typed by a person, or an integration's message that is no alert
    assert parse_alert_post(message) is None


def test_a_link_labelled_runbook_and_a_runbook_button() -> None:
    linked = {
        "bot_id": "B1",
        "text": "[FIRING:1] DiskFull node-7\nSee <https://wiki.acme.io/ops/disk-full|the runbook>",
    }
    alert = parse_alert_post(linked)
    assert alert is not None and alert.runbook_url == "https://wiki.acme.io/ops/disk-full"
    button = {
        "bot_id": "B1",
        "text": "[FIRING:1] DiskFull node-7",
        "blocks": [
            {
                "type": "actions",
                "elements": [
                    {
                        "type": "button",
                        "text": {"type": "plain_text", "text": "Open runbook"},
                        "url": "https://wiki.acme.io/ops/disk-full",
                    }
                ],
            }
        ],
    }
    alert = parse_alert_post(button)
    assert alert is not None and alert.runbook_url == "https://wiki.acme.io/ops/disk-full"

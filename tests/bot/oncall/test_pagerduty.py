"""Who is on call now, and paging them, against a local fake PagerDuty API."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.oncall import (
    PlainNames,
    ServicesMapError,
    Target,
    build_on_call,
    load_services_map,
)
from bot.settings import load_settings
from retrieval.search.embeddings import FastEmbedder
from tests.conftest import logging_to, runtime_over
from tests.fakes.pagerduty_api import Certificate, FakePagerDuty, self_signed

TOKEN = "pd-secret-token-0123456789"


@pytest.fixture(scope="session")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    return self_signed(tmp_path_factory.mktemp("pd-tls"))


@pytest.fixture()
def fake(tls: Certificate) -> Iterator[FakePagerDuty]:
    with FakePagerDuty(tls, token=TOKEN) as server:
        server.add_service("PCHK001", policy="PEP0001")
        server.put_on_call("PEP0001", "Ada Lovelace", email="ada@example.com")
        server.put_on_call("PEP0001", "Grace Hopper", level=2)
        server.put_on_call("PEPPAY1", "Alan Turing")
        yield server


def _services(tmp_path: Path) -> Path:
    path = tmp_path / "services.yml"
    path.write_text(
        "checkout-api:\n  pagerduty_service: PCHK001\n"
        "payments:\n  pagerduty_escalation_policy: PEPPAY1\n  channel: '#payments'\n",
        encoding="utf-8",
    )
    return path


def _on_call(fake: FakePagerDuty, tmp_path: Path, **extra: object):  # type: ignore[no-untyped-def]
    settings = load_settings(
        data_dir=tmp_path,
        pagerduty_token=TOKEN,
        pagerduty_base_url=fake.base_url,
        pagerduty_ca_file=fake.tls.cert,
        pagerduty_from="bot@example.com",
        services_map_path=_services(tmp_path),
        fallback_contact="@sre",
        **extra,
    )
    return build_on_call(settings, PlainNames())


def test_the_services_map_names_who_is_on_call_now_at_the_first_level(
    fake: FakePagerDuty, tmp_path: Path
) -> None:
    on_call = _on_call(fake, tmp_path)
    step = on_call.steps.for_target(Target(title="Checkout DB", service="checkout-api"))
    assert step.source == "pagerduty"
    assert [c.label for c in step.contacts] == ["Ada Lovelace"]  # level 2 is not on call first
    assert step.text() == "On call now for checkout-api (PagerDuty): Ada Lovelace"
    assert step.page_service == "PCHK001"
    assert step.note == "No owner on record."
    # the service's policy, then who is on call for it, with the token
    oncalls = fake.requests_to("/oncalls")
    assert oncalls[0].query["escalation_policy_ids[]"] == ["PEP0001"]
    assert oncalls[0].headers["authorization"] == f"Token token={TOKEN}"
    # asked again within the minute: from memory
    on_call.steps.for_target(Target(service="checkout-api"))
    assert len(fake.requests_to("/oncalls")) == 1


def test_front_matter_wins_over_the_map_and_a_policy_alone_names_but_never_pages(
    fake: FakePagerDuty, tmp_path: Path
) -> None:
    on_call = _on_call(fake, tmp_path)
    step = on_call.steps.for_target(
        Target(service="checkout-api", owner="@team", pagerduty_escalation_policy="PEPPAY1")
    )
    assert [c.label for c in step.contacts] == ["Alan Turing"]
    assert step.page_service is None and not step.pageable
    assert step.note is None  # it has an owner


def test_page_creates_an_incident_with_the_thread_link(fake: FakePagerDuty, tmp_path: Path) -> None:
    on_call = _on_call(fake, tmp_path)
    assert on_call.pager is not None
    incident = on_call.pager.page(
        "PCHK001",
        "Checkout DB: connection refused",
        "Paged from https://acme.slack.com/archives/C1/p1700000000000100",
        "runbook-bot:r-1",
    )
    assert incident.number == 1 and incident.url and incident.id == "PINC0001"
    sent = fake.requests_to("/incidents", "POST")[0]
    assert sent.headers["from"] == "bot@example.com"
    body = sent.body["incident"]
    assert body["service"] == {"id": "PCHK001", "type": "service_reference"}
    assert body["incident_key"] == "runbook-bot:r-1"
    assert "https://acme.slack.com/archives/C1/p1700000000000100" in body["body"]["details"]


def test_pagerduty_down_falls_back_to_the_owner_then_the_fallback(
    fake: FakePagerDuty, tmp_path: Path
) -> None:
    on_call = _on_call(fake, tmp_path)
    fake.fail_next("/services", 500, times=5)
    step = on_call.steps.for_target(Target(service="checkout-api", owner="@checkout-oncall"))
    assert step.source == "owner" and step.text() == "Owner: @checkout-oncall"
    fake.fail_next("/oncalls", 503, times=5)
    step = on_call.steps.for_target(Target(service="payments"))
    assert step.source == "fallback" and step.text() == "Ask: @sre"
    assert step.note == "No owner on record."


def test_the_token_never_appears_in_logs_even_at_debug(fake: FakePagerDuty, tmp_path: Path) -> None:
    stream = io.StringIO()
    with logging_to(stream, level="DEBUG", fmt="text"):
        logging.getLogger().setLevel(logging.DEBUG)
        on_call = _on_call(fake, tmp_path)
        on_call.steps.for_target(Target(service="checkout-api"))
        fake.fail_next("/oncalls", 401, times=3)
        on_call.steps.for_target(Target(service="payments"))
        assert on_call.pager is not None
        on_call.pager.page("PCHK001", "t", "d", "k")
        wrong = build_on_call(
            load_settings(
                data_dir=tmp_path,
                pagerduty_token="wrong-" + TOKEN,
                pagerduty_base_url=fake.base_url,
                pagerduty_ca_file=fake.tls.cert,
            )
        )
        wrong.steps.for_target(Target(service="x", pagerduty_service="PCHK001"))
    logged = stream.getvalue()
    assert "lookup failed" in logged  # the failures were logged...
    assert TOKEN not in logged  # ...without the token
    assert "0123456789" not in logged


def test_without_pagerduty_the_order_is_owner_then_fallback(tmp_path: Path) -> None:
    on_call = build_on_call(load_settings(data_dir=tmp_path, fallback_contact="#help-sre"))
    assert on_call.pager is None
    assert on_call.steps.names == ("owner", "service-channel", "fallback")
    assert on_call.steps.for_target(Target(owner="@a, @b")).text() == "Owner: @a"
    assert on_call.steps.for_target(Target(service="x")).text() == "Ask: #help-sre"
    nobody = build_on_call(load_settings(data_dir=tmp_path)).steps.for_target(Target())
    assert nobody.text() == "Ask: the incident commander"


def test_a_malformed_services_map_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "services.yml"
    path.write_text("checkout-api:\n  pagerduty_servce: P1\n", encoding="utf-8")
    with pytest.raises(ServicesMapError, match=r"checkout-api.*pagerduty_servce"):
        load_services_map(path)
    with pytest.raises(ServicesMapError, match="cannot read"):
        load_services_map(tmp_path / "missing.yml")


def test_front_matter_names_the_escalation_policy_of_an_answer(
    fake: FakePagerDuty, tmp_path: Path, embedder: FastEmbedder
) -> None:
    from bot.logs import new_request_id
    from retrieval.permissions import Scope

    runbook = (
        "---\nservice: ledger-api\npagerduty_escalation_policy: PEPPAY1\n---\n"
        "# Ledger export stuck\n\n## Fix\n\nRestart the export worker:\n\n"
        "```\nkubectl -n ledger rollout restart deploy/ledger-export\n```\n"
    )
    with runtime_over({"ledger/export.md": runbook}, tmp_path, embedder) as rt:
        on_call = build_on_call(
            load_settings(
                data_dir=tmp_path,
                pagerduty_token=TOKEN,
                pagerduty_base_url=fake.base_url,
                pagerduty_ca_file=fake.tls.cert,
            )
        )
        service = rt.service(steps=on_call.steps)
        delivery = service.ask(
            "ledger export stuck", new_request_id(), asker=Scope(frozenset({"everyone"}))
        )
        assert delivery.public.citations
        assert delivery.step is not None
        assert delivery.step.text() == "On call now for ledger-api (PagerDuty): Alan Turing"
        assert delivery.step.note == "No owner on record."
        assert not delivery.step.pageable  # a policy alone: who, but nothing to page

"""What an answer keeps at rest: no secret of its question, wherever the answer repeats it."""

from __future__ import annotations

from urllib.parse import quote_plus

import redis

from core.models import Answer, AnswerWarning
from core.storable import storable_answer
from retrieval.answer.citations import search_link
from state.answer_cache import CacheKey, RedisAnswerCache
from state.client import redis_client
from tests.conftest import RedisServer
from tests.state.test_answer_cache import always_live, citation

TEMPLATE = "https://github.com/search?type=code&q={query}"
PASSWORD = "Sup3r!Secret"
TOKEN = "xoxb-" + "1111111111-2222222222-EXAMPLEexampleEXAMPLE"
QUESTION = f"db login fails with password={PASSWORD} and {TOKEN}"


def echoing_answer(question: str = QUESTION) -> Answer:
    """An answer that repeats its question: a raw search link, generated text, a warning."""
    return Answer(
        state="answer",
        text=f"You asked about {TOKEN}; rotate the password {PASSWORD} first.",
        question=question,
        citations=(citation(),),
        warnings=(AnswerWarning(kind="stale", message=f"check {PASSWORD}"),),
        search_link=search_link(TEMPLATE, question),
    )


def test_storable_answer_keeps_no_secret_of_the_question() -> None:
    raw = echoing_answer()
    assert quote_plus(PASSWORD) in (raw.search_link or "")
    safe = storable_answer(raw)
    dumped = safe.model_dump_json()
    for secret in (PASSWORD, TOKEN, quote_plus(PASSWORD), quote_plus(TOKEN)):
        assert secret not in dumped
    assert safe.question == "db login fails with password=[REDACTED:secret_assignment] and " + (
        "[REDACTED:slack_token]"
    )
    assert "rotate the password [REDACTED:secret_assignment] first" in safe.text
    assert safe.search_link is not None and safe.search_link.startswith(TEMPLATE[:-7])
    assert safe.citations == raw.citations  # everything else is untouched


def test_storable_answer_without_secrets_is_unchanged() -> None:
    plain = echoing_answer("how do I fail over the db?").model_copy(
        update={"text": "Run the failover script."}
    )
    assert storable_answer(plain) == plain


def test_a_question_passed_separately_is_scrubbed_too() -> None:
    blank = echoing_answer().model_copy(update={"question": ""})
    assert TOKEN not in storable_answer(blank, QUESTION).model_dump_json()


def test_the_cache_stores_no_secret_even_when_the_answer_repeats_it(
    redis_server: RedisServer,
) -> None:
    client: redis.Redis = redis_client(redis_server.url)
    cache = RedisAnswerCache(client, ttl_seconds=60, namespace="t")
    key = CacheKey(QUESTION, "scope", 1, "extractive")
    cache.put(key, echoing_answer())
    (stored,) = [client.get(k) for k in client.scan_iter("t:answer:*")]
    assert stored is not None
    for secret in (PASSWORD, TOKEN, quote_plus(PASSWORD)):
        assert secret.encode() not in stored
    hit = cache.get(key, always_live)
    assert hit is not None and hit.question == QUESTION  # the asker still sees their question

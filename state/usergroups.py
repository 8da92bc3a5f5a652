"""The members of Slack user groups, cached for permission scopes.

Under ``{ns}:ug:{handle}`` (a JSON list of user ids) for ``ttl_seconds``, shared by all
replicas. While Redis answers it alone is read, so a user group forgotten on one replica
(``subteam_members_changed``) is forgotten on all; while Redis is down (or without a
client) this process's own copy is read instead.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

import redis

from core.health import DEFAULT_RETRY_AFTER_SECONDS
from state.fail_soft import UNAVAILABLE, FailSoftRedis
from state.keys import DEFAULT_NAMESPACE
from state.local_copy import LocalCopy

log = logging.getLogger("runbook_bot.permissions")

DEFAULT_TTL_SECONDS = 600
MAX_LOCAL_USERGROUPS = 10_000


class UsergroupCache:
    def __init__(
        self,
        client: redis.Redis | None,
        ttl_seconds: int = DEFAULT_TTL_SECONDS,
        namespace: str = DEFAULT_NAMESPACE,
        *,
        retry_after_seconds: float = DEFAULT_RETRY_AFTER_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        self._ttl = ttl_seconds
        self._redis = FailSoftRedis(
            client,
            logger=log,
            name="usergroup cache",
            fallback="caching user groups in this process",
            namespace=namespace,
            retry_after_seconds=retry_after_seconds,
            clock=clock,
        )
        self._local: LocalCopy[frozenset[str]] = LocalCopy(MAX_LOCAL_USERGROUPS, clock)

    def key(self, handle: str) -> str:
        return self._redis.key("ug", handle)

    def get_many(self, handles: Sequence[str]) -> dict[str, frozenset[str]]:
        """The cached members of each handle that has them."""
        if not handles:
            return {}
        values = self._redis.run(lambda r: r.mget([self.key(h) for h in handles]), UNAVAILABLE)
        if values is UNAVAILABLE:
            return {h: m for h in handles if (m := self._local.get(h)) is not None}
        return {
            handle: members
            for handle, raw in zip(handles, values, strict=True)
            if (members := _decode_members(raw)) is not None
        }

    def put_many(self, memberships: Mapping[str, frozenset[str]]) -> None:
        for handle, members in memberships.items():
            self._local.put(handle, members, self._ttl)

        def store(r: redis.Redis) -> None:
            with r.pipeline(transaction=False) as pipe:
                for handle, members in memberships.items():
                    pipe.set(self.key(handle), json.dumps(sorted(members)), ex=self._ttl)
                pipe.execute()

        if memberships:
            self._redis.run(store, None)

    def forget(self, handles: Iterable[str]) -> None:
        handles = list(handles)
        for handle in handles:
            self._local.pop(handle)
        if handles:
            self._redis.run(lambda r: r.delete(*(self.key(h) for h in handles)), None, always=True)


def _decode_members(raw: bytes | str | None) -> frozenset[str] | None:
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return frozenset(value)

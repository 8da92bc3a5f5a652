"""The Redis client of a deployment, and what a Redis call raises when Redis is in trouble."""

from __future__ import annotations

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

#: What a Redis call raises when Redis is down, slow or unhappy.
REDIS_ERRORS: tuple[type[Exception], ...] = (redis.RedisError, ConnectionError, TimeoutError)

DEFAULT_TIMEOUT_SECONDS = 0.5


def redis_client(url: str, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> redis.Redis:
    """A client that gives up quickly, so a dead Redis costs milliseconds, not seconds.

    redis-py's default retries a failed command ten times with backoff; for state the bot
    can do without that is the wrong trade, so this client retries once, immediately.
    """
    return redis.Redis.from_url(
        url,
        socket_connect_timeout=timeout,
        socket_timeout=timeout,
        health_check_interval=30,
        retry=Retry(NoBackoff(), 1),
    )

"""Where the real-service suites find PostgreSQL, MariaDB and RabbitMQ.

A variable that is set names the server (``.ci/run`` sets all three); one set
to the empty string turns its suites off. When a variable is unset, the
service's standard local port is tried with a short TCP connect, and the
machine's default URL is used if something answers there, so a plain
``make test`` on a machine that runs the servers runs these suites too.

The integration suites wipe the database they are given: point the
variables at disposable test databases, or set them empty.

Each skip says why (the variable and the port); ``tests/conftest.py`` repeats
the reasons, and the servers found by probing, in pytest's closing summary.
"""

from __future__ import annotations

import functools
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass

import pytest

PROBE_HOST = "127.0.0.1"
PROBE_TIMEOUT = 0.5
"""Seconds a connect may take; a local port answers or refuses at once."""


@dataclass(frozen=True)
class RealService:
    variable: str
    port: int
    local_url: str
    """The URL used when the variable is unset and the port answers."""


POSTGRES = RealService("HOTPLATE_TEST_POSTGRES_URL", 5432,
                       "postgresql+psycopg://postgres@127.0.0.1:5432/test")
MYSQL = RealService("HOTPLATE_TEST_MYSQL_URL", 3306, "mysql+pymysql://root@127.0.0.1:3306/test")
RABBIT = RealService("HOTPLATE_TEST_RABBIT_URL", 5672, "rabbit://guest:guest@127.0.0.1:5672/")

FOUND: dict[str, str] = {}
"""variable -> how its URL was chosen, for the summary (probed ones only)."""
SKIPPED: dict[str, str] = {}
"""variable -> the reason its suites skipped."""


@functools.cache
def answers(port: int, host: str = PROBE_HOST) -> bool:
    """Whether something accepts a TCP connection on ``host:port`` (asked once a session)."""
    try:
        with socket.create_connection((host, port), timeout=PROBE_TIMEOUT):
            return True
    except OSError:
        return False


def choose(service: RealService, environ: Mapping[str, str] | None = None,
           ) -> tuple[str | None, str]:
    """``(url, how)`` for ``service``, or ``(None, why not)``."""
    env = os.environ if environ is None else environ
    where = f"{PROBE_HOST}:{service.port}"
    value = env.get(service.variable)
    if value:
        return value, f"{service.variable} is set"
    if value is not None:
        return None, f"{service.variable} is set empty, which turns the probe of {where} off"
    if answers(service.port):
        return service.local_url, (f"{service.variable} is not set; {where} answers: "
                                   f"using {service.local_url}")
    return None, f"{service.variable} is not set and nothing answers on {where}"


def url_or_skip(service: RealService) -> str:
    """The service's URL, or skip the test saying why (the variable and the port)."""
    url, how = choose(service)
    if url is None:
        SKIPPED[service.variable] = how
        pytest.skip(how)
    if service.variable not in os.environ:
        FOUND[service.variable] = how
    return url


def summary_lines() -> list[str]:
    """The closing summary's lines: servers found by probing, suites skipped and why."""
    lines = [f"found: {how}" for how in FOUND.values()]
    lines += [f"skipped: {why}" for why in SKIPPED.values()]
    return lines

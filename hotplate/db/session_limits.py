"""How long a database session may hold others up when its peer goes silent.

A network partition leaves a connection open with nothing crossing it: the
engine on one side waits for an answer, the server on the other keeps the
session, its transaction and its row locks. Left alone, the kernel gives up
on such a connection only after about fifteen minutes of retransmissions (or
never, while the socket is idle), and every other engine's write to one of
those rows waits that long. ``SessionTimeouts`` bounds each wait, on both
ends, and ``connect_args`` / ``session_settings`` turn it into what each
driver and server understands:

- **the server ends a silent session's transaction**: PostgreSQL's
  ``idle_in_transaction_session_timeout``, MariaDB's
  ``idle_transaction_timeout``. Our transactions never wait on anything but
  the database, so a session idle inside one is a stopped or cut-off engine's;
  ended, its locks go and its transaction is rolled back (the store runs a
  transaction of ours that meets this again, on a new connection: tx.py).
- **the server finds a dead peer**: TCP keepalives and ``TCP_USER_TIMEOUT``
  on the server's socket (PostgreSQL's ``tcp_keepalives_*`` and
  ``tcp_user_timeout``, set per session), so a link that drops packets
  frees the session even between transactions;
- **the client finds a dead server** likewise (libpq's ``keepalives*`` and
  ``tcp_user_timeout``; the socket options on PyMySQL's socket), and gives up
  a connect after ``connect`` seconds;
- **a waiting writer gives up**: ``lock_timeout`` / ``innodb_lock_wait_timeout``;
  the store runs the transaction again (tx.py), by which time the silent
  holder has been ended.
- **the engine that takes a dead engine's work over ends its sessions**
  first (``engine_session_name`` names each engine's sessions). PostgreSQL
  arms its idle-in-transaction timer only once a command is complete (a
  Sync), and a pipelined write (fastpath.py) sends statements before its
  Sync: an engine cut off between the two leaves a session that the server
  counts as busy reading the client's next message, its row locks held and
  no timer running. Keepalives end it across a real partition, but not
  behind a proxy whose own end stays up (HAProxy, PgBouncer), nor for a
  stopped process whose kernel still answers.

The values come from the engine's lease (engine/lease.py, ``for_lease``):
every one of these waits ends well inside it, so by the time another engine
may take a silent engine's work over, the database holds nothing of the
silent engine's that could stop it.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from typing import Any

DEFAULT_LEASE = 118.0
"""The lease of an engine on Heat's timers (periodic_interval 60, life check 2)."""
MOST_IDLE = 10.0
"""Longest a session may sit idle inside a transaction, whatever the lease."""


@dataclass(frozen=True, slots=True)
class SessionTimeouts:
    """Seconds each wait may last; see the module docstring. Defaults: Heat's timers."""

    idle_in_transaction: float = MOST_IDLE
    """The server ends a session that long idle inside a transaction."""
    lock_wait: float = 2 * MOST_IDLE
    """A statement waits that long for a row lock, then its transaction runs again."""
    keepalive_idle: int = 10
    """Seconds of silence before the first keepalive probe."""
    keepalive_interval: int = 3
    keepalive_count: int = 3
    """Unanswered probes after which the peer is taken for gone."""
    user_timeout: float = 2 * MOST_IDLE
    """TCP_USER_TIMEOUT: data unacknowledged that long ends the connection."""
    connect: int = 10
    """Seconds a new connection may take."""

    @classmethod
    def for_lease(cls, lease: float) -> SessionTimeouts:
        """Timeouts for engines whose lease lasts ``lease`` seconds.

        A silent session is ended within a quarter of the lease (at most
        ``MOST_IDLE``, at least one second), a dead peer is found within about
        twice that by keepalives, and a writer waits on a lock twice as long
        as the server takes to end its silent holder: all inside the lease.
        """
        idle = min(MOST_IDLE, max(1.0, lease / 4))
        whole = max(1, round(idle))
        return cls(idle_in_transaction=idle, lock_wait=2 * idle, keepalive_idle=whole,
                   keepalive_interval=max(1, round(idle / 3)), keepalive_count=3,
                   user_timeout=2 * idle, connect=max(2, whole))

    @property
    def dead_peer_found(self) -> float:
        """Seconds within which either end finds the other gone (keepalives on an idle
        link, TCP_USER_TIMEOUT on a busy one)."""
        probes = self.keepalive_idle + self.keepalive_interval * self.keepalive_count
        return max(float(probes), self.user_timeout)


ENGINE_SESSION_PREFIX = "hotplate-engine:"


def engine_session_name(engine_id: str) -> str:
    """The ``application_name`` of an engine's database sessions: what lets the engine
    that takes its work over find them (PostgreSQL keeps 63 characters; this is 52)."""
    return f"{ENGINE_SESSION_PREFIX}{engine_id}"


def _millis(seconds: float) -> int:
    return max(1, round(seconds * 1000))


def postgres_connect_args(timeouts: SessionTimeouts, given_options: str | None) -> dict[str, Any]:
    """libpq's connection parameters: the client's keepalives and user timeout, and the
    session's server-side settings in ``options`` (sent with the startup packet, so they
    cost no round trip), after any ``options`` the URL gave."""
    settings = {
        "idle_in_transaction_session_timeout": _millis(timeouts.idle_in_transaction),
        "lock_timeout": _millis(timeouts.lock_wait),
        "tcp_keepalives_idle": timeouts.keepalive_idle,
        "tcp_keepalives_interval": timeouts.keepalive_interval,
        "tcp_keepalives_count": timeouts.keepalive_count,
        "tcp_user_timeout": _millis(timeouts.user_timeout),
    }
    options = " ".join(f"-c {name}={value}" for name, value in settings.items())
    return {
        "keepalives": 1,
        "keepalives_idle": timeouts.keepalive_idle,
        "keepalives_interval": timeouts.keepalive_interval,
        "keepalives_count": timeouts.keepalive_count,
        "tcp_user_timeout": _millis(timeouts.user_timeout),
        "connect_timeout": timeouts.connect,
        "options": f"{given_options} {options}" if given_options else options,
    }


def mysql_session_statements(timeouts: SessionTimeouts) -> list[str]:
    """What a new MariaDB session runs: the server's own limits on it. Whole seconds
    (MariaDB's unit); ``idle_transaction_timeout`` is MariaDB's (10.3), a MySQL server
    refuses it and its sessions go without."""
    return [
        f"SET SESSION innodb_lock_wait_timeout = {max(1, round(timeouts.lock_wait))}",
        f"SET SESSION idle_transaction_timeout = "
        f"{max(1, round(timeouts.idle_in_transaction))}",
    ]


def set_socket_timeouts(sock: socket.socket, timeouts: SessionTimeouts) -> None:
    """Keepalives and TCP_USER_TIMEOUT on a client socket (PyMySQL's, which sets none
    but SO_KEEPALIVE); options a platform lacks are skipped."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in (("TCP_KEEPIDLE", timeouts.keepalive_idle),
                        ("TCP_KEEPINTVL", timeouts.keepalive_interval),
                        ("TCP_KEEPCNT", timeouts.keepalive_count),
                        ("TCP_USER_TIMEOUT", _millis(timeouts.user_timeout))):
        option = getattr(socket, name, None)
        if option is not None:
            sock.setsockopt(socket.IPPROTO_TCP, option, value)

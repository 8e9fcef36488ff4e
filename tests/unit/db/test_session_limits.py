"""Session limits follow the engine's lease: every wait a silent peer can cause ends
well inside it."""

from __future__ import annotations

import pytest

from hotplate.db.session_limits import (
    SessionTimeouts,
    mysql_session_statements,
    postgres_connect_args,
)
from hotplate.engine.lease import lease_seconds


@pytest.mark.parametrize(("interval", "life_check"), [(60, 2), (10, 2), (2, 1), (1, 1)])
def test_every_wait_ends_inside_the_lease(interval: int, life_check: int) -> None:
    lease = lease_seconds(interval, life_check)
    limits = SessionTimeouts.for_lease(lease)
    assert limits.idle_in_transaction <= lease
    assert limits.lock_wait > limits.idle_in_transaction  # the silent holder goes first
    assert limits.dead_peer_found <= max(lease, 2 * limits.idle_in_transaction + 3)


def test_heat_timers_give_the_defaults() -> None:
    assert lease_seconds(60, 2) == 118
    assert SessionTimeouts.for_lease(118) == SessionTimeouts()


def test_postgres_sessions_get_their_limits_with_the_startup_packet() -> None:
    args = postgres_connect_args(SessionTimeouts(), "-c search_path=x")
    assert args["keepalives"] == 1 and args["tcp_user_timeout"] == 20000
    assert args["options"].startswith("-c search_path=x -c idle_in_transaction_session_timeout"
                                      "=10000 -c lock_timeout=20000")
    assert "-c tcp_user_timeout=20000" in args["options"]


def test_mariadb_sessions_set_whole_seconds() -> None:
    statements = mysql_session_statements(SessionTimeouts.for_lease(1.5))
    assert statements == ["SET SESSION innodb_lock_wait_timeout = 2",
                          "SET SESSION idle_transaction_timeout = 1"]

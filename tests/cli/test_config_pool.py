"""The database pool: every RPC thread of the topics that use the database, and the
engine's own timers, can hold a connection at once (SPEC.md § 1, as Heat raises
max_overflow to executor_thread_pool_size); [database] max_pool_size and
max_overflow may give more, never fewer."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest
from sqlalchemy.exc import TimeoutError as PoolTimeout

from hotplate.app import BACKGROUND_CONNECTIONS, DB_TOPICS, connections_needed
from hotplate.config import load
from hotplate.db.engine import PoolLimits, make_engine


def test_an_engine_needs_a_connection_per_database_thread_and_timer() -> None:
    assert DB_TOPICS == 2
    assert connections_needed(16) == 16 * 2 + BACKGROUND_CONNECTIONS


@pytest.mark.parametrize(("limits", "needed", "sized"), [
    (PoolLimits(), 36, (36, 0)),  # default: all of them kept open once used
    (PoolLimits(max_pool_size=5), 36, (5, 31)),  # Heat's rule: overflow raised to fit
    (PoolLimits(max_pool_size=5, max_overflow=50), 36, (5, 50)),  # more is kept
    (PoolLimits(max_pool_size=40), 36, (40, 0)),
    (PoolLimits(max_overflow=10), 8, (8, 10)),
])
def test_the_pool_fits_every_user(limits: PoolLimits, needed: int,
                                  sized: tuple[int, int]) -> None:
    assert limits.sized(needed) == sized
    assert sum(sized) >= needed


def test_the_file_sets_the_limits(tmp_path: Path) -> None:
    path = tmp_path / "h.conf"
    path.write_text("[database]\nmax_pool_size = 5\nmax_overflow = 2\npool_timeout = 9\n"
                    "[DEFAULT]\nexecutor_thread_pool_size = 4\n")
    conf = load([str(path)], environ={}, search=())
    assert conf.database.pool == PoolLimits(max_pool_size=5, max_overflow=2, timeout=9.0)
    assert conf.database.pool.sized(connections_needed(conf.executor_thread_pool_size)) \
        == (5, 7)


def test_a_pool_hands_out_exactly_its_size_plus_overflow(tmp_path: Path) -> None:
    pool_size, max_overflow = PoolLimits(max_pool_size=2, max_overflow=1).sized(3)
    engine = make_engine(f"sqlite:///{tmp_path}/p.sqlite", pool_size=pool_size,
                         max_overflow=max_overflow, pool_timeout=0.2)
    try:
        with ExitStack() as held:
            for _ in range(3 + 1):  # a SQLite file's pool has a seat more: its kept writer's
                held.enter_context(engine.connect())
            with pytest.raises(PoolTimeout):
                engine.connect()
    finally:
        engine.dispose()

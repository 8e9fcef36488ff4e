"""What the chaos benchmark reads and shares: the engines' database, read directly (the
record, alive whatever engine dies), and the environment its engine commands run in."""

from __future__ import annotations

import argparse
import os
import time
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, create_engine, pool, text

from benchmarks.engine_cluster import utc_now

CTXT = {"project_id": "bench", "username": "bench", "is_admin": True}
THREADS = 4
"""Threads per engine process: one process of 4 threads, so ratios measure engines."""


class Record:
    """Queries on the run's database: stack states, locks, attempts, takeover events."""

    def __init__(self, db_url: str) -> None:
        self.db: Engine = create_engine(db_url, poolclass=pool.NullPool)

    def _scalar(self, sql: str, **params: Any) -> Any:
        with self.db.connect() as conn:
            return conn.execute(text(sql), params).scalar()

    def stack_states(self, prefix: str) -> dict[str, str]:
        """Top-level stack name -> ``<ACTION>_<STATUS>``."""
        with self.db.connect() as conn:
            rows = conn.execute(text(
                "SELECT name, action, status FROM stack WHERE owner_id IS NULL "
                "AND deleted_at IS NULL AND name LIKE :p"), {"p": f"{prefix}%"}).all()
        return {name: f"{action}_{status}" for name, action, status in rows}

    def locks_held(self, engine_id: str) -> int:
        return int(self._scalar("SELECT count(*) FROM resource WHERE engine_id = :e",
                                e=engine_id))

    def lock_holders(self) -> dict[str, int]:
        with self.db.connect() as conn:
            rows = conn.execute(text("SELECT engine_id, count(*) FROM resource WHERE "
                                     "engine_id IS NOT NULL GROUP BY engine_id")).all()
        return {str(e): int(n) for e, n in rows}

    def duplicate_creates(self) -> list[str]:
        """Resources created more than once: more than one distinct token."""
        with self.db.connect() as conn:
            rows = conn.execute(text(
                "SELECT resource_uuid FROM resource_attempt WHERE action = 'CREATE' "
                "GROUP BY resource_uuid HAVING count(DISTINCT token) > 1")).all()
        return [str(r[0]) for r in rows]

    def repeated_first_creates(self) -> int:
        """Resources whose handle_create ran more than once *not* told it was a retry:
        two engines (or two messages) each thinking they made it first. Tokens are
        the same for every try within a traversal, so this is what a create-only
        run can get wrong even when ``duplicate_creates`` is 0."""
        return int(self._scalar(
            "SELECT count(*) FROM (SELECT resource_uuid FROM resource_attempt WHERE "
            "action = 'CREATE' AND NOT retry GROUP BY resource_uuid "
            "HAVING count(*) > 1) AS twice"))

    def retried_creates(self) -> int:
        return int(self._scalar("SELECT count(*) FROM resource_attempt WHERE "
                                "action = 'CREATE' AND retry"))

    def first_takeover(self, engine_id: str) -> datetime | None:
        """When a live engine first recorded taking over ``engine_id``'s work."""
        found: datetime | None = self._scalar(
            "SELECT min(created_at) FROM event WHERE resource_status_reason LIKE :p",
            p=f"%engine {engine_id} stopped answering%")
        if found is not None and found.tzinfo is None:
            found = found.replace(tzinfo=utc_now().tzinfo)
        return found

    def creates_per_engine(self) -> dict[str, int]:
        """Engine id -> handle_create calls it made: how evenly the work spread."""
        with self.db.connect() as conn:
            rows = conn.execute(text("SELECT engine_id, count(*) FROM resource_attempt "
                                     "WHERE action = 'CREATE' GROUP BY engine_id")).all()
        return {str(e): int(n) for e, n in rows}

    def transactions(self, database: str) -> int:
        """Transactions committed in ``database`` so far (PostgreSQL's statistics)."""
        return int(self._scalar("SELECT xact_commit FROM pg_stat_database "
                                "WHERE datname = :d", d=database) or 0)

    def close(self) -> None:
        self.db.dispose()



def settle(record: Record, prefix: str, deadline: float) -> dict[str, str]:
    """Wait until no stack is IN_PROGRESS or the deadline passes; the final states."""
    while True:
        states = record.stack_states(prefix)
        if not any(s.endswith("IN_PROGRESS") for s in states.values()):
            return states
        if time.monotonic() >= deadline:
            return states
        time.sleep(0.5)


def engine_env(db_url: str, broker_url: str, args: argparse.Namespace) -> dict[str, str]:
    return {**os.environ, "HOTPLATE_DB_URL": db_url, "HOTPLATE_TRANSPORT_URL": broker_url,
            "HOTPLATE_MAX_RESOURCES_PER_STACK": "-1",
            "HOTPLATE_PERIODIC_INTERVAL": str(args.periodic_interval),
            "HOTPLATE_ENGINE_LIFE_CHECK_TIMEOUT": str(args.life_check_timeout),
            "HOTPLATE_STALLED_TRAVERSAL_TIMEOUT": str(args.stalled_timeout),
            "HOTPLATE_GRACEFUL_SHUTDOWN_TIMEOUT": "5"}



"""A connection the server ends under the store is replaced and the transaction run
again, on every path (SQLAlchemy's and the driver's own): an operator's
``pg_terminate_backend`` or ``KILL CONNECTION``, a server restart or an idle
transaction's timeout must delay an engine, never fail a resource.

Each test ends only the connection of its own store, found by asking it
for its session id, so nothing else on the server is touched.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, pool, text

from hotplate.db.engine import make_engine
from hotplate.db.store import SqlStore
from hotplate.model.ids import ResourceId, TraversalId
from tests.integration.helpers import FakeClock, make_resource, make_stack

SESSION_ID = {"postgresql": "SELECT pg_backend_pid()", "mysql": "SELECT CONNECTION_ID()"}
END_SESSION = {"postgresql": "SELECT pg_terminate_backend({id})", "mysql": "KILL CONNECTION {id}"}


@pytest.fixture
def lone(db_url: str, store: SqlStore) -> Iterator[tuple[SqlStore, Callable[[], None]]]:
    """A store on a one-connection pool, and a way to end that connection server-side."""
    if db_url.startswith("sqlite"):
        pytest.skip("SQLite has no server to end a connection")
    engine = make_engine(db_url, pool_size=1)
    admin = create_engine(db_url, poolclass=pool.NullPool, isolation_level="AUTOCOMMIT")

    def end_its_connection() -> None:
        session = _session_id(engine)
        with admin.connect() as conn:
            conn.execute(text(END_SESSION[engine.dialect.name].format(id=int(session))))

    try:
        yield SqlStore(engine, FakeClock()), end_its_connection
    finally:
        engine.dispose()
        admin.dispose()


def _session_id(engine: Engine) -> Any:
    with engine.connect() as conn:  # the pool's one connection, the store's
        return conn.execute(text(SESSION_ID[engine.dialect.name])).scalar_one()


def test_reads_and_writes_survive_their_connection_ending(
        lone: tuple[SqlStore, Callable[[], None]]) -> None:
    store, end_its_connection = lone
    clock = FakeClock()
    stack = make_stack(store, clock)
    resource = make_resource(store, stack)
    store.stats.reset()

    end_its_connection()
    assert store.get_stack(stack.id) is not None  # a read through SQLAlchemy
    end_its_connection()
    assert store.get_stack(make_stack(store, clock).id) is not None  # a write, likewise
    end_its_connection()
    row, _ = store.load_node(ResourceId(resource))  # a read on the driver's connection
    assert row is not None and row.name == "server"
    end_its_connection()
    store.sync(TraversalId("t"), str(resource), True, "sender", {})  # a driver write
    assert store.stats.cas_retries == 4

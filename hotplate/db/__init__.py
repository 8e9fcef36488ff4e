"""Persistence: tables, migrations, engines and the SQL Store.

``make_engine(url)`` builds an engine, ``migrate.upgrade(url)`` brings the
schema to the latest revision, ``SqlStore(engine, clock)`` implements
``hotplate.ports.Store``.
"""

from hotplate.db.engine import StatementStats, make_engine
from hotplate.db.store import SqlStore

__all__ = ["SqlStore", "StatementStats", "make_engine"]

"""An embedded engine for the client-layer suites: SQLite in a temporary directory, the
cloud reached with the test caller's own token (as the API hands it on)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hotplate.app import Engine, open_store, start_engine
from hotplate.cloud import CloudSettings
from hotplate.engine.clock import SystemClock
from hotplate.engine.options import EngineOptions
from hotplate.rpc.inprocess import InProcessTransport


@contextmanager
def engine_on(tmp: Path, region: str, registry: Any = None,
              options: EngineOptions | None = None) -> Iterator[Engine]:
    clock = SystemClock()
    transport = InProcessTransport(workers_per_server=2)
    engine = start_engine(open_store(f"sqlite:///{tmp / 'hotplate.sqlite'}", clock),
                          transport, clock=clock, work_slots=1, registry=registry,
                          options=options, cloud=CloudSettings(region_name_for_services=region))
    try:
        yield engine
    finally:
        engine.stop()
        transport.stop()

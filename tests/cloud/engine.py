"""An embedded engine for the client-layer suites: SQLite in a temporary directory, the
cloud reached with the test caller's own token (as the API hands it on)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hotplate.app import Engine, open_store, start_engine
from hotplate.cloud import CloudSettings, TrusteeSettings
from hotplate.engine.clock import SystemClock
from hotplate.engine.options import EngineOptions
from hotplate.rpc.inprocess import InProcessTransport
from tests.cloud.serving import SERVICE_PASSWORD, SERVICE_USER


@contextmanager
def engine_on(tmp: Path, region: str, registry: Any = None,
              options: EngineOptions | None = None,
              trustee_of: str | None = None) -> Iterator[Engine]:
    """``trustee_of``: Keystone's URL, for an engine whose stacks hold a trust to the
    cloud's ``heat`` user (as a served hotplate's ``[trustee]``), so that their
    resources reach the cloud after the request; without it, only requests do."""
    clock = SystemClock()
    settings = CloudSettings(region_name_for_services=region)
    if trustee_of is not None:
        root = trustee_of.removesuffix("/v3")
        settings = CloudSettings(
            region_name_for_services=region, keystone_url=root,
            trustee=TrusteeSettings(auth_url=root, username=SERVICE_USER,
                                    password=SERVICE_PASSWORD, user_domain_name="Default"))
    transport = InProcessTransport(workers_per_server=2)
    engine = start_engine(open_store(f"sqlite:///{tmp / 'hotplate.sqlite'}", clock),
                          transport, clock=clock, work_slots=1, registry=registry,
                          options=options, cloud=settings)
    try:
        yield engine
    finally:
        engine.stop()
        transport.stop()


def wait_while_in_progress(engine: Engine, ctxt: Any, identity: Any, wait: float,
                           every: float = 0.25) -> dict[str, Any]:
    """The stack as the engine shows it once its action is no longer IN_PROGRESS (done or
    failed: the test asserts which); fails with the stack shown after ``wait`` seconds.
    The engine works in its own threads, so a test polls its service as the API would."""
    deadline = time.monotonic() + wait
    while (shown := engine.service.show_stack(ctxt, identity)[0])["stack_status"] == \
            "IN_PROGRESS":
        assert time.monotonic() < deadline, shown
        time.sleep(every)
    found: dict[str, Any] = shown
    return found

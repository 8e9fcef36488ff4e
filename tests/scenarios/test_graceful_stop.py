"""A gracefully stopping engine hands what it could not finish to a live engine.

Two engines on one SQLite file and one in-process transport, with real
threads and the real clock. Engine A stops (as on SIGTERM) while its
resources wait: it finishes nothing more, hands each locked resource over,
and engine B carries the stack to COMPLETE with every resource made once.
"""

from __future__ import annotations

from collections import defaultdict

from hotplate.app import open_store, start_engine
from hotplate.engine.clock import SystemClock
from hotplate.rpc.inprocess import InProcessTransport

from .templates import res, tmpl
from .test_threaded import CTXT, settled, wait_for


def test_a_stopping_engine_hands_its_work_over(tmp_path) -> None:
    clock = SystemClock()
    store = open_store(f"sqlite:///{tmp_path}/g.sqlite", clock)
    transport = InProcessTransport(workers_per_server=8)
    a = start_engine(store, transport, clock=clock, engine_id="engine-a", host="host-a",
                     work_slots=1)
    b = None
    try:
        template = tmpl({f"r{i}": res("v", wait_secs=2) for i in range(6)})
        sid = a.service.create_stack(CTXT, "handover", template, {}, {},
                                     {"disable_rollback": True})["stack_id"]
        wait_for(lambda: len(store.resources_locked_by("engine-a")) == 6)
        b = start_engine(store, transport, clock=clock, engine_id="engine-b", host="host-b",
                         work_slots=1)
        handed = a.shutdown(timeout=0.2)
        assert handed == 6
        assert store.resources_locked_by("engine-a") == []
        wait_for(lambda: settled(b, sid))
        stack = store.get_stack(sid)
        assert (stack.action, stack.status) == ("CREATE", "COMPLETE"), stack.status_reason
        tokens: dict[str, set[str]] = defaultdict(set)
        for attempt in store.list_attempts(sid):
            tokens[attempt.resource_uuid].add(attempt.token)
        assert len(tokens) == 6 and all(len(t) == 1 for t in tokens.values())
        reasons = [e.resource_status_reason for e in store.list_events(sid)]
        assert sum("engine engine-a stopped gracefully" in (r or "") for r in reasons) == 6
        assert "engine-a" not in {s.engine_id for s in store.list_services()}
    finally:
        if b is not None:
            b.stop()
        transport.stop()

"""A signal is kept before it is answered: an engine that dies between storing a signal
and applying it loses nothing, as the recovery sweep of a live engine applies it.

Two engines share one SQLite database and the in-process transport, with
short timers (a sweep every second, a signal re-driven after one). Engine A
receives the signal and stores it; its handling thread then dies before the
handler writes anything (an exception no handler catches, as a killed
process leaves things), and A is stopped. Nobody signals again: engine B's
sweep must find the stored signal and apply it, once, and the wait
condition A's worker had parked (handed over to B) completes.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from hotplate.app import Engine, open_store, start_engine
from hotplate.engine.clock import SystemClock
from hotplate.engine.errors import Invalid
from hotplate.engine.options import EngineOptions
from hotplate.resources.registry import Registry
from hotplate.resources.wait_condition_handle import HeatWaitConditionHandle
from hotplate.rpc.inprocess import InProcessTransport

from .test_threaded import CTXT, settled, wait_for

ENGINE_A, ENGINE_B = "engine-a", "engine-b"
OPTIONS = EngineOptions(periodic_interval=1, stalled_traversal_timeout=1)


class EngineDied(BaseException):
    """Raised in engine A's signal thread: it stops where it stands."""


class DyingHandle(HeatWaitConditionHandle):
    dies_on: ClassVar[str | None] = None

    def handle_signal(self, details: Any = None) -> str | None:
        if DyingHandle.dies_on is not None and \
                getattr(self.ctx, "_engine_id", None) == DyingHandle.dies_on:
            DyingHandle.dies_on = None
            raise EngineDied()
        return super().handle_signal(details)


REGISTRY = Registry.with_extra({"OS::Heat::WaitConditionHandle": DyingHandle})

TEMPLATE = {
    "heat_template_version": "2021-04-16",
    "resources": {
        "handle": {"type": "OS::Heat::WaitConditionHandle",
                   "properties": {"signal_transport": "NO_SIGNAL"}},
        "wait": {"type": "OS::Heat::WaitCondition", "properties": {
            "handle": {"get_resource": "handle"}, "count": 1, "timeout": 120}},
    },
    "outputs": {"data": {"value": {"get_attr": ["wait", "data"]}}},
}


class Engines:
    def __init__(self, tmp_path: Path) -> None:
        self.store = open_store(f"sqlite:///{tmp_path / 'signals.sqlite'}", SystemClock())
        self.transport = InProcessTransport(workers_per_server=4)
        self.a = self._start(ENGINE_A)
        self.b = self._start(ENGINE_B)

    def _start(self, engine_id: str) -> Engine:
        return start_engine(self.store, self.transport, engine_id=engine_id,
                            host=f"host-{engine_id}", registry=REGISTRY, options=OPTIONS,
                            work_slots=1)

    def stop(self) -> None:
        self.a.stop()
        self.b.stop()
        self.transport.stop()

    def handle_created(self, sid: str) -> bool:
        rows = {r.name: r for r in self.store.list_resources(sid)}
        handle = rows.get("handle")
        return handle is not None and (handle.action, handle.status) == ("CREATE", "COMPLETE")

    def handle(self, sid: str) -> Any:
        return next(r for r in self.store.list_resources(sid) if r.name == "handle")


@pytest.fixture
def engines(tmp_path: Path) -> Iterator[Engines]:
    found = Engines(tmp_path)
    yield found
    found.stop()


@pytest.fixture
def quiet_deaths(monkeypatch: pytest.MonkeyPatch) -> list[BaseException]:
    """The died thread's exception, kept instead of reported (it is the point)."""
    died: list[BaseException] = []
    original = threading.excepthook

    def hook(args: Any) -> None:
        if isinstance(args.exc_value, EngineDied):
            died.append(args.exc_value)
            return
        original(args)

    monkeypatch.setattr(threading, "excepthook", hook)
    return died


def test_a_signal_stored_by_an_engine_that_died_is_applied_by_the_sweep(
        engines: Engines, quiet_deaths: list[BaseException]) -> None:
    sid = engines.a.service.create_stack(CTXT, "durable", TEMPLATE, {}, {}, {})["stack_id"]
    wait_for(lambda: engines.handle_created(sid))
    DyingHandle.dies_on = ENGINE_A
    assert engines.a.service.resource_signal(CTXT, sid, "handle",
                                             {"id": "web-0", "data": "up"}) is None
    wait_for(lambda: bool(quiet_deaths))
    handle = engines.handle(sid)
    stored = engines.store.list_signals(handle.id)
    assert [(s.signal_id, s.applied_at) for s in stored] == [("web-0", None)]
    assert handle.metadata == {}
    engines.a.stop()  # its parked wait condition goes to B; the signal only the sweep finds

    wait_for(lambda: settled(engines.b, sid), timeout=30)
    stack = engines.store.get_stack(sid)
    assert (stack.action, stack.status) == ("CREATE", "COMPLETE"), stack.status_reason
    handle = engines.handle(sid)
    assert handle.metadata == {
        "web-0": {"data": "up", "reason": "Signal 1 received", "status": "SUCCESS"}}
    [applied] = engines.store.list_signals(handle.id)
    assert applied.applied_at is not None
    events = [e for e in engines.b.service.list_events(CTXT, sid)
              if e["resource_name"] == "handle" and e["resource_action"] == "SIGNAL"]
    assert [e["resource_status_reason"] for e in events] == [
        "Signal: status:SUCCESS reason:Signal 1 received"]
    outputs = engines.b.service.show_stack(CTXT, sid)[0]["outputs"]
    assert [o["output_value"] for o in outputs] == ['{"web-0": "up"}']


def test_a_sync_call_answers_the_metadata_and_a_repeat_changes_nothing(
        engines: Engines) -> None:
    sid = engines.a.service.create_stack(CTXT, "sync", TEMPLATE, {}, {}, {})["stack_id"]
    wait_for(lambda: engines.handle_created(sid))
    entry = {"data": 1, "reason": "r", "status": "SUCCESS"}
    answered = engines.a.service.resource_signal(CTXT, sid, "handle",
                                                 {"id": "a", "data": 1, "reason": "r"},
                                                 sync_call=True)
    assert answered == {"a": entry}
    again = engines.b.service.resource_signal(CTXT, sid, "handle",
                                              {"id": "a", "status": "FAILURE"},
                                              sync_call=True)
    assert again == {"a": entry}
    with pytest.raises(Invalid, match=r"^Data supplied was not valid: Metadata format invalid$"):
        engines.a.service.resource_signal(CTXT, sid, "handle", {"status": "MAYBE"},
                                          sync_call=True)
    wait_for(lambda: settled(engines.a, sid))
    assert engines.store.get_stack(sid).status == "COMPLETE"
    assert engines.handle(sid).metadata == {"a": entry}
    assert len(engines.store.list_signals(engines.handle(sid).id)) == 2

"""A whole engine on a real SQLite file, driven by a seeded deterministic scheduler.

Messages between the engine's services queue up in the DeterministicTransport
and are delivered one at a time in an order chosen by the seed, optionally
duplicated; the clock is fake and moves only when something sleeps, when the
test advances it, or when ``run`` finds nothing to deliver but parked
actions (engine/worker/parking.py): it then moves the clock to the next one
due and re-drives it. The same seed always gives the same run.
"""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path
from typing import Any

from hotplate.app import Engine, open_store, start_engine
from hotplate.engine.clock import FakeClock, SeededIds
from hotplate.engine.legacy.stacks import LegacyStacks
from hotplate.engine.options import EngineOptions
from hotplate.engine.runner import ActionRunner
from hotplate.engine.worker.parking import ParkedActions
from hotplate.rpc.deterministic import DeterministicTransport

LOG = logging.getLogger(__name__)
CTXT = {"project_id": "demo", "username": "demo", "user_id": "u1", "is_admin": False}


class Harness:
    opened: list[Harness] = []
    """Every harness made, closed after its test (tests/scenarios/conftest.py)."""

    def __init__(self, tmp_path: Path, *, seed: int = 0, duplicate_rate: float = 0.0,
                 reorder: bool = True, registry: Any = None,
                 options: EngineOptions | None = None) -> None:
        self.clock = FakeClock()
        self.store = open_store(f"sqlite:///{tmp_path / f'scenario-{seed}.sqlite'}", self.clock)
        self.transport = DeterministicTransport(seed, duplicate_rate=duplicate_rate,
                                                reorder=reorder)
        self.engine: Engine = start_engine(
            self.store, self.transport, clock=self.clock, ids=SeededIds(seed),
            runner=ActionRunner(self.clock), engine_id=f"engine-{seed}", registry=registry,
            options=options,
        )
        self.legacy_on_the_scheduler(self.engine)
        self.service = self.engine.service
        self.engines: list[Engine] = [self.parking_on_the_clock(self.engine)]
        """The engines whose parked actions ``run`` re-drives."""
        Harness.opened.append(self)

    def close(self) -> None:
        """Stop every engine the test ran here: their timers and sink threads would
        otherwise run on beside the tests after it. Then close the database's
        connections: each keeps the file and its journal open (five descriptors a
        test, and a process may use only 1,024 with ``select``)."""
        seen: set[int] = set()
        for engine in [self.engine, *self.engines]:
            if id(engine) in seen:
                continue
            seen.add(id(engine))
            try:
                engine.stop()
            except Exception:  # an engine the test killed on purpose, or its database gone
                LOG.debug("stopping a scenario's engine", exc_info=True)
        stores = {id(engine.deps.store): engine.deps.store for engine in
                  [self.engine, *self.engines]} | {id(self.store): self.store}
        for store in stores.values():
            database = getattr(store, "engine", None)  # a test's stand-in may have none
            if database is not None:
                database.dispose()

    def parking_on_the_clock(self, engine: Engine) -> Engine:
        """``engine``'s parked actions re-driven by ``run`` on the fake clock, not by a
        thread on real time (call before it parks anything)."""
        engine.deps.parked = ParkedActions(engine.deps.redrive, self.clock, threaded=False)
        return engine

    @staticmethod
    def legacy_on_the_scheduler(engine: Engine) -> Engine:
        """``engine``'s legacy stack threads run by ``run``, in turn with the messages,
        not on threads of their own (engine/legacy/)."""
        legacy = engine.deps.legacy
        assert isinstance(legacy, LegacyStacks)
        legacy.threaded = False
        return engine

    def run_legacy(self) -> bool:
        """Run what the engines' legacy stacks have queued; False when nothing was."""
        ran = False
        for engine in self.engines:
            legacy = engine.deps.legacy
            if isinstance(legacy, LegacyStacks):
                ran = legacy.run_pending() or ran
        return ran

    # -- driving -------------------------------------------------------------------------
    def run(self, max_steps: int = 200_000, *, max_waits: int = 100_000) -> None:
        """Deliver until idle; while actions are parked, move the clock to the next one
        due, re-drive it and deliver again. Time passes only while something waits."""
        for _ in range(max_waits):
            self.transport.run_until_idle(max_steps=max_steps)
            if self.run_legacy():
                continue
            if not self.redrive_parked():
                return
        raise RuntimeError(f"still waiting after {max_waits} re-drives of parked actions")

    def redrive_parked(self) -> bool:
        """Move the clock to the next parked action due and re-drive what is due then;
        False when nothing is parked."""
        parked = [e.deps.parked for e in self.engines if e.deps.parked is not None]
        dues = [due for p in parked if (due := p.next_due()) is not None]
        if not dues:
            return False
        ahead = (min(dues) - self.clock.now()).total_seconds()
        if ahead > 0:
            self.clock.advance(ahead)
        for p in parked:
            p.redrive_due()
        return True

    def step(self, n: int = 1) -> None:
        for _ in range(n):
            if not self.transport.step():
                return

    def create(self, name: str, template: Any, params: dict[str, Any] | None = None,
               **args: Any) -> str:
        args.setdefault("disable_rollback", True)
        ident = self.service.create_stack(CTXT, name, template, {"parameters": params or {}},
                                          {}, args)
        return str(ident["stack_id"])

    def update(self, stack_id: str, template: Any, params: dict[str, Any] | None = None,
               **args: Any) -> None:
        self.service.update_stack(CTXT, stack_id, template, {"parameters": params or {}},
                                  {}, args)

    def delete(self, stack_id: str) -> None:
        self.service.delete_stack(CTXT, stack_id)

    # -- observing -----------------------------------------------------------------------
    def stack(self, stack_id: str) -> dict[str, Any]:
        view: dict[str, Any] = self.service.show_stack({**CTXT, "is_admin": True}, stack_id)[0]
        return view

    def status(self, stack_id: str) -> str:
        view = self.stack(stack_id)
        return f"{view['stack_action']}_{view['stack_status']}"

    def resources(self, stack_id: str) -> dict[str, dict[str, Any]]:
        views = self.service.list_stack_resources({**CTXT, "is_admin": True}, stack_id)
        return {v["resource_name"]: v for v in views}

    def resource(self, stack_id: str, name: str) -> dict[str, Any]:
        """One resource's detailed view (its metadata and attributes too)."""
        return self.service.describe_stack_resource({**CTXT, "is_admin": True}, stack_id,
                                                    name)

    def resource_states(self, stack_id: str) -> dict[str, str]:
        return {name: f"{v['resource_action']}_{v['resource_status']}"
                for name, v in self.resources(stack_id).items()}

    def outputs(self, stack_id: str) -> dict[str, Any]:
        return {o["output_key"]: o.get("output_value")
                for o in self.stack(stack_id).get("outputs", [])}

    def events(self, stack_id: str) -> list[dict[str, Any]]:
        return self.service.list_events({**CTXT, "is_admin": True}, stack_id, sort_dir="asc")

    def event_counts(self, stack_id: str) -> Counter[tuple[str, str]]:
        """(resource name, ACTION_STATUS) -> how many events."""
        return Counter((e["resource_name"], f"{e['resource_action']}_{e['resource_status']}")
                       for e in self.events(stack_id))

    def rows(self, stack_id: str) -> list[Any]:
        return self.store.list_resources(stack_id)

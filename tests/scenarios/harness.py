"""A whole engine on a real SQLite file, driven by a seeded deterministic scheduler.

Messages between the engine's services queue up in the DeterministicTransport
and are delivered one at a time in an order chosen by the seed, optionally
duplicated; the clock is fake and moves only when something sleeps or the
test advances it. The same seed always gives the same run.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from hotplate.app import Engine, open_store, start_engine
from hotplate.engine.clock import FakeClock, SeededIds
from hotplate.engine.runner import ActionRunner
from hotplate.rpc.deterministic import DeterministicTransport

CTXT = {"project_id": "demo", "username": "demo", "user_id": "u1", "is_admin": False}


class Harness:
    def __init__(self, tmp_path: Path, *, seed: int = 0, duplicate_rate: float = 0.0,
                 reorder: bool = True, registry: Any = None) -> None:
        self.clock = FakeClock()
        self.store = open_store(f"sqlite:///{tmp_path / f'scenario-{seed}.sqlite'}", self.clock)
        self.transport = DeterministicTransport(seed, duplicate_rate=duplicate_rate,
                                                reorder=reorder)
        self.engine: Engine = start_engine(
            self.store, self.transport, clock=self.clock, ids=SeededIds(seed),
            runner=ActionRunner(self.clock), engine_id=f"engine-{seed}", registry=registry,
        )
        self.service = self.engine.service

    # -- driving -------------------------------------------------------------------------
    def run(self, max_steps: int = 200_000) -> None:
        self.transport.run_until_idle(max_steps=max_steps)

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

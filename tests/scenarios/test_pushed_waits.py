"""Waits through the engine's status board are woken by news, not polled.

A plugin that waits on a cloud object through ``openstack.waiting.look`` parks
under the object's wake key. One waiting check, the board's driver, comes back
with each tick and runs it; a tick that hears something new of an object wakes
the check waiting on it. Here the board's one list a tick is answered from a
table of ready times on the harness's fake clock: what is tested is the
engine's side, the number of checks and how soon each wait ends (the batched
calls themselves run against the real cloud in ``tests/cloud``).
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any, ClassVar

from hotplate.cloud.batched_waits import StatusBoard
from hotplate.cloud.status_board import MAX_INTERVAL, SLACK
from hotplate.resources.base import CheckAgain, CheckResult, Resource
from hotplate.resources.openstack.status_listing import Listing, ListPlan
from hotplate.resources.openstack.waiting import done_waiting, look
from hotplate.resources.properties import Schema
from hotplate.resources.registry import Registry

from .harness import Harness
from .templates import tmpl

EPOCH = datetime(2026, 12, 6, 0, 0, 0)


class Things:
    """One kind of cloud object, ready at a time set per object; counts the board's lists."""

    service = "test-things"

    def __init__(self, harness: Harness) -> None:
        self.harness = harness
        self.ready_at: dict[str, datetime] = {}
        self.lists = 0

    def endpoint(self, cloud: object) -> str:
        return "http://things.test/v1"

    def list(self, cloud: object, plan: ListPlan) -> Listing:
        self.lists += 1
        now = self.harness.clock.now()
        records = {}
        for ident in plan.watched:
            ready = self.ready_at[ident]
            changed = ready if now >= ready else EPOCH
            records[ident] = {"id": ident, "status": "ACTIVE" if now >= ready else "BUILD",
                              "updated_at": changed.isoformat()}
        return Listing(records)


class _Cloud:
    """What ``look`` needs of a cloud: the engine's board and a project to key it by."""

    def __init__(self, board: StatusBoard) -> None:
        self.board = board

    def project_identity(self) -> str:
        return "project@RegionOne"


class Waiter(Resource):
    """Made at once; complete when its object (``Things``) is ACTIVE ``ready_after``
    seconds later, as a server that builds."""

    properties_schema = {"ready_after": Schema(Schema.NUMBER, "Seconds until ready.")}
    things: ClassVar[Things]
    board: ClassVar[StatusBoard]
    checks: ClassVar[Counter[str]] = Counter()
    late: ClassVar[dict[str, float]] = {}
    """Seconds between each object's ready time and the end of its wait."""

    @property
    def cloud(self) -> Any:
        return _Cloud(Waiter.board)

    def handle_create(self) -> None:
        self.resource_id_set(self.physical_resource_name())
        Waiter.things.ready_at[str(self.resource_id)] = self.ctx.clock.now() + timedelta(
            seconds=self.properties["ready_after"])

    def check_create_complete(self, data: Any) -> CheckResult:
        Waiter.checks[self.name] += 1
        ident = str(self.resource_id)
        seen = look(self, "create", Waiter.things, ident, lambda: None, every=1.0)
        if seen.record is None or seen.record["status"] != "ACTIVE":
            return CheckAgain(after=seen.after)
        done_waiting(self, "create", Waiter.things, ident)
        now = self.ctx.clock.now()
        Waiter.late[self.name] = (now - Waiter.things.ready_at[ident]).total_seconds()
        return True


REGISTRY = Registry.with_extra({"OS::Test::Waiter": Waiter})
WAITERS = 40


def _run(tmp_path: Any, *, pushed: bool) -> Harness:
    h = Harness(tmp_path, seed=7, registry=REGISTRY)
    Waiter.checks.clear()
    Waiter.late.clear()
    Waiter.things = Things(h)
    Waiter.board = StatusBoard(clock=lambda: h.clock.now().timestamp())
    if pushed:  # as the engine wires its own board (app.py)
        Waiter.board.wake_with(lambda key: h.engine.deps.parked.wake(key))
    members = {f"w{i}": {"type": "OS::Test::Waiter", "properties": {"ready_after": 8 + 0.25 * i}}
               for i in range(WAITERS)}
    sid = h.create("builds", tmpl(members))
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"
    return h


def test_news_pushed_costs_a_few_checks_a_wait_and_ends_each_as_soon(tmp_path) -> None:
    _run(tmp_path, pushed=False)
    polled, polled_late, polled_ticks = sum(Waiter.checks.values()), dict(Waiter.late), \
        Waiter.things.lists
    (tmp_path / "pushed").mkdir()
    _run(tmp_path / "pushed", pushed=True)
    pushed = sum(Waiter.checks.values())
    # each wait ends with the first tick after its object is ready, pushed or polled
    assert len(Waiter.late) == WAITERS and Waiter.late == polled_late
    assert max(Waiter.late.values()) <= MAX_INTERVAL + SLACK, Waiter.late
    # polled, every wait comes back with every tick; pushed, a wait is checked first,
    # at its first news and when its object is ready, and the driver once a tick
    assert polled >= WAITERS * polled_ticks // 2, (polled, polled_ticks)
    assert pushed <= 3 * WAITERS + 2 * Waiter.things.lists, (pushed, Waiter.things.lists)
    assert pushed * 2 < polled, (pushed, polled)

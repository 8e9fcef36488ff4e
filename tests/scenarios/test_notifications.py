"""Heat's stack notifications from a whole engine: one per state written, in order.

A notifier that records what it is given stands in for oslo.messaging's
(tests/distributed/test_notifications.py reads the real ones from RabbitMQ).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from hotplate.engine.hosting.row_plugins import row_context
from hotplate.engine.worker import traversal as trav
from hotplate.model.ids import TraversalId
from hotplate.model.notifications import Notification, Priority
from hotplate.model.states import Action

from .harness import CTXT, Harness
from .templates import chain, res, tmpl

HEAT_KEYS = {"tenant_id", "user_id", "user_identity", "username", "stack_identity",
             "stack_name", "state", "state_reason", "create_at", "tags", "updated_at",
             "description"}


class Recording:
    """A Notifier that keeps what it is sent."""

    def __init__(self) -> None:
        self.sent: list[Notification] = []
        self.closed = False

    def send(self, notification: Notification) -> None:
        self.sent.append(notification)

    def close(self) -> None:
        self.closed = True

    def types(self, stack_id: str | None = None) -> list[str]:
        return [n.event_type.removeprefix("orchestration.") for n in self.sent
                if stack_id is None or n.payload["stack_identity"] == stack_id]


class Failing(Recording):
    def send(self, notification: Notification) -> None:
        raise ConnectionError("broker unreachable")


def _harness(tmp_path: Path, notifier: Recording | None = None) -> tuple[Harness, Recording]:
    h = Harness(tmp_path)
    recording = notifier or Recording()
    h.engine.deps.notifier = recording
    return h, recording


def test_create_update_delete_send_start_and_end(tmp_path: Path) -> None:
    h, sent = _harness(tmp_path)
    description = "Two in a row"
    sid = h.create("web", {**chain(2), "description": description}, tags="a,b")
    h.run()
    assert sent.types() == ["stack.create.start", "stack.create.end"]
    start, end = sent.sent
    assert set(start.payload) == HEAT_KEYS
    assert start.priority is Priority.INFO
    assert start.payload["state"] == "CREATE_IN_PROGRESS"
    assert start.payload["state_reason"] == "Stack CREATE started"
    assert end.payload["state"] == "CREATE_COMPLETE"
    assert end.payload["state_reason"] == "Stack CREATE completed successfully"
    for notification in sent.sent:
        assert notification.payload["stack_identity"] == sid
        assert notification.payload["stack_name"] == "web"
        assert notification.payload["tenant_id"] == CTXT["project_id"]
        assert notification.payload["user_identity"] == CTXT["user_id"]
        assert notification.payload["user_id"] == notification.payload["username"] == "demo"
        assert notification.payload["description"] == description
        assert notification.payload["tags"] == ["a", "b"]
        assert notification.payload["create_at"] == h.stack(sid)["creation_time"]
    h.update(sid, chain(3))
    h.run()
    h.delete(sid)
    h.run()
    assert sent.types()[2:] == ["stack.update.start", "stack.update.end",
                                "stack.delete.start", "stack.delete.end"]
    assert sent.sent[2].payload["description"] == "No description"  # the new template's


def test_a_failed_create_sends_error_at_error_priority(tmp_path: Path) -> None:
    h, sent = _harness(tmp_path)
    sid = h.create("bad", tmpl({"broken": res(fail=True)}))
    h.run()
    assert sent.types(sid) == ["stack.create.start", "stack.create.error"]
    error = sent.sent[-1]
    assert error.priority is Priority.ERROR
    assert error.payload["state"] == "CREATE_FAILED"
    assert error.payload["state_reason"] == h.stack(sid)["stack_status_reason"]


def test_a_rollback_follows_the_error(tmp_path: Path) -> None:
    h, sent = _harness(tmp_path)
    sid = h.create("bad", tmpl({"broken": res(fail=True)}), disable_rollback=False)
    h.run()
    assert sent.types(sid) == ["stack.create.start", "stack.create.error",
                               "stack.rollback.start", "stack.rollback.end"]
    assert [n.priority for n in sent.sent] == [Priority.INFO, Priority.ERROR,
                                               Priority.INFO, Priority.INFO]


def test_suspend_resume_and_check(tmp_path: Path) -> None:
    h, sent = _harness(tmp_path)
    sid = h.create("web", chain(2))
    h.run()
    for act in (h.service.stack_suspend, h.service.stack_resume, h.service.stack_check):
        act(CTXT, sid)
        h.run()
    assert sent.types(sid)[2:] == ["stack.suspend.start", "stack.suspend.end",
                                   "stack.resume.start", "stack.resume.end",
                                   "stack.check.start", "stack.check.end"]
    assert sent.sent[-1].payload["state"] == "CHECK_COMPLETE"


def test_a_cancel_sends_error(tmp_path: Path) -> None:
    h, sent = _harness(tmp_path)
    sid = h.create("web", chain(4))
    h.step(2)
    h.service.stack_cancel_update(CTXT, sid, cancel_with_rollback=False)
    h.run()
    assert sent.types(sid) == ["stack.create.start", "stack.create.error"]
    assert sent.sent[-1].payload["state_reason"] == "Stack CREATE cancelled"


def test_a_swap_that_loses_sends_nothing(tmp_path: Path) -> None:
    h, sent = _harness(tmp_path)
    sid = h.create("web", chain(1))
    h.run()
    stack = h.store.get_stack(sid)
    assert stack is not None
    count = len(sent.sent)
    stale = TraversalId("not-the-current-one")
    assert not trav.mark_complete(h.engine.deps, stack, stale)
    assert not trav.mark_failed(h.engine.deps, stack, stale, "late")
    late = replace(stack, current_traversal=stale)  # another request swapped it since
    assert trav.converge_stack(h.engine.deps, late, stack.raw_template_id, Action.UPDATE,
                               prev_template_id=None) is None
    assert len(sent.sent) == count


def test_a_failing_notifier_never_fails_a_stack(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    h, _ = _harness(tmp_path, Failing())
    sid = h.create("web", chain(3))
    h.run()
    assert h.status(sid) == "CREATE_COMPLETE"
    h.delete(sid)
    h.run()
    assert h.status(sid) == "DELETE_COMPLETE"
    logged = [r.getMessage() for r in caplog.records if r.name == "hotplate.engine.notify"]
    assert logged == [f"stack {sid}: could not send its {state} notification"
                      for state in ("CREATE_IN_PROGRESS", "CREATE_COMPLETE",
                                    "DELETE_IN_PROGRESS", "DELETE_COMPLETE")]


def test_the_engine_closes_its_notifier_when_it_stops(tmp_path: Path) -> None:
    h, sent = _harness(tmp_path)
    h.engine.stop()
    assert sent.closed


def test_without_a_notifier_groups_get_no_notice_port(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    sid = h.create("web", chain(1))
    h.run()
    stack = h.store.get_stack(sid)
    assert stack is not None
    row = h.rows(sid)[0]
    assert row_context(h.engine.deps, row, stack).notify_scaling is None
    h.engine.deps.notifier = Recording()
    assert row_context(h.engine.deps, row, stack).notify_scaling is not None

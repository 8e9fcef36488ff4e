"""build_notifier and OsloNotifier without a broker: oslo's in-memory ``test`` driver
on its ``fake://`` transport (tests/distributed/test_notifications.py uses RabbitMQ)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hotplate.model.notifications import Notification, Priority
from hotplate.rpc.notifier import OsloNotifier, build_notifier, publisher_id_for


@pytest.fixture
def recorded() -> Iterator[list[tuple[object, ...]]]:
    from oslo_messaging.notify import _impl_test

    _impl_test.reset()
    yield _impl_test.NOTIFICATIONS
    _impl_test.reset()


@pytest.mark.parametrize("driver", [None, "", "noop", [], ["noop", ""]])
def test_no_driver_means_no_notifier(driver: str | list[str] | None) -> None:
    assert build_notifier(driver, "rabbit://nowhere:1/", None, "h") is None


def test_an_unknown_driver_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"unknown notification driver nonesuch; "
                                         r"oslo\.messaging has .*messagingv2"):
        build_notifier(["messagingv2", "nonesuch"], "rabbit://nowhere:1/", None, "h")


def test_heats_publisher_id() -> None:
    assert publisher_id_for("node-1") == "orchestration.node-1"


def test_notifications_go_out_in_order_with_their_context(
        recorded: list[tuple[object, ...]]) -> None:
    notifier = build_notifier("test", "fake://", None, "node-1")
    assert isinstance(notifier, OsloNotifier)
    for suffix, priority in (("start", Priority.INFO), ("error", Priority.ERROR)):
        notifier.send(Notification(f"orchestration.stack.create.{suffix}", priority,
                                   {"stack_name": "s"}, {"project_id": "demo"}))
    notifier.close()
    notifier.close()  # idempotent
    assert [(ctxt, message["event_type"], message["publisher_id"], message["payload"],  # type: ignore[index]
             priority) for ctxt, message, priority, _retry in recorded] == [
        ({"project_id": "demo"}, "orchestration.stack.create.start", "orchestration.node-1",
         {"stack_name": "s"}, "INFO"),
        ({"project_id": "demo"}, "orchestration.stack.create.error", "orchestration.node-1",
         {"stack_name": "s"}, "ERROR"),
    ]


def test_a_closed_notifier_drops_without_raising(
        recorded: list[tuple[object, ...]]) -> None:
    notifier = build_notifier("test", "fake://", ["notifications"], "node-1")
    assert notifier is not None
    notifier.close()
    notifier.send(Notification("orchestration.stack.create.start", Priority.INFO, {}))
    assert recorded == []

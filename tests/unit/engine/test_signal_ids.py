"""The id a signal is stored under: the sender's, hashed when too long, else a new one."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hotplate.engine.clock import SeededIds
from hotplate.engine.worker.signal_delivery import MAX_SIGNAL_ID, stored_signal_id
from hotplate.resources.scaling_policy import ScalingPolicy
from hotplate.resources.wait_condition_handle import CfnWaitConditionHandle


def _id(cls: Any, details: Any) -> str:
    deps = SimpleNamespace(ids=SeededIds(0))  # all stored_signal_id reads of EngineDeps
    return stored_signal_id(cls, details, deps)  # type: ignore[arg-type]


def test_the_senders_id_is_kept() -> None:
    assert _id(ScalingPolicy, {"id": "alarm-7"}) == "alarm-7"
    assert _id(CfnWaitConditionHandle, {"UniqueId": 3, "id": "x"}) == "3"


def test_a_signal_without_an_id_gets_a_new_one() -> None:
    first, second = _id(ScalingPolicy, None), _id(CfnWaitConditionHandle, {"id": "x"})
    assert first.startswith("auto:") and second.startswith("auto:")


def test_a_long_id_is_hashed_to_fit() -> None:
    long = "x" * 1000
    stored = _id(ScalingPolicy, {"id": long})
    assert stored.startswith("sha256:") and len(stored) <= MAX_SIGNAL_ID
    assert stored == _id(ScalingPolicy, {"id": long})
    assert stored != _id(ScalingPolicy, {"id": long + "y"})

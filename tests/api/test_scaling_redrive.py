"""A scaling policy's signal applied again, as the recovery sweep re-drives it, scales once.

The engine stores a signal before it answers and the sweep applies again any
signal not marked applied (signal_delivery.py). A policy's signal starts its
group's scaling and is marked applied in one transaction, so applying the
same stored signal a second time, once the first resize has ended and with
no cooldown to stop it, resizes nothing. A scaling left unfinished by a dead
engine stops blocking the group once past its deadline.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from hotplate.app import Engine, embedded
from hotplate.engine.worker import signal_delivery
from hotplate.model.ids import StackId
from hotplate.resources import scaling
from tests.api.conftest import Api, serving
from tests.api.helpers import create_complete

TEMPLATE = """
heat_template_version: 2015-04-30
resources:
  group:
    type: OS::Heat::AutoScalingGroup
    properties:
      cooldown: 0
      desired_capacity: 2
      max_size: 5
      min_size: 1
      resource: {type: OS::Heat::RandomString}
  up:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: change_in_capacity
      auto_scaling_group_id: {get_resource: group}
      scaling_adjustment: 1
"""


@pytest.fixture
def engine_api(tmp_path: Path) -> Iterator[tuple[Engine, Api]]:
    engine, transport = embedded(f"sqlite:///{tmp_path / 'hotplate.sqlite'}", workers=4)
    with serving(engine, transport) as api:
        yield engine, api


def _child(hc: Any, stack_id: str) -> str:
    return str(hc.resources.get(stack_id, "group").physical_resource_id)


def _resizes(hc: Any, stack_id: str) -> int:
    """How many times the group's child stack started an update (one per resize)."""
    child = _child(hc, stack_id)
    return sum(1 for e in hc.events.list(child)
               if e.physical_resource_id == child
               and e.resource_status == "UPDATE_IN_PROGRESS")


def _settled(hc: Any, stack_id: str, size: int) -> None:
    deadline = time.monotonic() + 30
    while True:
        members = list(hc.resources.list(_child(hc, stack_id)))
        metadata = hc.resources.metadata(stack_id, "group")
        if (len(members) == size and not metadata.get("scaling_in_progress")
                and all(m.resource_status.endswith("_COMPLETE") for m in members)):
            return
        assert time.monotonic() < deadline, f"the group never settled at {size} members"
        time.sleep(0.05)


def test_a_policy_signal_applied_twice_resizes_the_group_once(
        engine_api: tuple[Engine, Api]) -> None:
    engine, api = engine_api
    hc = api.client()
    stack_id = create_complete(hc, TEMPLATE, name="redriven")
    store = engine.deps.store
    policy = store.resources_named(StackId(stack_id), "up")[0]
    stored = store.record_signal(StackId(stack_id), policy.id, "alarm-1", None)
    assert stored is not None

    assert signal_delivery.apply(engine.deps, stored)
    _settled(hc, stack_id, 3)
    assert store.get_signal(policy.id, "alarm-1").applied_at is not None
    assert _resizes(hc, stack_id) == 1

    # As the sweep does for a signal it found unapplied: the same stored signal again.
    assert signal_delivery.apply(engine.deps, stored)
    time.sleep(0.5)
    _settled(hc, stack_id, 3)
    assert _resizes(hc, stack_id) == 1
    signalled = [e for e in hc.events.list(stack_id, resource_name="up")
                 if e.resource_status_reason == "No signal details provided"]
    assert len(signalled) == 1

    hc.resources.signal(stack_id, "up")  # a new signal still scales
    _settled(hc, stack_id, 4)
    assert _resizes(hc, stack_id) == 2


def _stuck(engine: Engine, stack_id: str, deadline: str) -> None:
    """The group's metadata as an engine that died mid-resize left it."""
    store = engine.deps.store
    row = store.resources_named(StackId(stack_id), "group")[0]
    metadata = {**row.metadata, scaling.IN_PROGRESS: True, scaling.SCALING_DEADLINE: deadline}
    assert store.update_resource_if_unlocked(row.id, row.atomic_key, {"metadata": metadata})


def test_a_scaling_left_by_a_dead_engine_blocks_only_until_its_deadline(
        engine_api: tuple[Engine, Api]) -> None:
    engine, api = engine_api
    hc = api.client()
    stack_id = create_complete(hc, TEMPLATE, name="stuck")
    now = engine.deps.clock.now()

    _stuck(engine, stack_id, scaling.timestamp(now + timedelta(minutes=30)))
    hc.resources.signal(stack_id, "up")  # still within its deadline: ignored
    time.sleep(0.5)
    assert len(list(hc.resources.list(_child(hc, stack_id)))) == 2
    assert _resizes(hc, stack_id) == 0

    past = now - scaling.STALE_GRACE - timedelta(seconds=1)
    _stuck(engine, stack_id, scaling.timestamp(past))
    hc.resources.signal(stack_id, "up")  # its engine is long gone: the group scales
    _settled(hc, stack_id, 3)
    metadata = hc.resources.metadata(stack_id, "group")
    assert scaling.SCALING_DEADLINE not in metadata
    assert metadata["scaling_in_progress"] is False

"""Nested stacks wait without threads: a group far wider than the worker pool converges.

Each member of the group is a template resource whose own child stack must
be worked on by the same pool. Were a waiting member to hold its thread, two
workers would be taken by the first two members and the rest, children
included, would queue behind them for ever.
"""

from __future__ import annotations

import pytest

from hotplate.app import embedded

from .test_threaded import CTXT, settled, wait_for

MEMBER = """\
heat_template_version: 2021-04-16
parameters:
  index: {type: string}
resources:
  leaf:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: index}
      wait_secs: 0.05
outputs:
  said: {value: {get_attr: [leaf, output]}}
"""


def group(count: int, wait_secs: float = 0.05) -> dict:
    return {
        "heat_template_version": "2021-04-16",
        "resources": {"group": {"type": "OS::Heat::ResourceGroup", "properties": {
            "count": count,
            "resource_def": {"type": "member.yaml", "properties": {"index": "%index%"}}}}},
        "outputs": {"said": {"value": {"get_attr": ["group", "said"]}}},
    }


@pytest.fixture
def narrow(tmp_path):
    engine, transport = embedded(f"sqlite:///{tmp_path}/p.sqlite", workers=2)
    yield engine
    engine.stop()
    transport.stop()


def _create(engine, template, files) -> str:
    return engine.service.create_stack(CTXT, "wide", template, {}, files, {})["stack_id"]


def test_a_group_wider_than_the_pool_is_created_updated_and_deleted(narrow) -> None:
    files = {"member.yaml": MEMBER}
    sid = _create(narrow, group(12), files)
    wait_for(lambda: settled(narrow, sid), timeout=60)
    stack = narrow.store.get_stack(sid)
    assert (stack.action, stack.status) == ("CREATE", "COMPLETE"), stack.status_reason
    outputs = narrow.service.show_stack(CTXT, sid)[0]["outputs"]
    assert outputs[0]["output_value"] == [str(i) for i in range(12)]
    assert len(narrow.deps.parked) == 0

    narrow.service.update_stack(CTXT, sid, group(14), {}, files, {})
    wait_for(lambda: settled(narrow, sid), timeout=60)
    stack = narrow.store.get_stack(sid)
    assert (stack.action, stack.status) == ("UPDATE", "COMPLETE"), stack.status_reason

    narrow.service.delete_stack(CTXT, sid)
    wait_for(lambda: settled(narrow, sid), timeout=60)
    assert narrow.store.get_stack(sid, include_deleted=True).action == "DELETE"
    assert [s for s in narrow.store.list_stacks(None, show_nested=True)] == []


def test_deleting_a_group_while_its_members_wait_stops_them(tmp_path) -> None:
    # Three leaves hold three of the four threads (their plugin really waits);
    # the parked group and members need none of them to be cancelled.
    engine, transport = embedded(f"sqlite:///{tmp_path}/d.sqlite", workers=4)
    try:
        slow = MEMBER.replace("wait_secs: 0.05", "action_wait_secs: {create: 30}")
        sid = _create(engine, group(3), {"member.yaml": slow})
        wait_for(lambda: len(engine.deps.parked) >= 4, timeout=20)  # group + 3 members
        engine.service.delete_stack(CTXT, sid)
        wait_for(lambda: settled(engine, sid), timeout=40)
        stack = engine.store.get_stack(sid, include_deleted=True)
        assert (stack.action, stack.status) == ("DELETE", "COMPLETE"), stack.status_reason
        wait_for(lambda: len(engine.deps.parked) == 0, timeout=20)
    finally:
        engine.stop()
        transport.stop()


def test_pauses_between_batches_last_as_long_as_asked(tmp_path) -> None:
    """A parked rolling update checks again when its pause ends, not after a long back-off."""
    import time

    def rolling(value: str) -> dict:
        return {"heat_template_version": "2015-04-30", "resources": {"group": {
            "type": "OS::Heat::ResourceGroup",
            "update_policy": {"rolling_update": {"max_batch_size": 1, "pause_time": 1}},
            "properties": {"count": 4, "resource_def": {
                "type": "OS::Heat::TestResource", "properties": {"value": value}}}}}}

    engine, transport = embedded(f"sqlite:///{tmp_path}/r.sqlite", workers=4)
    try:
        sid = _create(engine, rolling("a"), {})
        wait_for(lambda: settled(engine, sid), timeout=30)
        started = time.monotonic()
        engine.service.update_stack(CTXT, sid, rolling("b"), {}, {}, {})
        wait_for(lambda: settled(engine, sid), timeout=60)
        took = time.monotonic() - started
        stack = engine.store.get_stack(sid)
        assert (stack.action, stack.status) == ("UPDATE", "COMPLETE"), stack.status_reason
        assert 3 <= took < 7, f"4 batches with 3 pauses of 1 s took {took:.1f} s"
    finally:
        engine.stop()
        transport.stop()

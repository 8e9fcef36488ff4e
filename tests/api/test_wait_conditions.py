"""Wait conditions signalled through the API with python-heatclient (heatclient's
``resources.signal`` posts to ``.../resources/<handle>/signal``, as TOKEN_SIGNAL's
``curl_cli`` does).

Fifty signals with distinct ids at once to one handle of a wait condition
waiting for fifty: each counted once, none lost, the condition complete; the
same ids again change nothing. A FAILURE signal and the timeout fail the
condition with Heat's texts; signals without ids are numbered; a CFN handle
takes CFN signals.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from tests.api.conftest import Api
from tests.api.helpers import create_complete, output_values, wait_status

VERSION = "2021-04-16"


def _template(count: int, timeout: int = 120, transport: str = "NO_SIGNAL") -> dict[str, Any]:
    return {
        "heat_template_version": VERSION,
        "resources": {
            "handle": {"type": "OS::Heat::WaitConditionHandle",
                       "properties": {"signal_transport": transport}},
            "wait": {"type": "OS::Heat::WaitCondition", "properties": {
                "handle": {"get_resource": "handle"}, "count": count, "timeout": timeout}},
        },
        "outputs": {"data": {"value": {"get_attr": ["wait", "data"]}}},
    }


def _started(hc: Any, name: str, template: Any) -> str:
    """Create the stack and wait until its handle exists (the condition then waits)."""
    stack_id: str = hc.stacks.create(stack_name=name, template=template)["stack"]["id"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        states = {r.resource_name: r.resource_status for r in hc.resources.list(stack_id)}
        if states.get("handle") == "CREATE_COMPLETE":
            return stack_id
        time.sleep(0.05)
    raise AssertionError(f"the handle of {name} was never created")


def _signal_events(hc: Any, stack_id: str) -> list[str]:
    return [e.resource_status_reason for e in hc.events.list(stack_id, resource_name="handle")
            if e.resource_status_reason.startswith("Signal: ")]


def _send_at_once(api: Api, stack_id: str, bodies: list[dict[str, Any]]) -> None:
    clients = [api.client() for _ in bodies]
    errors: list[BaseException] = []

    def send(client: Any, body: dict[str, Any]) -> None:
        try:
            client.resources.signal(stack_id, "handle", data=body)
        except BaseException as exc:  # reported below: every call must answer 200
            errors.append(exc)

    threads = [threading.Thread(target=send, args=(c, b)) for c, b in zip(clients, bodies,
                                                                          strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_fifty_signals_at_once_are_each_counted_once(hc: Any, api: Api) -> None:
    stack_id = _started(hc, "fifty", _template(50))
    _send_at_once(api, stack_id, [{"id": f"s{i}", "data": i, "reason": f"r{i}"}
                                  for i in range(50)])
    done = wait_status(hc, stack_id, timeout=60)
    assert done.stack_status == "CREATE_COMPLETE", done.stack_status_reason
    metadata = hc.resources.metadata(stack_id, "handle")
    assert sorted(metadata) == sorted(f"s{i}" for i in range(50))
    assert all(metadata[f"s{i}"] == {"data": i, "reason": f"r{i}", "status": "SUCCESS"}
               for i in range(50))
    assert json.loads(output_values(hc.stacks.get(stack_id))["data"]) == {
        f"s{i}": i for i in range(50)}

    # The same ids again, even with other contents: nothing changes, no event.
    _send_at_once(api, stack_id, [{"id": f"s{i}", "status": "FAILURE"} for i in range(10)])
    time.sleep(0.5)
    assert hc.resources.metadata(stack_id, "handle") == metadata
    assert len(_signal_events(hc, stack_id)) == 50
    assert hc.stacks.get(stack_id).stack_status == "CREATE_COMPLETE"


def test_signals_without_an_id_are_numbered(hc: Any) -> None:
    stack_id = _started(hc, "numbered", _template(2))
    hc.resources.signal(stack_id, "handle")
    hc.resources.signal(stack_id, "handle", data={"data": "two"})
    done = wait_status(hc, stack_id)
    assert done.stack_status == "CREATE_COMPLETE", done.stack_status_reason
    assert hc.resources.metadata(stack_id, "handle") == {
        "1": {"data": None, "reason": "Signal 1 received", "status": "SUCCESS"},
        "2": {"data": "two", "reason": "Signal 2 received", "status": "SUCCESS"}}
    assert json.loads(output_values(hc.stacks.get(stack_id))["data"]) == {"1": None,
                                                                         "2": "two"}
    assert sorted(_signal_events(hc, stack_id)) == [
        "Signal: status:SUCCESS reason:Signal 1 received",
        "Signal: status:SUCCESS reason:Signal 2 received"]


def test_a_failure_signal_fails_the_condition(hc: Any) -> None:
    stack_id = _started(hc, "wait-failing", _template(2))
    hc.resources.signal(stack_id, "handle", data={"status": "FAILURE", "reason": "disk full"})
    done = wait_status(hc, stack_id)
    assert done.stack_status == "CREATE_FAILED"
    wait = hc.resources.get(stack_id, "wait")
    assert wait.resource_status_reason == \
        "WaitConditionFailure: resources.wait: disk full"


def test_the_timeout_fails_the_condition_with_what_was_received(hc: Any) -> None:
    stack_id = _started(hc, "late", _template(2, timeout=2))
    hc.resources.signal(stack_id, "handle", data={"reason": "one is up"})
    done = wait_status(hc, stack_id, timeout=30)
    assert done.stack_status == "CREATE_FAILED"
    assert hc.resources.get(stack_id, "wait").resource_status_reason == \
        "WaitConditionTimeout: resources.wait: 1 of 2 received - one is up"

    stack_id = _started(hc, "silent", _template(1, timeout=1))
    assert wait_status(hc, stack_id, timeout=30).stack_status == "CREATE_FAILED"
    assert hc.resources.get(stack_id, "wait").resource_status_reason == \
        "WaitConditionTimeout: resources.wait: 0 of 1 received"


def test_a_signal_in_the_wrong_format_changes_nothing(hc: Any) -> None:
    stack_id = _started(hc, "wrong", _template(1))
    hc.resources.signal(stack_id, "handle", data={"status": "MAYBE"})
    hc.resources.signal(stack_id, "handle", data={"status": "SUCCESS", "extra": 1})
    time.sleep(0.5)
    assert hc.resources.metadata(stack_id, "handle") == {}
    assert hc.stacks.get(stack_id).stack_status == "CREATE_IN_PROGRESS"
    hc.resources.signal(stack_id, "handle", data={"id": "ok"})
    assert wait_status(hc, stack_id).stack_status == "CREATE_COMPLETE"


CFN = {
    "AWSTemplateFormatVersion": "2010-09-09",
    "Resources": {
        "handle": {"Type": "AWS::CloudFormation::WaitConditionHandle"},
        "wait": {"Type": "AWS::CloudFormation::WaitCondition", "Properties": {
            "Handle": {"Ref": "handle"}, "Count": 2, "Timeout": 120}},
    },
    "Outputs": {"Data": {"Value": {"Fn::GetAtt": ["wait", "Data"]}}},
}


def test_a_cfn_wait_condition(hc: Any) -> None:
    stack_id = _started(hc, "cfn", CFN)
    hc.resources.signal(stack_id, "handle", data={"status": "SUCCESS"})  # not CFN's keys
    hc.resources.signal(stack_id, "handle", data={
        "Status": "SUCCESS", "UniqueId": "a", "Data": "first", "Reason": "r1"})
    hc.resources.signal(stack_id, "handle", data={
        "Status": "SUCCESS", "UniqueId": "a", "Data": "again", "Reason": "r1"})
    time.sleep(0.3)
    assert hc.stacks.get(stack_id).stack_status == "CREATE_IN_PROGRESS"
    hc.resources.signal(stack_id, "handle", data={
        "Status": "SUCCESS", "UniqueId": "b", "Data": "second", "Reason": "r2"})
    done = wait_status(hc, stack_id)
    assert done.stack_status == "CREATE_COMPLETE", done.stack_status_reason
    assert hc.resources.metadata(stack_id, "handle") == {
        "a": {"Data": "first", "Reason": "r1", "Status": "SUCCESS"},
        "b": {"Data": "second", "Reason": "r2", "Status": "SUCCESS"}}
    assert json.loads(output_values(hc.stacks.get(stack_id))["Data"]) == {
        "a": "first", "b": "second"}


def test_a_scaling_policy_applies_an_alarm_id_once(hc: Any) -> None:
    from tests.api.test_autoscaling import TEMPLATE, _members, _wait_scaled

    stack_id = create_complete(hc, TEMPLATE)
    hc.resources.signal(stack_id, "scale_up_policy", data={"id": "alarm-1"})
    _wait_scaled(hc, stack_id, 4)
    hc.resources.signal(stack_id, "scale_up_policy", data={"id": "alarm-1"})
    time.sleep(0.5)
    assert len(_members(hc, stack_id)) == 4
    hc.resources.signal(stack_id, "scale_up_policy", data={"id": "alarm-2"})
    _wait_scaled(hc, stack_id, 5)


def test_a_signal_after_the_wait_shows_in_the_data_read_since(hc: Any) -> None:
    stack_id = _started(hc, "later", _template(1))
    hc.resources.signal(stack_id, "handle", data={"id": "a", "data": "first"})
    assert wait_status(hc, stack_id).stack_status == "CREATE_COMPLETE"
    assert json.loads(output_values(hc.stacks.get(stack_id))["data"]) == {"a": "first"}
    hc.resources.signal(stack_id, "handle", data={"id": "b", "data": "second"})
    deadline = time.monotonic() + 10
    while json.loads(output_values(hc.stacks.get(stack_id))["data"]) != {
            "a": "first", "b": "second"}:
        assert time.monotonic() < deadline, "the output kept the data stored before"
        time.sleep(0.05)
    shown = hc.resources.get(stack_id, "wait").attributes["data"]
    assert json.loads(shown) == {"a": "first", "b": "second"}


def test_an_update_that_raises_the_count_waits_for_the_rest(hc: Any) -> None:
    stack_id = _started(hc, "more", _template(1))
    hc.resources.signal(stack_id, "handle", data={"id": "a"})
    assert wait_status(hc, stack_id).stack_status == "CREATE_COMPLETE"
    hc.stacks.update(stack_id, template=_template(2))
    time.sleep(0.5)
    assert hc.stacks.get(stack_id).stack_status == "UPDATE_IN_PROGRESS"
    hc.resources.signal(stack_id, "handle", data={"id": "b"})
    done = wait_status(hc, stack_id)
    assert done.stack_status == "UPDATE_COMPLETE", done.stack_status_reason


def test_an_update_handle_is_new_after_every_update(hc: Any) -> None:
    def template(count: int) -> dict[str, Any]:
        return {"heat_template_version": VERSION, "resources": {
            "handle": {"type": "OS::Heat::UpdateWaitConditionHandle"},
            "wait": {"type": "OS::Heat::WaitCondition", "properties": {
                "handle": {"get_resource": "handle"}, "count": count, "timeout": 120}}}}

    cfn_signal = {"Status": "SUCCESS", "UniqueId": "1", "Data": "d", "Reason": "r"}
    stack_id = _started(hc, "renewed", template(1))
    hc.resources.signal(stack_id, "handle", data=cfn_signal)
    assert wait_status(hc, stack_id).stack_status == "CREATE_COMPLETE"
    before = hc.resources.get(stack_id, "handle").physical_resource_id
    hc.stacks.update(stack_id, template=template(1))
    deadline = time.monotonic() + 30
    while hc.resources.get(stack_id, "handle").physical_resource_id == before:
        assert time.monotonic() < deadline, "the handle was not replaced"
        time.sleep(0.05)
    assert hc.resources.metadata(stack_id, "handle") == {}
    time.sleep(0.3)
    assert hc.stacks.get(stack_id).stack_status == "UPDATE_IN_PROGRESS"
    hc.resources.signal(stack_id, "handle", data=cfn_signal)
    done = wait_status(hc, stack_id)
    assert done.stack_status == "UPDATE_COMPLETE", done.stack_status_reason

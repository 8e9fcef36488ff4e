"""The wait condition's decisions, pure: a signal's merge into the handle's metadata
(HOT defaults, numbering, CFN's strict format) and what the condition decides."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hotplate.resources import wait_condition_data as wcd
from hotplate.resources.signals import signal_id
from hotplate.resources.wait_condition import handle_identity
from hotplate.resources.wait_condition_handle import (
    CfnWaitConditionHandle,
    HeatWaitConditionHandle,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _hot(details: Any, metadata: dict[str, Any]) -> dict[str, Any]:
    merged, _ = wcd.merge_signal(wcd.HOT_KEYS, wcd.normalise_hot_signal(details, metadata),
                                 metadata)
    return merged


def test_a_hot_signal_gets_heats_defaults() -> None:
    assert wcd.normalise_hot_signal(None, {}) == {
        "data": None, "reason": "Signal 1 received", "id": 1, "status": "SUCCESS"}
    assert wcd.normalise_hot_signal({"data": "x"}, {"1": {}, "2": {}}) == {
        "data": "x", "reason": "Signal 3 received", "id": 3, "status": "SUCCESS"}
    given_all = {"data": 1, "reason": "r", "id": "a", "status": "FAILURE"}
    assert wcd.normalise_hot_signal(given_all, {}) == given_all


def test_signals_merge_under_their_id_and_without_one_are_numbered() -> None:
    metadata = _hot({"id": "web", "data": "up"}, {})
    metadata = _hot(None, metadata)
    metadata = _hot({"status": "FAILURE", "reason": "no"}, metadata)
    assert metadata == {
        "web": {"data": "up", "reason": "Signal 1 received", "status": "SUCCESS"},
        "2": {"data": None, "reason": "Signal 2 received", "status": "SUCCESS"},
        "3": {"data": None, "reason": "no", "status": "FAILURE"}}


def test_a_merge_keeps_what_it_was_given() -> None:
    before = {"a": {"data": 1, "reason": "r", "status": "SUCCESS"}}
    merged, entry = wcd.merge_signal(wcd.HOT_KEYS, {"id": "b", "data": 2, "reason": "s",
                                                    "status": "SUCCESS"}, before)
    assert before == {"a": {"data": 1, "reason": "r", "status": "SUCCESS"}}
    assert entry == {"id": "b", "data": 2, "reason": "s", "status": "SUCCESS"}
    assert set(merged) == {"a", "b"}


@pytest.mark.parametrize("signal", [
    {"Status": "SUCCESS", "UniqueId": "a", "Data": "d"},  # no Reason
    {"Status": "DONE", "UniqueId": "a", "Data": "d", "Reason": "r"},
    {"Status": "SUCCESS", "UniqueId": "a", "Data": "d", "Reason": "r", "More": 1},
    "SUCCESS",
    None,
])
def test_a_cfn_signal_must_have_exactly_cfns_keys(signal: Any) -> None:
    with pytest.raises(wcd.InvalidSignal, match=r"^Metadata format invalid$"):
        wcd.merge_signal(wcd.CFN_KEYS, signal, {})


def test_a_hot_signal_with_unknown_keys_or_status_is_invalid() -> None:
    for details in ({"status": "MAYBE"}, {"extra": 1}):
        with pytest.raises(wcd.InvalidSignal):
            _hot(details, {})


def test_the_event_text_is_heats() -> None:
    assert wcd.signal_reason(wcd.HOT_KEYS, {"status": "SUCCESS", "reason": "ok"}) == \
        "status:SUCCESS reason:ok"


@pytest.mark.parametrize(("statuses", "count", "elapsed", "expected"), [
    ([], 1, 0, wcd.Waiting.WAITING),
    (["SUCCESS"], 2, 10, wcd.Waiting.WAITING),
    (["SUCCESS", "SUCCESS"], 2, 10, wcd.Waiting.SUCCEEDED),
    (["SUCCESS", "SUCCESS", "SUCCESS"], 2, 10, wcd.Waiting.SUCCEEDED),
    (["SUCCESS", "FAILURE"], 1, 10, wcd.Waiting.FAILED),
    (["SUCCESS", "SUCCESS"], 2, 61, wcd.Waiting.TIMED_OUT),  # Heat checks the time first
    ([], 1, 60, wcd.Waiting.WAITING),
])
def test_what_the_condition_decides(statuses: list[str], count: int, elapsed: int,
                                    expected: wcd.Waiting) -> None:
    metadata = {str(i): {"data": None, "reason": "r", "status": s}
                for i, s in enumerate(statuses)}
    now = T0 + timedelta(seconds=elapsed)
    assert wcd.wait_state(wcd.HOT_KEYS, metadata, count, T0, 60, now) is expected


def test_timeout_and_failure_texts_are_heats() -> None:
    keys = wcd.HOT_KEYS
    assert wcd.timeout_text(keys, {}, 1) == "0 of 1 received"
    metadata = {"1": {"data": None, "reason": "up", "status": "SUCCESS"},
                "2": {"data": None, "reason": "also up", "status": "SUCCESS"},
                "3": {"data": None, "reason": "disk", "status": "FAILURE"},
                "4": {"data": None, "reason": "net", "status": "FAILURE"}}
    assert wcd.timeout_text(keys, metadata, 5) == "2 of 5 received - up;also up"
    assert wcd.failure_text(keys, metadata) == "disk;net"


def test_the_data_attribute_maps_ids_to_data() -> None:
    metadata = {"a": {"Data": "x", "Reason": "r", "Status": "SUCCESS"},
                "b": {"Data": None, "Reason": "r", "Status": "SUCCESS"}}
    assert json.loads(wcd.data_attribute(wcd.CFN_KEYS, metadata)) == {"a": "x", "b": None}
    assert wcd.data_attribute(wcd.HOT_KEYS, {}) == "{}"


@given(st.lists(st.one_of(st.none(), st.text(min_size=1, max_size=3)), max_size=20))
def test_every_signal_is_counted_once_by_its_id(ids: list[str | None]) -> None:
    """Whatever mix of ids and numbered signals, the merged count is the distinct
    ids given plus one per numbered signal, unless a number meets a given id."""
    metadata: dict[str, Any] = {}
    for given_id in ids:
        details = {} if given_id is None else {"id": given_id}
        metadata = _hot(details, metadata)
    assert len(metadata) <= len(ids)
    assert {i for i in ids if i is not None} <= set(metadata)


def test_the_id_a_handle_dedups_by() -> None:
    assert signal_id(HeatWaitConditionHandle, {"id": 7}) == "7"
    assert signal_id(HeatWaitConditionHandle, {"UniqueId": "x"}) is None
    assert signal_id(CfnWaitConditionHandle, {"UniqueId": "x", "id": "y"}) == "x"
    assert signal_id(HeatWaitConditionHandle, None) is None
    assert signal_id(HeatWaitConditionHandle, {"id": {"nested": 1}}) is None


def test_a_handle_url_names_its_resource() -> None:
    url = ("http://127.0.0.1:8000/v1/waitcondition/arn%3Aopenstack%3Aheat%3A%3Ademo%3A"
           "stacks%2Fmy-stack%2F0a1b%2Fresources%2Fhandle?Timestamp=1&Signature=x")
    assert handle_identity(url) == ("demo", "my-stack", "0a1b", "handle")
    with pytest.raises(ValueError, match='"handle" is not a valid URL'):
        handle_identity("handle")
    with pytest.raises(ValueError, match="is not a valid ARN URL"):
        handle_identity("http://h/v1/waitcondition/nothing")
    with pytest.raises(ValueError, match=r"is not a valid ARN$"):
        handle_identity("http://h/v1/waitcondition/arn%3Aopenstack%3Aheat%3A%3Ademo%3Ax")

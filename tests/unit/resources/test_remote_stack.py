"""OS::Heat::Stack's choice of who makes its stack, and Heat's readings of a remote stack.

Pure: the region decision over a context whose cloud is only a region, the remote
stack's states as Heat's RemoteStack reads them, and failures named and worded as
heatclient's. The remote API itself is exercised against a second hotplate in
``tests/cloud/test_remote_region_stack.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest

from hotplate.resources.heat_stack import REGION_KEY, HeatStack
from hotplate.resources.remote_heat import (
    ResourceInError,
    ResourceUnknownStatus,
    action_done,
    heat_error,
    heat_message,
)
from tests.unit.resources.fakes import FakeContext, make

TEMPLATE = "heat_template_version: 2013-05-23\n"


@dataclass
class RegionContext(FakeContext):
    """A context whose stack cloud is in ``region`` (None: no region configured)."""

    region: str | None = None

    @property
    def cloud(self) -> Any:
        return SimpleNamespace(region=self.region)


def _stack(own: str | None, wanted: str | None, *, resource_id: str | None = None,
           recorded: str | None = None) -> HeatStack:
    ctx = RegionContext(region=own)
    if recorded is not None:
        ctx.stored[REGION_KEY] = recorded
    raw: dict[str, Any] = {"template": TEMPLATE}
    if wanted is not None:
        raw["context"] = {"region_name": wanted}
    made = make(HeatStack, raw, name="remote", ctx=ctx, resource_id=resource_id)
    assert isinstance(made, HeatStack)
    return made


@pytest.mark.parametrize(("own", "wanted", "expected"), [
    ("RegionOne", "RegionTwo", "RegionTwo"),   # another region: its Heat makes it
    ("RegionOne", "RegionOne", None),          # this engine's region
    ("RegionOne", None, None),                 # no region asked for
    (None, "RegionTwo", None),                 # an engine told no region of its own
])
def test_a_new_stack_goes_to_another_region_only(own: str | None, wanted: str | None,
                                                 expected: str | None) -> None:
    assert _stack(own, wanted).remote_region() == expected


def test_a_made_stack_stays_where_it_was_made() -> None:
    # the engine's region changed since (or was never set): the recorded region wins
    assert _stack(None, "RegionTwo", resource_id="x", recorded="RegionTwo"
                  ).remote_region() == "RegionTwo"
    # made by this engine (nothing recorded), whatever the property says now
    assert _stack("RegionOne", "RegionTwo", resource_id="x").remote_region() is None


def test_a_context_without_a_cloud_is_this_engines() -> None:
    made = make(HeatStack, {"template": TEMPLATE, "context": {"region_name": "RegionTwo"}})
    assert isinstance(made, HeatStack)
    assert made.remote_region() is None


@pytest.mark.parametrize(("status", "action", "done"), [
    ("CREATE_COMPLETE", "CREATE", True),
    ("CREATE_IN_PROGRESS", "CREATE", False),
    ("CREATE_COMPLETE", "UPDATE", False),      # the update has not begun there yet
    ("UPDATE_FAILED", "CREATE", False),
    ("SUSPEND_COMPLETE", "SUSPEND", True),
    ("DELETE_COMPLETE", "DELETE", True),
])
def test_action_done_as_heat_reads_the_remote_stack(status: str, action: str,
                                                    done: bool) -> None:
    assert action_done({"stack_status": status}, action) is done


def test_a_failed_remote_stack_is_resource_in_error_with_its_reason() -> None:
    reason = "Resource CREATE failed: ValueError: resources.b: boom"
    with pytest.raises(ResourceInError) as failed:
        action_done({"stack_status": "CREATE_FAILED", "stack_status_reason": reason},
                    "CREATE")
    assert str(failed.value) == f'Went to status CREATE_FAILED due to "{reason}"'


def test_an_unknown_status_is_heats_unknown_status() -> None:
    with pytest.raises(ResourceUnknownStatus) as odd:
        action_done({"stack_status": "CREATE_WEIRD", "stack_status_reason": "r"}, "CREATE")
    assert str(odd.value) == 'Resource failed - Unknown status CREATE_WEIRD due to "r"'


class _Classified(Exception):
    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@pytest.mark.parametrize(("status", "name"), [
    (400, "HTTPBadRequest"), (403, "HTTPForbidden"), (404, "HTTPNotFound"),
    (409, "HTTPConflict"), (418, "HTTPException"),
])
def test_a_refusal_is_named_as_heatclient_names_it(status: int, name: str) -> None:
    error = heat_error(_Classified("x", status), "The Stack (s) could not be found.")
    assert type(error).__name__ == name
    assert isinstance(error, _Classified)  # still the client layer's kind
    assert str(error) == "ERROR: The Stack (s) could not be found."
    assert getattr(error, "status", None) == status


class _Response:
    def __init__(self, body: Any, text: str = "") -> None:
        self._body, self.text = body, text

    def json(self) -> Any:
        if self._body is None:
            raise ValueError("not JSON")
        return self._body


def test_heat_message_reads_heats_fault_else_the_text() -> None:
    fault = {"code": 400, "error": {"message": "bad", "type": "StackValidationFailed"},
             "title": "Bad Request"}
    assert heat_message(_Response(fault)) == "bad"
    assert heat_message(_Response(None, "<html>oops</html>")) == "<html>oops</html>"


@pytest.mark.parametrize(("old", "new", "replace"), [
    ({"region_name": "RegionTwo"}, {"region_name": "RegionThree"}, True),
    ({"region_name": "RegionTwo"}, {"region_name": "RegionTwo", "insecure": True}, False),
    ({"region_name": "RegionTwo"}, {"region_name": "RegionTwo", "ca_cert": "PEM"}, False),
    (None, {"region_name": "RegionTwo"}, True),
])
def test_only_a_new_region_replaces_the_stack(old: Any, new: Any, replace: bool) -> None:
    before = {"template": TEMPLATE, "context": old}
    after = {"template": TEMPLATE, "context": new}
    assert HeatStack.needs_replace_with_prop_diff(frozenset({"context"}), after,
                                                  before) is replace
    assert HeatStack.properties_schema["context"].update_allowed

"""Environments and registries as Heat's functional tests use them, through python-heatclient.

After Heat's test_update_restricted (``restricted_actions``), test_immutable_parameters,
test_default_parameters (a provider template's parameter defaults against the parent's
``parameter_defaults``) and test_create_update's type changes through the registry
(an alias onto the same plugin keeps the resource; another provider template keeps the
nested stack).
"""

from __future__ import annotations

import copy
import json
import uuid
from typing import Any

import pytest
import yaml
from heatclient import exc

from tests.api.helpers import wait_status

BAR = {
    "heat_template_version": "2013-05-23",
    "resources": {"bar": {"type": "OS::Heat::TestResource",
                          "properties": {"value": "1234", "update_replace": False}}},
}
BOTH_RESTRICTED = {"resource_registry": {"resources": {
    "bar": {"restricted_actions": ["update", "replace"]}}}}
REPLACE_RESTRICTED = {"resource_registry": {"resources": {
    "*ar": {"restricted_actions": "replace"}}}}
UPDATE_REFUSED = "update is restricted for resource."
REPLACE_REFUSED = "replace is restricted for resource."


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _create(hc: Any, prefix: str, **kwargs: Any) -> str:
    sid = str(hc.stacks.create(stack_name=_name(prefix), **kwargs)["stack"]["id"])
    stack = wait_status(hc, sid)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    return sid


def _update(hc: Any, sid: str, expected: str, **kwargs: Any) -> Any:
    """Update (the stack is UPDATE_IN_PROGRESS once the call returns) and wait for the end."""
    hc.stacks.update(sid, disable_rollback=True, **kwargs)
    stack = wait_status(hc, sid)
    assert stack.stack_status == expected, stack.stack_status_reason
    return stack


def _refusals(hc: Any, sid: str, reason: str) -> int:
    events = hc.events.list(sid, resource_name="bar")
    found = [e for e in events if e.resource_status_reason == reason]
    assert all(e.resource_status == "UPDATE_FAILED" for e in found)
    return len(found)


def _status(hc: Any, sid: str, name: str = "bar") -> str:
    return str(hc.resources.get(sid, name).resource_status)


# -- restricted_actions ---------------------------------------------------------------


def test_a_restricted_update_fails_the_stack_and_leaves_the_resource(hc: Any) -> None:
    sid = _create(hc, "restrict-update", template=BAR)
    changed = copy.deepcopy(BAR)
    changed["resources"]["bar"]["properties"]["value"] = "4567"

    stack = _update(hc, sid, "UPDATE_FAILED", template=changed, environment=BOTH_RESTRICTED)
    assert stack.stack_status_reason == (
        "Resource UPDATE failed: ResourceActionRestricted: resources.bar: "
        "update is restricted for resource.")
    assert _status(hc, sid) == "CREATE_COMPLETE"
    assert _refusals(hc, sid, UPDATE_REFUSED) == 1

    # Only replace restricted (by a name pattern): an update in place goes on.
    _update(hc, sid, "UPDATE_COMPLETE", template=changed, environment=REPLACE_RESTRICTED)
    assert _status(hc, sid) == "UPDATE_COMPLETE"
    assert _refusals(hc, sid, UPDATE_REFUSED) == 1
    assert _refusals(hc, sid, REPLACE_REFUSED) == 0


@pytest.mark.parametrize("change", ["replace", "type"])
def test_a_restricted_replacement_fails_however_it_is_needed(hc: Any, change: str) -> None:
    sid = _create(hc, f"restrict-{change}", template=BAR)
    first = hc.resources.get(sid, "bar").physical_resource_id
    changed = copy.deepcopy(BAR)
    if change == "replace":
        changed["resources"]["bar"]["properties"].update(value="4567", update_replace=True)
    else:
        changed["resources"]["bar"]["type"] = "OS::Heat::None"

    for count, env in enumerate((BOTH_RESTRICTED, REPLACE_RESTRICTED), start=1):
        stack = _update(hc, sid, "UPDATE_FAILED", template=changed, environment=env)
        assert stack.stack_status_reason == (
            "Resource UPDATE failed: ResourceActionRestricted: resources.bar: "
            "replace is restricted for resource.")
        assert _status(hc, sid) == "CREATE_COMPLETE"
        assert _refusals(hc, sid, REPLACE_REFUSED) == count
        assert _refusals(hc, sid, UPDATE_REFUSED) == 0

    # Without the restriction the replacement is made.
    _update(hc, sid, "UPDATE_COMPLETE", template=changed)
    assert hc.resources.get(sid, "bar").physical_resource_id != first


def test_the_registry_refuses_an_unknown_restricted_action(hc: Any) -> None:
    env = {"resource_registry": {"resources": {"bar": {"restricted_actions": ["delete"]}}}}
    with pytest.raises(exc.HTTPBadRequest, match="Invalid restricted_action type"):
        hc.stacks.create(stack_name=_name("restrict-bad"), template=BAR, environment=env)


# -- immutable parameters -------------------------------------------------------------


IMMUTABLE = """
heat_template_version: 2014-10-16
parameters:
  param1:
    type: string
    default: default_value
    immutable: {immutable}
outputs:
  param1_output:
    value: {{ get_param: param1 }}
"""


def _output(hc: Any, sid: str) -> Any:
    return hc.stacks.get(sid).outputs[0]["output_value"]


def test_changing_an_immutable_parameter_is_refused(hc: Any) -> None:
    template = IMMUTABLE.format(immutable="true")
    sid = _create(hc, "immutable", template=template, parameters={"param1": "value1"})
    with pytest.raises(exc.HTTPBadRequest) as raised:
        hc.stacks.update(sid, template=template, parameters={"param1": "value2"})
    assert ("The following parameters are immutable and may not be updated: param1"
            in str(raised.value))
    assert hc.stacks.get(sid).stack_status == "CREATE_COMPLETE"
    assert _output(hc, sid) == "value1"

    # The same value again is no change; PATCH keeps it too.
    _update(hc, sid, "UPDATE_COMPLETE", template=template, parameters={"param1": "value1"})
    hc.stacks.update(sid, existing=True, template=template)
    assert wait_status(hc, sid).stack_status == "UPDATE_COMPLETE"
    assert _output(hc, sid) == "value1"


def test_a_mutable_parameter_changes(hc: Any) -> None:
    template = IMMUTABLE.format(immutable="false")
    sid = _create(hc, "mutable", template=template, parameters={"param1": "value1"})
    _update(hc, sid, "UPDATE_COMPLETE", template=template, parameters={"param1": "value2"})
    assert _output(hc, sid) == "value2"


# -- parameter defaults of a provider template -----------------------------------------


PARENT = """
heat_template_version: 2013-05-23
parameters:
  length:
    type: string
    default: 40
resources:
  random1:
    type: nested_random.yaml
  random2:
    type: OS::Heat::RandomString
    properties:
      length: {get_param: length}
outputs:
  random1:
    value: {get_attr: [random1, random1_value]}
  random2:
    value: {get_resource: random2}
"""
NESTED = """
heat_template_version: 2013-05-23
parameters:
  length:
    type: string
    default: 50
resources:
  random1:
    type: OS::Heat::RandomString
    properties:
      length: {get_param: length}
outputs:
  random1_value:
    value: {get_resource: random1}
"""


@pytest.mark.parametrize(
    ("param", "default", "nested_default", "expect1", "expect2"),
    [
        pytest.param(None, None, True, 50, 40, id="none"),
        pytest.param(None, 12, True, 12, 12, id="default"),
        pytest.param(15, 12, True, 12, 15, id="both"),
        pytest.param(None, 12, False, 12, 12, id="no_temp_default"),
    ],
)
def test_a_provider_template_takes_the_parents_parameter_defaults(
    hc: Any, param: int | None, default: int | None, nested_default: bool,
    expect1: int, expect2: int,
) -> None:
    env: dict[str, Any] = {"parameters": {}, "parameter_defaults": {}}
    if param:
        env["parameters"] = {"length": param}
    if default:
        env["parameter_defaults"] = {"length": default}
    nested = NESTED
    if not nested_default:
        parsed = yaml.safe_load(NESTED)
        del parsed["parameters"]["length"]["default"]
        nested = yaml.safe_dump(parsed)
    sid = _create(hc, "defaults", template=PARENT, files={"nested_random.yaml": nested},
                  environment=env)
    lengths = {o["output_key"]: len(o["output_value"]) for o in hc.stacks.get(sid).outputs}
    assert lengths == {"random1": expect1, "random2": expect2}


def test_a_provider_parameter_without_any_default_is_a_required_property(hc: Any) -> None:
    parsed = yaml.safe_load(NESTED)
    del parsed["parameters"]["length"]["default"]
    with pytest.raises(exc.HTTPBadRequest, match="Property length not assigned"):
        hc.stacks.create(stack_name=_name("defaults-missing"), template=PARENT,
                         files={"nested_random.yaml": yaml.safe_dump(parsed)})


def test_a_property_given_explicitly_wins_over_parameter_defaults(hc: Any) -> None:
    parent = yaml.safe_load(PARENT)
    parent["resources"]["random1"]["properties"] = {"length": 50}
    sid = _create(hc, "defaults-given", template=parent,
                  files={"nested_random.yaml": NESTED},
                  environment={"parameter_defaults": {"length": 12}})
    lengths = {o["output_key"]: len(o["output_value"]) for o in hc.stacks.get(sid).outputs}
    assert lengths == {"random1": 50, "random2": 12}


# -- a type changed through the registry -----------------------------------------------


PROVIDER_PARENT = {"heat_template_version": "2013-05-23", "description": "foo",
                   "resources": {"test1": {"type": "My::TestResource"}}}
RENAMED = copy.deepcopy(PROVIDER_PARENT)
RENAMED["resources"]["test1"]["type"] = "My::TestResource2"


def test_an_alias_renamed_onto_the_same_plugin_keeps_the_resource(hc: Any) -> None:
    env = {"resource_registry": {"My::TestResource": "OS::Heat::RandomString",
                                 "My::TestResource2": "OS::Heat::RandomString"}}
    sid = _create(hc, "alias-type", template=PROVIDER_PARENT, environment=env)
    before = hc.resources.get(sid, "test1")
    assert before.resource_type == "My::TestResource"
    _update(hc, sid, "UPDATE_COMPLETE", template=RENAMED, environment=env)
    after = hc.resources.get(sid, "test1")
    assert after.resource_type == "My::TestResource2"
    assert after.physical_resource_id == before.physical_resource_id
    assert after.attributes["value"] == before.attributes["value"]


def test_an_alias_mapped_onto_another_plugin_replaces_the_resource(hc: Any) -> None:
    env = {"resource_registry": {"My::TestResource": "OS::Heat::RandomString"}}
    sid = _create(hc, "alias-changes", template=PROVIDER_PARENT, environment=env)
    before = hc.resources.get(sid, "test1").physical_resource_id
    env = {"resource_registry": {"My::TestResource": "OS::Heat::TestResource"}}
    _update(hc, sid, "UPDATE_COMPLETE", template=PROVIDER_PARENT, environment=env)
    assert hc.resources.get(sid, "test1").physical_resource_id != before


def test_a_provider_type_renamed_keeps_its_nested_stack(hc: Any) -> None:
    provider = {"heat_template_version": "pike", "resources": {"test1": {
        "type": "OS::Heat::TestResource", "properties": {"value": "test_provider_template"}}}}
    files = {"provider.template": json.dumps(provider)}
    env = {"resource_registry": {"My::TestResource": "provider.template",
                                 "My::TestResource2": "provider.template"}}
    sid = _create(hc, "provider-type", template=PROVIDER_PARENT, files=files, environment=env)
    nested_id = hc.resources.get(sid, "test1").physical_resource_id
    inner = hc.resources.get(nested_id, "test1").physical_resource_id

    _update(hc, sid, "UPDATE_COMPLETE", template=RENAMED, files=files, environment=env)
    after = hc.resources.get(sid, "test1")
    assert (after.resource_type, after.physical_resource_id) == ("My::TestResource2", nested_id)
    assert hc.resources.get(nested_id, "test1").physical_resource_id == inner

"""``resource_registry.resources.<parent>.<child>`` reaches the parent's nested stack,
through python-heatclient.

Heat builds a nested stack's environment from its parent's, keeping under
``resources`` only what the entries matching the parent resource's name (by
pattern, then exactly) hold (environment.get_child_environment,
ResourceRegistry.remove_resources_except): so a hook, or a type mapping, set
for a resource inside a nested stack is written beside the nested stack's
parent resource.
"""

from __future__ import annotations

import time
from typing import Any

from tests.api.helpers import VERSION, create_complete, wait_status

PROVIDER = f"""
heat_template_version: {VERSION}
resources:
  inner:
    type: OS::Heat::TestResource
    properties: {{value: inside}}
  mapped:
    type: My::Value
    properties: {{value: mapped}}
"""

PARENT = {"heat_template_version": VERSION,
          "resources": {"nested": {"type": "provider.yaml"}}}


def _nested_id(hc: Any, stack_id: str) -> str:
    deadline = time.monotonic() + 30
    while True:
        found = hc.resources.get(stack_id, "nested").physical_resource_id
        if found:
            return str(found)
        assert time.monotonic() < deadline, "the nested stack was never made"
        time.sleep(0.05)


def _reasons(hc: Any, stack_id: str, name: str) -> list[str]:
    return [e.resource_status_reason for e in hc.events.list(stack_id, resource_name=name)]


def test_a_hook_on_a_nested_resource_pauses_it(hc: Any) -> None:
    env = {"resource_registry": {
        "My::Value": "OS::Heat::Value",
        "resources": {"nest*": {"inner": {"hooks": "pre-create"}}}}}
    created = hc.stacks.create(stack_name="nested-hooked", template=PARENT,
                               files={"provider.yaml": PROVIDER}, environment=env)
    stack_id = created["stack"]["id"]
    nested = _nested_id(hc, stack_id)
    paused = "CREATE paused until Hook pre-create is cleared"
    deadline = time.monotonic() + 30
    while paused not in _reasons(hc, nested, "inner"):
        assert time.monotonic() < deadline, "the nested resource was not paused"
        time.sleep(0.05)
    assert hc.stacks.get(stack_id).stack_status == "CREATE_IN_PROGRESS"
    assert hc.resources.get(nested, "mapped").resource_status == "CREATE_COMPLETE"
    hc.resources.signal(nested, "inner", data={"unset_hook": "pre-create"})
    assert wait_status(hc, stack_id).stack_status == "CREATE_COMPLETE"
    assert "Hook pre-create is cleared" in _reasons(hc, nested, "inner")


def test_a_type_mapping_for_a_nested_resource_applies_there_only(hc: Any) -> None:
    env = {"resource_registry": {
        "My::Value": "OS::Heat::Value",
        "resources": {"nested": {"mapped": {"My::Value": "OS::Heat::TestResource"}}}}}
    stack_id = create_complete(hc, PARENT, name="nested-mapped",
                               files={"provider.yaml": PROVIDER}, environment=env)
    nested = _nested_id(hc, stack_id)
    mapped = hc.resources.get(nested, "mapped")  # shown with its template's type name
    assert "output" in mapped.attributes and "value" not in mapped.attributes  # TestResource's
    shown = hc.stacks.environment(nested)["resource_registry"]["resources"]
    assert shown == {"mapped": {"My::Value": "OS::Heat::TestResource"}}

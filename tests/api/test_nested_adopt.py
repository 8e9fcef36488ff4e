"""Abandon and adopt of stack-backed resources, after Heat's functional tests.

Heat's abandon document gives a nested stack resource its child stack's
whole document (template, environment, resources...) in place of the plain
resource entry; adopting such an entry creates the child by adopting the
resources it lists (test_abandon_adopt.NestedStackAdoptTest,
test_resource_group.ResourceGroupAdoptTest,
test_template_resource.TemplateResourceAdoptTest).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from hotplate.app import embedded
from hotplate.engine.options import EngineOptions
from tests.api.conftest import Api, serving
from tests.api.helpers import wait_status

PARENT = """
heat_template_version: 2014-10-16
resources:
  parent_resource:
    type: OS::Heat::TestResource
    properties:
      value: parent_value
  nested:
    type: nested.yaml
outputs:
  parent_output:
    value: {get_attr: [parent_resource, output]}
  nested_output1:
    value: {get_attr: [nested, nested_output1]}
  nested_output2:
    value: {get_attr: [nested, nested_output2]}
"""

NESTED = """
heat_template_version: 2014-10-16
resources:
  nested_resource1:
    type: OS::Heat::TestResource
    properties:
      value: nested_value_1
  nested_resource2:
    type: OS::Heat::TestResource
    properties:
      value: nested_value_2
outputs:
  nested_output1:
    value: {get_attr: [nested_resource1, output]}
  nested_output2:
    value: {get_attr: [nested_resource2, output]}
"""

GROUP = """
heat_template_version: "2013-05-23"
resources:
  group1:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: OS::Heat::RandomString
outputs:
  test0:
    value: {get_attr: [group1, resource.0.value]}
  test1:
    value: {get_attr: [group1, resource.1.value]}
"""

CFN_MAIN = """
HeatTemplateFormatVersion: '2012-12-12'
Resources:
  the_nested:
    Type: the.yaml
    Properties:
      one: my_name
Outputs:
  identifier:
    Value: {Ref: the_nested}
  value:
    Value: {'Fn::GetAtt': [the_nested, the_str]}
"""

CFN_NESTED = """
HeatTemplateFormatVersion: '2012-12-12'
Parameters:
  one:
    Default: foo
    Type: String
Resources:
  RealRandom:
    Type: OS::Heat::RandomString
    Properties:
      salt: {Ref: one}
Outputs:
  the_str:
    Value: {'Fn::GetAtt': [RealRandom, value]}
"""


@pytest.fixture(scope="module")
def adopting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """A server with abandon and adopt on and Heat's default limits."""
    db = Path(tmp_path_factory.mktemp("nested-adopt")) / "hotplate.sqlite"
    options = EngineOptions(enable_stack_abandon=True, enable_stack_adopt=True)
    with serving(*embedded(f"sqlite:///{db}", workers=4, options=options)) as served:
        yield served


@pytest.fixture
def hc(adopting: Api) -> Any:
    return adopting.client()


def _outputs(hc: Any, stack: str) -> dict[str, Any]:
    found = hc.stacks.get(stack)
    return {o["output_key"]: o.get("output_value") for o in found.outputs}


def _created(hc: Any, name: str, template: str, files: dict[str, str]) -> None:
    hc.stacks.create(stack_name=name, template=template, files=files)
    found = wait_status(hc, name)
    assert found.stack_status == "CREATE_COMPLETE", found.stack_status_reason


def _adopted(hc: Any, name: str, data: dict[str, Any], **fields: Any) -> Any:
    """Adopt as Heat's functional tests do: no template of its own, rollback off."""
    hc.stacks.create(stack_name=name, files=fields.pop("files", {}), disable_rollback=True,
                     parameters={}, environment={}, adopt_stack_data=json.dumps(data))
    found = wait_status(hc, name)
    assert found.stack_status == "ADOPT_COMPLETE", found.stack_status_reason
    return found


def _physical_id(hc: Any, stack: str, resource: str) -> str:
    return str(hc.resources.get(stack, resource).physical_resource_id)


def _is_a_stack(hc: Any, stack: str, resource: str) -> str:
    """The child stack's id, checked as Heat's assert_resource_is_a_stack does: the
    resource's nested link names it, and it is a stack of the parent's."""
    found = hc.resources.get(stack, resource)
    href = next(link["href"] for link in found.links if link["rel"] == "nested")
    child_id = href.split("/")[-1]
    assert found.physical_resource_id == child_id
    child = hc.stacks.get(child_id, resolve_outputs=False)
    assert "/".join(href.split("/")[-2:]) == f"{child.stack_name}/{child.id}"
    assert child.parent == hc.stacks.get(stack).id
    return child_id


def test_a_nested_stack_abandons_as_its_childs_document(hc: Any) -> None:
    _created(hc, "nest-a", PARENT, {"nested.yaml": NESTED})
    child_id = _physical_id(hc, "nest-a", "nested")
    ids = {name: _physical_id(hc, child_id, name)
           for name in ("nested_resource1", "nested_resource2")}
    document = hc.stacks.abandon("nest-a")
    nested = document["resources"]["nested"]
    assert nested["id"] == child_id
    assert nested["name"] == hc.stacks.get(child_id).stack_name
    assert (nested["action"], nested["status"]) == ("CREATE", "COMPLETE")
    assert nested["template"]["resources"] == yaml.safe_load(NESTED)["resources"]
    assert {name: entry["resource_id"]
            for name, entry in nested["resources"].items()} == ids
    assert set(nested) >= {"name", "id", "action", "status", "template", "environment",
                           "resources"}
    plain = document["resources"]["parent_resource"]
    assert set(plain) == {"name", "resource_id", "type", "action", "status", "metadata",
                          "resource_data"}
    # The child is abandoned with its parent: gone from listings, its resources kept.
    assert hc.stacks.get(child_id).stack_status == "DELETE_COMPLETE"


def test_export_of_a_group_nests_its_members_document(hc: Any) -> None:
    _created(hc, "group-export", GROUP, {})
    document = hc.stacks.export("group-export")
    group = document["resources"]["group1"]
    assert group["id"] == _physical_id(hc, "group-export", "group1")
    assert set(group["resources"]) == {"0", "1"}
    assert group["resources"]["0"]["type"] == "OS::Heat::RandomString"
    assert group["resources"]["0"]["resource_data"]["value"]
    assert hc.stacks.get("group-export").stack_status == "CREATE_COMPLETE"


def test_adopt_nested_stack_resources(hc: Any) -> None:
    _created(hc, "nest-b", PARENT, {"nested.yaml": NESTED})
    before = _outputs(hc, "nest-b")
    nested = hc.stacks.abandon("nest-b")["resources"]["nested"]
    originals = {name: nested["resources"][name]["resource_id"]
                 for name in ("nested_resource1", "nested_resource2")}
    data = {"template": nested["template"], "resources": nested["resources"],
            "environment": {"parameters": {}}}
    _adopted(hc, "nest-b-new", data)
    after = _outputs(hc, "nest-b-new")
    assert after["nested_output1"] == before["nested_output1"]
    assert after["nested_output2"] == before["nested_output2"]
    assert {name: _physical_id(hc, "nest-b-new", name) for name in originals} == originals


def test_a_whole_parent_document_adopts_its_nested_stack(hc: Any) -> None:
    _created(hc, "nest-c", PARENT, {"nested.yaml": NESTED})
    before = _outputs(hc, "nest-c")
    document = hc.stacks.abandon("nest-c")
    originals = {name: entry["resource_id"]
                 for name, entry in document["resources"]["nested"]["resources"].items()}
    _adopted(hc, "nest-c-new", document, files={"nested.yaml": NESTED})
    assert _outputs(hc, "nest-c-new") == before
    child_id = _is_a_stack(hc, "nest-c-new", "nested")
    assert hc.stacks.get(child_id).stack_status == "ADOPT_COMPLETE"
    assert {name: _physical_id(hc, child_id, name) for name in originals} == originals
    resource = hc.resources.get("nest-c-new", "nested")
    assert resource.resource_status == "ADOPT_COMPLETE"


def test_resource_group_adopt(hc: Any) -> None:
    member = {"status": "COMPLETE", "action": "CREATE", "type": "OS::Heat::RandomString",
              "metadata": {}}
    data = {
        "resources": {"group1": {
            "status": "COMPLETE", "name": "group1", "resource_data": {}, "metadata": {},
            "resource_id": "test-group1-id", "action": "CREATE",
            "type": "OS::Heat::ResourceGroup",
            "resources": {
                "0": {**member, "name": "0", "resource_data": {"value": "goopie"},
                      "resource_id": "ID-0"},
                "1": {**member, "name": "1", "resource_data": {"value": "different"},
                      "resource_id": "ID-1"},
            },
        }},
        "environment": {"parameters": {}},
        "template": yaml.safe_load(GROUP),
    }
    _adopted(hc, "group-adopt", data)
    child_id = _is_a_stack(hc, "group-adopt", "group1")
    assert _outputs(hc, "group-adopt") == {"test0": "goopie", "test1": "different"}
    assert {r.resource_name: r.physical_resource_id
            for r in hc.resources.list(child_id)} == {"0": "ID-0", "1": "ID-1"}


def test_template_resource_abandon(hc: Any) -> None:
    _created(hc, "tmpl-abandon", CFN_MAIN, {"the.yaml": CFN_NESTED})
    info = hc.stacks.abandon("tmpl-abandon")
    assert info["template"] == yaml.safe_load(CFN_MAIN)
    assert info["resources"]["the_nested"]["template"] == yaml.safe_load(CFN_NESTED)


def test_template_resource_adopt(hc: Any) -> None:
    data = {
        "resources": {"the_nested": {
            "type": "the.yaml",
            "resources": {"RealRandom": {"type": "OS::Heat::RandomString",
                                         "resource_data": {"value": "goopie"},
                                         "resource_id": "froggy"}},
        }},
        "environment": {"parameters": {}},
        "template": yaml.safe_load(CFN_MAIN),
    }
    _adopted(hc, "tmpl-adopt", data, files={"the.yaml": CFN_NESTED})
    child_id = _is_a_stack(hc, "tmpl-adopt", "the_nested")
    assert _outputs(hc, "tmpl-adopt")["value"] == "goopie"
    assert _physical_id(hc, child_id, "RealRandom") == "froggy"


def test_a_stack_resource_the_document_lacks_fails_in_its_child(hc: Any) -> None:
    template = {**yaml.safe_load(PARENT), "heat_template_version": "2014-10-16"}
    document = {"template": template, "environment": {"parameters": {}},
                "resources": {"parent_resource": {"resource_id": "kept"}}}
    hc.stacks.create(stack_name="nest-missing", files={"nested.yaml": NESTED},
                     disable_rollback=True, adopt_stack_data=json.dumps(document))
    found = wait_status(hc, "nest-missing")
    assert found.stack_status == "ADOPT_FAILED"
    assert found.stack_status_reason == (
        "Resource ADOPT failed: Exception: resources.nested.resources.nested_resource1: "
        "Resource ID was not provided.")


def test_an_adopted_stack_keeps_the_abandoned_parameters(hc: Any) -> None:
    template = {"heat_template_version": "2015-04-30",
                "parameters": {"greeting": {"type": "string"}},
                "resources": {"v": {"type": "OS::Heat::Value",
                                    "properties": {"value": {"get_param": "greeting"}}}},
                "outputs": {"said": {"value": {"get_attr": ["v", "value"]}}}}
    data = {"name": "kept-params", "template": template,
            "environment": {"parameters": {"greeting": "from the document"}},
            "resources": {"v": {"name": "v", "type": "OS::Heat::Value", "resource_id": "v-1",
                                "action": "CREATE", "status": "COMPLETE",
                                "resource_data": {}, "metadata": {}}}}
    found = _adopted(hc, "kept-params", data)
    assert _outputs(hc, found.id)["said"] == "from the document"
    assert hc.stacks.get(found.id).parameters["greeting"] == "from the document"

"""Template resources as Heat's functional tests see them, through python-heatclient.

Attributes of the nested stack's own resources (``resource.<name>``), and a
provider template checked against the type it stands in for (its facade).
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from heatclient import exc

from tests.api.helpers import wait_status

MAIN = """
heat_template_version: 2014-10-16
resources:
  secret2:
    type: My::NestedSecret
outputs:
  old_way:
    value: { get_attr: [secret2, nested_str]}
  test_attr1:
    value: { get_attr: [secret2, resource.secret1, value]}
  test_attr2:
    value: { get_attr: [secret2, resource.secret1.value]}
  test_ref:
    value: { get_resource: secret2 }
"""
NESTED = """
heat_template_version: 2014-10-16
resources:
  secret1:
    type: OS::Heat::RandomString
outputs:
  nested_str:
    value: {get_attr: [secret1, value]}
"""
ENV = {"resource_registry": {"My::NestedSecret": "nested.yaml"}}

_names = (f"tmplres{i}" for i in itertools.count())


def _outputs(hc: Any, template: str, files: dict[str, str]) -> dict[str, Any]:
    created = hc.stacks.create(stack_name=next(_names), template=template, files=files,
                               environment=ENV)
    stack = wait_status(hc, created["stack"]["id"], timeout=60)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    return {o["output_key"]: o["output_value"] for o in stack.outputs}


def test_the_nested_stacks_resources_are_attributes(hc: Any) -> None:
    outputs = _outputs(hc, MAIN, {"nested.yaml": NESTED})
    assert len(outputs["old_way"]) == 32
    assert outputs["test_attr1"] == outputs["old_way"] == outputs["test_attr2"]
    assert outputs["test_ref"].startswith("arn:openstack:heat:")


def test_an_os_stack_id_output_is_the_reference(hc: Any) -> None:
    nested = NESTED.replace("outputs:\n", "outputs:\n  OS::stack_id:\n"
                            "    value: {get_resource: secret1}\n")
    outputs = _outputs(hc, MAIN, {"nested.yaml": nested})
    assert outputs["test_ref"] == outputs["old_way"]


FACADE_MAIN = """
heat_template_version: 2015-10-15
resources:
  thisone:
    type: OS::Thingy
    properties:
      one: pre
      two: post
outputs:
  one:
    value: {get_attr: [thisone, here-it-is]}
"""
FACADE = """
heat_template_version: 2015-04-30
parameters:
  one:
    type: string
  two:
    type: string
outputs:
  here-it-is:
    value: noop
"""
FACADE_ENV = {"resource_registry": {"OS::Thingy": "facade.yaml",
                                    "resources": {"thisone": {"OS::Thingy": "concrete.yaml"}}}}


@pytest.mark.parametrize(("concrete", "template", "message"), [
    (FACADE.replace("  two:\n    type: string\n", "").replace(
        "outputs:", "resources:\n  str:\n    type: OS::Heat::RandomString\noutputs:"),
     FACADE_MAIN.replace("      two: post\n", ""),
     "Required property two for facade OS::Thingy missing in provider"),
    (FACADE.split("outputs:")[0], FACADE_MAIN,
     "Attribute here-it-is for facade OS::Thingy missing in provider"),
], ids=["missing-parameter", "missing-output"])
def test_a_provider_must_fit_its_facade(hc: Any, concrete: str, template: str,
                                        message: str) -> None:
    with pytest.raises(exc.HTTPBadRequest) as raised:
        hc.stacks.create(stack_name=next(_names), template=template, environment=FACADE_ENV,
                         files={"facade.yaml": FACADE, "concrete.yaml": concrete})
    assert str(raised.value) == f"ERROR: {message}"


def test_a_provider_that_fits_its_facade_is_created(hc: Any) -> None:
    created = hc.stacks.create(stack_name=next(_names), template=FACADE_MAIN,
                               environment=FACADE_ENV,
                               files={"facade.yaml": FACADE, "concrete.yaml": FACADE})
    stack = wait_status(hc, created["stack"]["id"], timeout=60)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason


def test_a_patch_drops_stored_parameters_the_new_template_lacks(hc: Any) -> None:
    main = """
heat_template_version: 2013-05-23
parameters:
  value1: {type: string, default: foo}
resources:
  my_resource:
    type: resource.yaml
    properties:
       value1: {get_param: value1}
"""
    nested = """
heat_template_version: 2013-05-23
parameters:
  value1: {type: string, default: foo}
  value2: {type: string, default: bar}
resources:
  test:
    type: OS::Heat::TestResource
    properties:
      value:
        str_replace:
          template: VAL1-VAL2
          params: {VAL1: {get_param: value1}, VAL2: {get_param: value2}}
"""
    created = hc.stacks.create(stack_name=next(_names), template=main,
                               environment={"parameters": {"value1": "spam"}},
                               files={"resource.yaml": nested})
    stack_id = created["stack"]["id"]
    assert wait_status(hc, stack_id, timeout=60).stack_status == "CREATE_COMPLETE"
    hc.stacks.update(stack_id, template=main.split("parameters:")[0] + main.split(
        "default: foo}\n")[1].replace("    properties:\n       value1: {get_param: value1}\n", ""),
        environment={"parameter_defaults": {"value2": "egg"}},
        files={"resource.yaml": nested}, existing=True)
    stack = wait_status(hc, stack_id, timeout=60)
    assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    assert "value1" not in hc.stacks.environment(stack_id)["parameters"]
    child = hc.resources.get(stack_id, "my_resource").physical_resource_id
    assert hc.resources.get(child, "test").attributes["output"].startswith("foo-")


def test_a_provider_that_drops_a_property_keeps_its_stack(hc: Any) -> None:
    main = """
heat_template_version: 2013-05-23
resources:
  the_nested:
    type: the.yaml
    properties:
      one: my_name
outputs:
  identifier:
    value: {get_resource: the_nested}
"""
    provider = """
heat_template_version: 2013-05-23
parameters:
  one: {type: string, default: foo}
resources:
  NestedResource:
    type: OS::Heat::RandomString
"""
    created = hc.stacks.create(stack_name=next(_names), template=main,
                               files={"the.yaml": provider})
    stack_id = created["stack"]["id"]
    stack = wait_status(hc, stack_id, timeout=60)
    before = {o["output_key"]: o["output_value"] for o in stack.outputs}["identifier"]
    hc.stacks.update(stack_id, template=main.replace("    properties:\n      one: my_name\n",
                                                     ""),
                     files={"the.yaml": provider.replace(
                         "parameters:\n  one: {type: string, default: foo}\n", "")})
    stack = wait_status(hc, stack_id, timeout=60)
    assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    assert {o["output_key"]: o["output_value"] for o in stack.outputs}["identifier"] == before


def test_the_resource_limit_counts_the_whole_tree(limited: Any) -> None:
    hc = limited.client()
    def kid(n: int) -> str:
        return "heat_template_version: 2013-05-23\nresources:\n" + "".join(
            f"  r{i}: {{type: OS::Heat::None}}\n" for i in range(n))
    main = "heat_template_version: 2013-05-23\nresources:\n  kid: {type: kid.yaml}\n"
    fits = hc.stacks.create(stack_name=next(_names), template=main,
                            files={"kid.yaml": kid(2)})
    assert wait_status(hc, fits["stack"]["id"]).stack_status == "CREATE_COMPLETE"
    over = hc.stacks.create(stack_name=next(_names), template=main,
                            files={"kid.yaml": kid(3)})
    stack = wait_status(hc, over["stack"]["id"])
    assert stack.stack_status == "CREATE_FAILED"
    assert stack.stack_status_reason == (
        "Resource CREATE failed: RequestLimitExceeded: resources.kid: "
        "Request limit exceeded: Maximum resources per stack exceeded.")


def test_a_nested_stack_reference_is_a_stack_id_for_clients(hc: Any) -> None:
    outputs = _outputs(hc, MAIN, {"nested.yaml": NESTED})
    arn = outputs["test_ref"]
    secret = hc.resources.get(arn, "secret1")  # heatclient puts the ARN in the URL as it is
    assert secret.resource_type == "OS::Heat::RandomString"
    assert secret.attributes["value"] == outputs["old_way"]
    assert hc.stacks.get(arn).stack_status == "CREATE_COMPLETE"

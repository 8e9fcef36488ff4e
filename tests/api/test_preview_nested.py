"""Update previews of stacks with nested stacks, through python-heatclient.

The first four cases are Heat's functional tests (heat_integrationtests/
functional/test_preview_update.py, UpdatePreviewStackTestNested), checked as
they check them: with ``show_nested`` the lists hold the nested stacks'
resources too, each naming its ``parent_resource``. The others cover a
ResourceGroup's generated members, PATCH, and a preview without
``show_nested``; every one also checks that nothing was changed.
"""

from __future__ import annotations

import itertools
from typing import Any

import yaml
from heatclient.exc import HTTPBadRequest

from tests.api.helpers import wait_status

PARENT = """
heat_template_version: 2016-04-08
resources:
  nested1:
    type: nested1.yaml
"""
NESTED1 = """
heat_template_version: 2016-04-08
resources:
  nested2:
    type: nested2.yaml
"""
NESTED2 = """
heat_template_version: 2016-04-08
resources:
  random:
    type: OS::Heat::RandomString
"""
NESTED2_2 = """
heat_template_version: 2016-04-08
resources:
  random:
    type: OS::Heat::RandomString
  random2:
    type: OS::Heat::RandomString
"""
KINDS = ("added", "deleted", "replaced", "unchanged", "updated")

_names = (f"prevnest{i}" for i in itertools.count())


def _created(hc: Any, template: str, files: dict[str, str] | None = None) -> str:
    created = hc.stacks.create(stack_name=next(_names), template=template,
                               files=files or {})
    stack = wait_status(hc, created["stack"]["id"], timeout=60)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    return f"{stack.stack_name}/{stack.id}"


def _preview(hc: Any, stack: str, template: str | None = None,
             files: dict[str, str] | None = None, **kwargs: Any) -> dict[str, list[Any]]:
    if template is not None:
        kwargs["template"] = template
    changes: dict[str, list[Any]] = hc.stacks.preview_update(
        stack, files=files or {}, **kwargs)["resource_changes"]
    assert set(changes) == set(KINDS)
    return changes


def _by_name(changes: dict[str, list[Any]], name: str, kind: str) -> dict[str, Any]:
    found = [r for r in changes[kind] if r["resource_name"] == name]
    assert len(found) == 1, changes
    return dict(found[0])


def _empty(changes: dict[str, list[Any]], *kinds: str) -> None:
    for kind in kinds:
        assert changes[kind] == [], (kind, changes[kind])


def _tree(hc: Any, stack: str) -> list[tuple[str, str, str]]:
    """Every resource down the nested stacks: what a preview must leave as it was."""
    return sorted((r.resource_name, r.physical_resource_id, r.resource_status)
                  for r in hc.resources.list(stack, nested_depth=5))


def test_nested_resources_nochange(hc: Any) -> None:
    files = {"nested1.yaml": NESTED1, "nested2.yaml": NESTED2}
    stack = _created(hc, PARENT, files)
    before = _tree(hc, stack)
    changes = _preview(hc, stack, PARENT, files, show_nested=True)
    # Nested stacks are always updated; the random string inside them is not.
    assert len(changes["unchanged"]) == 1
    assert changes["unchanged"][0]["resource_name"] == "random"
    assert changes["unchanged"][0]["parent_resource"] == "nested2"
    assert len(changes["updated"]) == 2
    assert "parent_resource" not in _by_name(changes, "nested1", "updated")
    u_nested2 = _by_name(changes, "nested2", "updated")
    assert u_nested2["parent_resource"] == "nested1"
    # As stored: the nested stack it owns, under its own stack's identity.
    assert u_nested2["physical_resource_id"]
    assert u_nested2["nested_stack_id"]["stack_id"] == u_nested2["physical_resource_id"]
    assert u_nested2["stack_identity"]["stack_id"] == \
        _by_name(changes, "nested1", "updated")["physical_resource_id"]
    _empty(changes, "replaced", "deleted", "added")
    assert _tree(hc, stack) == before


def test_nested_resources_add(hc: Any) -> None:
    files = {"nested1.yaml": NESTED1, "nested2.yaml": NESTED2}
    stack = _created(hc, PARENT, files)
    before = _tree(hc, stack)
    files["nested2.yaml"] = NESTED2_2
    changes = _preview(hc, stack, PARENT, files, show_nested=True)
    assert [(r["resource_name"], r["parent_resource"]) for r in changes["unchanged"]] == \
        [("random", "nested2")]
    (added,) = changes["added"]
    assert (added["resource_name"], added["parent_resource"]) == ("random2", "nested2")
    assert (added["resource_action"], added["physical_resource_id"]) == ("INIT", "")
    assert sorted(r["resource_name"] for r in changes["updated"]) == ["nested1", "nested2"]
    _empty(changes, "replaced", "deleted")
    assert _tree(hc, stack) == before


def test_nested_resources_delete(hc: Any) -> None:
    files = {"nested1.yaml": NESTED1, "nested2.yaml": NESTED2_2}
    stack = _created(hc, PARENT, files)
    before = _tree(hc, stack)
    files["nested2.yaml"] = NESTED2
    changes = _preview(hc, stack, PARENT, files, show_nested=True)
    assert [(r["resource_name"], r["parent_resource"]) for r in changes["unchanged"]] == \
        [("random", "nested2")]
    (deleted,) = changes["deleted"]
    assert (deleted["resource_name"], deleted["parent_resource"]) == ("random2", "nested2")
    assert deleted["resource_status"] == "COMPLETE" and deleted["physical_resource_id"]
    _empty(changes, "replaced", "added")
    assert _tree(hc, stack) == before


def test_nested_resources_replace(hc: Any) -> None:
    files = {"nested1.yaml": NESTED1, "nested2.yaml": NESTED2}
    stack = _created(hc, PARENT, files)
    before = _tree(hc, stack)
    changes = _preview(hc, stack, PARENT.replace("nested1.yaml", "OS::Heat::None"),
                       show_nested=True)
    assert [r["resource_name"] for r in changes["replaced"]] == ["nested1"]
    assert len(changes["deleted"]) == 2
    assert _by_name(changes, "random", "deleted")["parent_resource"] == "nested2"
    assert _by_name(changes, "nested2", "deleted")["parent_resource"] == "nested1"
    _empty(changes, "updated", "unchanged", "added")
    assert _tree(hc, stack) == before


def test_a_replaced_nested_stack_brings_its_new_tree(hc: Any) -> None:
    """A type change from one template to another: the old tree goes, the new comes."""
    files = {"nested1.yaml": NESTED1, "nested2.yaml": NESTED2, "other.yaml": NESTED2_2}
    stack = _created(hc, PARENT, files)
    changes = _preview(hc, stack, PARENT.replace("nested1.yaml", "other.yaml"), files,
                       show_nested=True)
    assert [r["resource_name"] for r in changes["replaced"]] == ["nested1"]
    assert sorted((r["resource_name"], r["parent_resource"]) for r in changes["deleted"]) \
        == [("nested2", "nested1"), ("random", "nested2")]
    assert sorted((r["resource_name"], r["parent_resource"]) for r in changes["added"]) \
        == [("random", "nested1"), ("random2", "nested1")]
    _empty(changes, "updated", "unchanged")


def test_without_show_nested_the_nested_resource_is_updated(hc: Any) -> None:
    files = {"nested1.yaml": NESTED1, "nested2.yaml": NESTED2}
    stack = _created(hc, PARENT, files)
    files["nested2.yaml"] = NESTED2_2
    changes = _preview(hc, stack, PARENT, files)
    assert [r["resource_name"] for r in changes["updated"]] == ["nested1"]
    _empty(changes, "added", "deleted", "replaced", "unchanged")


def test_patch_preview_with_show_nested(hc: Any) -> None:
    """PATCH keeps the stored template; the files sent change the nested one."""
    files = {"nested1.yaml": NESTED1, "nested2.yaml": NESTED2}
    stack = _created(hc, PARENT, files)
    before = _tree(hc, stack)
    changes = _preview(hc, stack, files={"nested2.yaml": NESTED2_2}, existing=True,
                       show_nested=True)
    assert [(r["resource_name"], r["parent_resource"]) for r in changes["added"]] == \
        [("random2", "nested2")]
    assert [r["resource_name"] for r in changes["unchanged"]] == ["random"]
    assert sorted(r["resource_name"] for r in changes["updated"]) == ["nested1", "nested2"]
    _empty(changes, "replaced", "deleted")
    assert _tree(hc, stack) == before


GROUP = {
    "heat_template_version": "2016-04-08",
    "resources": {"group": {"type": "OS::Heat::ResourceGroup", "properties": {
        "count": 3,
        "resource_def": {"type": "OS::Heat::RandomString", "properties": {"length": 8}},
    }}},
}


def _group(**properties: Any) -> str:
    template: dict[str, Any] = yaml.safe_load(yaml.safe_dump(GROUP))
    template["resources"]["group"]["properties"].update(properties)
    return yaml.safe_dump(template)


def _named(changes: dict[str, list[Any]], kind: str) -> list[tuple[str, str | None]]:
    return sorted((r["resource_name"], r.get("parent_resource")) for r in changes[kind])


def test_resource_group_members_are_previewed(hc: Any) -> None:
    stack = _created(hc, _group())
    before = _tree(hc, stack)
    grown = _preview(hc, stack, _group(count=4), show_nested=True)
    assert _named(grown, "updated") == [("group", None)]
    assert _named(grown, "unchanged") == [("0", "group"), ("1", "group"), ("2", "group")]
    assert _named(grown, "added") == [("3", "group")]
    _empty(grown, "deleted", "replaced")
    # A member's change that needs a new random string replaces every member.
    renewed = _preview(hc, stack, _group(resource_def={
        "type": "OS::Heat::RandomString", "properties": {"length": 9}}), show_nested=True)
    assert _named(renewed, "replaced") == [("0", "group"), ("1", "group"), ("2", "group")]
    assert _named(renewed, "updated") == [("group", None)]
    # Removal policies take their names out first, as the update would.
    removed = _preview(hc, stack, _group(count=2, removal_policies=[{"resource_list": ["1"]}]),
                       show_nested=True)
    assert _named(removed, "unchanged") == [("0", "group"), ("2", "group")]
    assert _named(removed, "deleted") == [("1", "group")]
    _empty(removed, "added", "replaced")
    # ...and a preview records none of it: the same group again changes nothing.
    again = _preview(hc, stack, _group(), show_nested=True)
    assert _named(again, "unchanged") == [("0", "group"), ("1", "group"), ("2", "group")]
    _empty(again, "added", "deleted", "replaced")
    assert _tree(hc, stack) == before


def _flat_names(resources: list[Any]) -> list[str]:
    """The resource names of a create preview, nested lists flattened."""
    found: list[str] = []
    for item in resources:
        found.extend(_flat_names(item) if isinstance(item, list) else [item["resource_name"]])
    return found


def test_a_create_preview_shows_a_template_resource_as_its_resources(hc: Any) -> None:
    # heat-tempest-plugin's StackPreviewTest.test_nested_pass, checked as it checks it.
    nested = """
heat_template_version: 2015-04-30
parameters:
  value: {type: string}
resources:
  nested:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: value}
"""
    main = """
heat_template_version: 2015-04-30
resources:
  main:
    type: nested.yaml
    properties:
      value: abc
"""
    result = hc.stacks.preview(stack_name="prevcreate", template=main,
                               files={"nested.yaml": nested}).to_dict()
    res = result["resources"][0][0]
    assert res["parent_resource"] == "main"
    assert res["resource_identity"]["stack_name"] == "prevcreate-main"
    assert res["stack_identity"]["stack_name"] == "prevcreate-main"
    assert res["resource_identity"]["stack_id"] == "None"
    assert res["properties"]["value"] == "abc"
    assert (res["resource_type"], res["required_by"]) == ("OS::Heat::TestResource", [])
    assert list(hc.stacks.list(filters={"name": "prevcreate"})) == []


def test_a_create_preview_expands_a_group_and_its_template_members(hc: Any) -> None:
    # heat-tempest-plugin's test_res_group_with_nested_template, with a type of Heat's own.
    main = """
heat_template_version: 2015-04-30
resources:
  fixed:
    type: OS::Heat::RandomString
  rg:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: member.yaml
        properties:
          word: {get_resource: fixed}
"""
    member = """
heat_template_version: 2015-04-30
parameters:
  word: {type: string}
resources:
  leaf:
    type: OS::Heat::Value
    properties: {value: {get_param: word}}
"""
    result = hc.stacks.preview(stack_name="prevgroup", template=main,
                               files={"member.yaml": member}).to_dict()
    assert sorted(_flat_names(result["resources"])) == ["fixed", "leaf", "leaf"]
    fixed, group = result["resources"]
    assert fixed["resource_name"] == "fixed"
    assert [[leaf["parent_resource"] for leaf in m] for m in group] == [["0"], ["1"]]


def _chain(levels: int) -> tuple[str, dict[str, str]]:
    """A template resource in a template resource... ``levels`` stacks deep, the last
    holding an OS::Heat::None."""
    files = {}
    for i in range(1, levels + 1):
        inner = f"level{i + 1}.yaml" if i < levels else "OS::Heat::None"
        files[f"level{i}.yaml"] = (f"heat_template_version: 2015-04-30\n"
                                   f"resources:\n  r{i}:\n    type: {inner}\n")
    return "heat_template_version: 2015-04-30\nresources:\n  top:\n    type: level1.yaml\n", files


def _depth(resources: list[Any]) -> int:
    """How many lists deep a create preview holds its deepest resource."""
    return 1 + max((_depth(item) for item in resources if isinstance(item, list)), default=0)


def test_a_create_preview_goes_as_deep_as_heat_allows_and_refuses_deeper(hc: Any) -> None:
    # Heat's max_nested_stack_depth (5): five stacks under the root are previewed, each
    # resource in its own stack's list; a sixth is refused before anything, as Heat's
    # validation refuses it (heat/tests/test_nested_stack.py, six deep).
    main, files = _chain(5)
    previewed = hc.stacks.preview(stack_name="prevdeep", template=main, files=files).to_dict()
    assert _depth(previewed["resources"]) == 6
    leaf: Any = previewed["resources"]
    while isinstance(leaf, list):
        leaf = leaf[0]
    assert (leaf["resource_name"], leaf["parent_resource"]) == ("r5", "r4")
    assert leaf["stack_name"] == "prevdeep-top-r1-r2-r3-r4"
    main, files = _chain(6)
    for attempt in (hc.stacks.preview, hc.stacks.create):
        try:
            attempt(stack_name="prevdeeper", template=main, files=files)
        except HTTPBadRequest as exc:
            assert ("resources.top<level1.yaml>.resources.r1<level2.yaml>.resources."
                    "r2<level3.yaml>.resources.r3<level4.yaml>.resources.r4<level5.yaml>."
                    "resources.r5<level6.yaml>: Request limit exceeded: Recursion depth "
                    "exceeds 5.") in str(exc)
        else:
            raise AssertionError(f"{attempt.__name__} of a stack six deep was accepted")
    assert list(hc.stacks.list(filters={"name": "prevdeeper"})) == []

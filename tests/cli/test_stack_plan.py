"""``hotplate stack update --dry-run`` against a real server: the update's plan, resource
by resource, nested stacks and group members under their resource, hidden values
hidden; nothing is changed."""

from __future__ import annotations

import json

from tests.cli.conftest import POLL, Cli
from tests.cli.helpers import write

BEFORE = """\
heat_template_version: 2021-04-16
parameters:
  password: {type: string, hidden: true, default: first-secret}
resources:
  web:
    type: OS::Heat::TestResource
    properties: {value: hello}
  key:
    type: OS::Heat::RandomString
    properties: {length: 8}
  secret:
    type: OS::Heat::Value
    properties: {value: {get_param: password}}
  keep:
    type: OS::Heat::None
  old:
    type: OS::Heat::None
  child:
    type: child.yaml
    properties: {size: 4}
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 1
      resource_def: {type: OS::Heat::TestResource, properties: {value: member}}
"""
AFTER = (BEFORE.replace("value: hello", "value: bye").replace("length: 8", "length: 12")
         .replace("first-secret", "second-secret").replace("count: 1", "count: 2")
         .replace("size: 4", "size: 5")
         .replace("  old:\n    type: OS::Heat::None\n", "  extra:\n    type: OS::Heat::None\n"))
CHILD = """\
heat_template_version: 2021-04-16
parameters:
  size: {type: number}
resources:
  inner:
    type: OS::Heat::RandomString
    properties: {length: {get_param: size}}
  quiet:
    type: OS::Heat::None
"""

EXPECTED = """\
Stack planned: what the update would do

  ~ web (OS::Heat::TestResource) updated in place
      value: "hello" -> "bye"
-/+ key (OS::Heat::RandomString) replaced, forced by length
      length: 8 -> 12  (forces replacement)
  ~ secret (OS::Heat::Value) updated in place
      value: <hidden> -> <hidden>
  + extra (OS::Heat::None) added
  ~ child ({child}) updated in place
      size: 4 -> 5
    -/+ inner (OS::Heat::RandomString) replaced, forced by length
          length: 4 -> 5  (forces replacement)
  ~ group (OS::Heat::ResourceGroup) updated in place
      count: 1 -> 2
      + 1 (OS::Heat::TestResource) added
  - old (OS::Heat::None) deleted

Plan: 2 to add, 4 to update in place, 2 to replace, 1 to delete, 3 unchanged.
"""


def _tree(cli: Cli) -> list[list[str]]:
    listed = cli("stack", "resource", "list", "planned", "--nested-depth", "3", "-f", "json")
    assert listed.code == 0, listed.err
    return sorted([r["resource_name"], r["physical_resource_id"], r["resource_status"]]
                  for r in json.loads(listed.out))


def test_dry_run_prints_the_plan_and_changes_nothing(cli: Cli) -> None:
    write(cli.home, "child.yaml", CHILD)
    before = write(cli.home, "before.yaml", BEFORE)
    after = write(cli.home, "after.yaml", AFTER)
    made = cli("stack", "create", "planned", "-t", before, "--wait", "--poll", POLL)
    assert made.code == 0, made.err
    tree = _tree(cli)

    plan = cli("stack", "update", "planned", "-t", after, "--dry-run")
    assert plan.code == 0, plan.err
    # The template resource's type is the file's URL, as the client sent it.
    assert plan.out == EXPECTED.format(child=(cli.home / "child.yaml").as_uri())
    assert "secret" not in plan.out.replace("secret (", "")

    # As data: Heat's lists and the detail, their counts the same with show_nested.
    data = cli("stack", "update", "planned", "-t", after, "--dry-run", "--show-nested",
               "-f", "json")
    assert data.code == 0, data.err
    body = json.loads(data.out)
    counts = {kind: len(listed) for kind, listed in body["resource_changes"].items()}
    assert counts == {"added": 2, "updated": 4, "replaced": 2, "deleted": 1, "unchanged": 3}
    assert [e["resource_name"] for e in body["resource_changes_detail"]] == [
        "web", "key", "secret", "keep", "extra", "child", "group", "old"]

    same = cli("stack", "update", "planned", "-t", before, "--dry-run")
    assert same.code == 0, same.err
    assert same.out.splitlines()[2:] == [
        f"  ~ child ({(cli.home / 'child.yaml').as_uri()}) updated in place: nothing in "
        "its stack changes",
        "  ~ group (OS::Heat::ResourceGroup) updated in place: nothing in its stack changes",
        "",
        "No changes: every resource stays as it is.",
        "Plan: 0 to add, 2 to update in place, 0 to replace, 0 to delete, 8 unchanged."]
    assert _tree(cli) == tree

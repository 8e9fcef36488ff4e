"""Stack lifecycle plugins, loaded from an installed distribution's entry points.

A distribution (a ``.dist-info`` with ``entry_points.txt``) is put in a temporary
directory on ``sys.path`` before the engine starts: one plugin under Heat's group
``heat.stack_lifecycle_plugins``, one under ``hotplate.stack_lifecycle_plugins``.
They record their calls; the stacks are driven through python-heatclient.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hotplate.app import embedded
from tests.api.conftest import Api, serving
from tests.api.helpers import VERSION, create_complete, update_complete, wait_status

MODULE = "hotplate_probe_lifecycle"

PLUGINS = '''
CALLS = []
REFUSE = {}


class Early:
    """Heat's group; called first (the lower ordinal), though listed in a later group."""

    def get_ordinal(self):
        return 10

    def do_pre_op(self, cnxt, stack, current_stack=None, action=None):
        CALLS.append(("early", "pre", stack.name, action, cnxt.project_id,
                      sorted(stack.t["resources"]),
                      None if current_stack is None else sorted(current_stack.t["resources"])))

    def do_post_op(self, cnxt, stack, current_stack=None, action=None,
                   is_stack_failure=False):
        CALLS.append(("early", "post", stack.name, action, stack.status, is_stack_failure))


class Late:
    """hotplate's group; ordinal 20. Refuses the stacks named in REFUSE."""

    def get_ordinal(self):
        return 20

    def do_pre_op(self, cnxt, stack, current_stack=None, action=None):
        CALLS.append(("late", "pre", stack.name, action))
        if stack.name in REFUSE:
            raise Exception(REFUSE[stack.name])

    def do_post_op(self, cnxt, stack, current_stack=None, action=None,
                   is_stack_failure=False):
        CALLS.append(("late", "post", stack.name, action, stack.status, is_stack_failure))
'''

ENTRY_POINTS = f"""
[hotplate.stack_lifecycle_plugins]
late = {MODULE}:Late

[heat.stack_lifecycle_plugins]
early = {MODULE}:Early
"""


def install_probe(root: Path) -> None:
    (root / f"{MODULE}.py").write_text(textwrap.dedent(PLUGINS))
    info = root / f"{MODULE}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {MODULE}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)


@pytest.fixture(scope="module")
def plugged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    root = tmp_path_factory.mktemp("dist")
    install_probe(root)
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    try:
        db = root / "hotplate.sqlite"
        with serving(*embedded(f"sqlite:///{db}", workers=4)) as served:
            yield served
    finally:
        sys.path.remove(str(root))
        sys.modules.pop(MODULE, None)
        importlib.invalidate_caches()


@pytest.fixture
def probe(plugged: Api) -> Any:
    module = sys.modules[MODULE]
    module.CALLS.clear()
    module.REFUSE.clear()
    return module


def template(*names: str) -> dict[str, Any]:
    return {"heat_template_version": VERSION,
            "resources": {name: {"type": "OS::Heat::None"} for name in names}}


def calls_of(probe: Any, name: str) -> list[tuple[Any, ...]]:
    return [call for call in probe.CALLS if call[2] == name]


def test_create_calls_the_pre_ops_in_ordinal_order_then_the_post_ops(
        plugged: Api, probe: Any) -> None:
    hc = plugged.client()
    create_complete(hc, template("a", "b"), name="lc-create")
    assert calls_of(probe, "lc-create") == [
        ("early", "pre", "lc-create", "CREATE", "admin", ["a", "b"], None),
        ("late", "pre", "lc-create", "CREATE"),
        ("early", "post", "lc-create", "CREATE", "COMPLETE", False),
        ("late", "post", "lc-create", "CREATE", "COMPLETE", False),
    ]


def test_update_shows_the_new_template_as_the_current_stack(plugged: Api, probe: Any) -> None:
    hc = plugged.client()
    stack_id = create_complete(hc, template("a"), name="lc-update")
    probe.CALLS.clear()
    update_complete(hc, stack_id, template("a", "c"))
    assert calls_of(probe, "lc-update") == [
        ("early", "pre", "lc-update", "UPDATE", "admin", ["a"], ["a", "c"]),
        ("late", "pre", "lc-update", "UPDATE"),
        ("early", "post", "lc-update", "UPDATE", "COMPLETE", False),
        ("late", "post", "lc-update", "UPDATE", "COMPLETE", False),
    ]


def test_suspend_and_delete_are_stack_actions_too(plugged: Api, probe: Any) -> None:
    hc = plugged.client()
    stack_id = create_complete(hc, template("a"), name="lc-suspend")
    probe.CALLS.clear()
    hc.actions.suspend(stack_id)
    assert wait_status(hc, stack_id).stack_status == "SUSPEND_COMPLETE"
    hc.stacks.delete(stack_id)
    wait_status(hc, stack_id)
    actions = [(c[0], c[1], c[3]) + ((c[4], c[5]) if c[1] == "post" else ())
               for c in calls_of(probe, "lc-suspend")]
    assert actions == [
        ("early", "pre", "SUSPEND"), ("late", "pre", "SUSPEND"),
        ("early", "post", "SUSPEND", "COMPLETE", False),
        ("late", "post", "SUSPEND", "COMPLETE", False),
        ("early", "pre", "DELETE"), ("late", "pre", "DELETE"),
        ("early", "post", "DELETE", "COMPLETE", False),
        ("late", "post", "DELETE", "COMPLETE", False),
    ]


def test_a_failed_action_has_its_post_ops_told(plugged: Api, probe: Any) -> None:
    hc = plugged.client()
    bad = {"heat_template_version": VERSION,
           "resources": {"x": {"type": "OS::Heat::TestResource", "properties": {"fail": True}}}}
    created = hc.stacks.create(stack_name="lc-failing", template=bad)
    assert wait_status(hc, created["stack"]["id"]).stack_status == "CREATE_FAILED"
    posts = [c for c in calls_of(probe, "lc-failing") if c[1] == "post"]
    assert posts == [("early", "post", "lc-failing", "CREATE", "FAILED", True),
                     ("late", "post", "lc-failing", "CREATE", "FAILED", True)]


def test_a_refusing_pre_op_fails_the_action_with_its_reason(plugged: Api, probe: Any) -> None:
    hc = plugged.client()
    probe.REFUSE["lc-refused"] = "Quota policy refuses this stack"
    created = hc.stacks.create(stack_name="lc-refused", template=template("a"))
    stack = wait_status(hc, created["stack"]["id"])
    assert stack.stack_status == "CREATE_FAILED"
    assert stack.stack_status_reason == "Quota policy refuses this stack"
    assert hc.resources.list(stack.id) == []
    # The plugin called before the refusal is told of the failure; nothing else runs.
    assert calls_of(probe, "lc-refused") == [
        ("early", "pre", "lc-refused", "CREATE", "admin", ["a"], None),
        ("late", "pre", "lc-refused", "CREATE"),
        ("early", "post", "lc-refused", "CREATE", "COMPLETE", True),
    ]


def test_a_refused_update_keeps_the_stack_on_its_template(plugged: Api, probe: Any) -> None:
    hc = plugged.client()
    stack_id = create_complete(hc, template("a"), name="lc-refused-update")
    probe.REFUSE["lc-refused-update"] = "No updates on Fridays"
    hc.stacks.update(stack_id, template=template("a", "b"))
    stack = wait_status(hc, stack_id)
    assert (stack.stack_status, stack.stack_status_reason) == (
        "UPDATE_FAILED", "No updates on Fridays")
    assert sorted(r.resource_name for r in hc.resources.list(stack_id)) == ["a"]
    assert hc.stacks.template(stack_id)["resources"] == template("a")["resources"]

"""Lifecycle plugins called as Heat calls them: ordinal order, duck typing, failures."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hotplate.engine.lifecycle import LifecyclePlugins, failure_reason
from hotplate.engine.plugin_views import plugin_stack
from hotplate.model.ids import StackId, TemplateId, TraversalId
from hotplate.model.records import StackRecord
from hotplate.model.states import Action, Status

STACK = plugin_stack(
    StackRecord(id=StackId("s-1"), name="web", project_id="p", raw_template_id=TemplateId(1),
                action=Action.CREATE, status=Status.COMPLETE, status_reason="",
                current_traversal=TraversalId(""), created_at=datetime(2026, 1, 1, tzinfo=UTC),
                user_id="u", username="alice", tags=("t",)),
    {"heat_template_version": "2021-04-16", "resources": {"a": {"type": "OS::Heat::None"}}},
    {}, {"parameters": {"x": 1}, "event_sinks": []})


class Plugin:
    def __init__(self, name: str, calls: list[Any], ordinal: int | None = None,
                 fail: str | None = None) -> None:
        self.name, self.calls, self.fail = name, calls, fail
        if ordinal is not None:
            self.get_ordinal = lambda: ordinal

    def do_pre_op(self, cnxt: Any, stack: Any, current_stack: Any = None,
                  action: Any = None) -> None:
        self.calls.append((self.name, "pre", action))
        if self.fail == "pre":
            raise ValueError(f"{self.name} says no")

    def do_post_op(self, cnxt: Any, stack: Any, current_stack: Any = None, action: Any = None,
                   is_stack_failure: bool = False) -> None:
        self.calls.append((self.name, "post", action, is_stack_failure))
        if self.fail == "post":
            raise ValueError("broken")


def test_plugins_run_by_ordinal_100_when_they_have_none() -> None:
    calls: list[Any] = []
    plugins = LifecyclePlugins([Plugin("late", calls, 200), Plugin("plain", calls),
                                Plugin("early", calls, 5)])
    assert plugins.pre_ops(STACK, None, "CREATE") is None
    plugins.post_ops(STACK, None, "CREATE", False)
    assert calls == [("early", "pre", "CREATE"), ("plain", "pre", "CREATE"),
                     ("late", "pre", "CREATE"), ("early", "post", "CREATE", False),
                     ("plain", "post", "CREATE", False), ("late", "post", "CREATE", False)]


def test_a_refusal_tells_only_the_plugins_already_passed() -> None:
    calls: list[Any] = []
    plugins = LifecyclePlugins([Plugin("a", calls, 1), Plugin("b", calls, 2, fail="pre"),
                                Plugin("c", calls, 3)])
    assert plugins.pre_ops(STACK, None, "DELETE") == "b says no"
    assert calls == [("a", "pre", "DELETE"), ("b", "pre", "DELETE"),
                     ("a", "post", "DELETE", True)]


def test_a_failing_post_op_ends_the_round_as_in_heat() -> None:
    calls: list[Any] = []
    plugins = LifecyclePlugins([Plugin("a", calls, 1, fail="post"), Plugin("b", calls, 2)])
    plugins.post_ops(STACK, None, "UPDATE", True)
    assert calls == [("a", "post", "UPDATE", True)]


def test_a_plugin_may_have_only_some_methods() -> None:
    class PostOnly:
        seen: list[str] = []

        def do_post_op(self, *args: Any) -> None:
            self.seen.append(args[3])

    plugins = LifecyclePlugins([PostOnly()])
    assert plugins.pre_ops(STACK, None, "CHECK") is None
    plugins.post_ops(STACK, None, "CHECK", False)
    assert PostOnly.seen == ["CHECK"]
    assert not LifecyclePlugins()


def test_heats_reason_for_a_refusal() -> None:
    assert failure_reason(RuntimeError("quota")) == "quota"
    assert failure_reason(RuntimeError()) == "Failed stack pre-ops: "


def test_the_views_show_what_heats_plugins_read() -> None:
    assert (STACK.id, STACK.name, STACK.action, STACK.status) == ("s-1", "web", "CREATE",
                                                                  "COMPLETE")
    assert STACK.state == ("CREATE", "COMPLETE") and STACK.tags == ["t"]
    assert STACK.t["resources"] == {"a": {"type": "OS::Heat::None"}}
    assert STACK.t.version == ("heat_template_version", "2021-04-16")
    assert STACK.env.params == {"x": 1} and STACK.t.env is STACK.env
    context = STACK.context
    assert (context.tenant_id, context.user_id, context.username) == ("p", "u", "alice")
    assert context.to_dict()["project_id"] == "p" and context.auth_token is None
    assert STACK.identifier() == {"stack_name": "web", "stack_id": "s-1", "tenant": "p",
                                  "path": ""}

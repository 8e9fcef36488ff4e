"""Stack lifecycle plugins: Heat's pre-op and post-op plug points around a stack action.

A plugin is any class registered under the entry-point group
``heat.stack_lifecycle_plugins`` (so Heat's own plugins load unchanged) or
``hotplate.stack_lifecycle_plugins``. hotplate does not need Heat: a plugin
is called by its methods alone, Heat's ``LifecyclePlugin`` protocol::

    do_pre_op(cnxt, stack, current_stack=None, action=None)
    do_post_op(cnxt, stack, current_stack=None, action=None, is_stack_failure=False)
    get_ordinal()          # 100 when a plugin has none, as Heat's base class says

Each class is instantiated once per engine, with no arguments, and the
instances are called in ascending ordinal. ``cnxt`` and ``stack`` are the
views of plugin_views.py; ``current_stack`` is the stack on its new template
for an update (None otherwise).

When they run, as Heat's legacy engine runs them (its convergence engine
never calls them):

* pre-ops before the action starts, on the engine that starts it. When one
  raises, the post-ops of the plugins already called run with
  ``is_stack_failure=True``, the rest are not called, and the action fails
  at once with Heat's reason: the exception's first argument (``Failed
  stack pre-ops: ...`` when it has none). Nothing of the action happened,
  so nothing is rolled back.
* post-ops once the action has ended (COMPLETE, FAILED or cancelled), on
  whichever engine ended it, right after the state is written. A post-op
  that raises is logged and, as in Heat, ends the round.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from hotplate.engine.plugin_points import registered
from hotplate.engine.plugin_views import PluginStack, plugin_stack
from hotplate.model.ids import TemplateId
from hotplate.model.records import StackRecord

if TYPE_CHECKING:
    from hotplate.engine.deps import EngineDeps

__all__ = ["ENTRY_POINT_GROUPS", "LifecyclePlugins", "after_action", "before_action"]

LOG = logging.getLogger(__name__)

ENTRY_POINT_GROUPS = ("heat.stack_lifecycle_plugins", "hotplate.stack_lifecycle_plugins")
DEFAULT_ORDINAL = 100


def _ordinal(plugin: Any) -> Any:
    get = getattr(plugin, "get_ordinal", None)
    return get() if callable(get) else DEFAULT_ORDINAL


def failure_reason(exc: BaseException) -> str:
    """Heat's stack reason for a failed pre-op."""
    if exc.args:
        return str(exc.args[0])
    return f"Failed stack pre-ops: {exc}"


class LifecyclePlugins:
    """This engine's plugin instances, in the order they are called."""

    def __init__(self, instances: Iterable[Any] = ()) -> None:
        found = list(instances)
        try:
            found.sort(key=_ordinal)
        except Exception:
            LOG.exception("could not order the stack lifecycle plugins by their ordinal")
        self._instances: tuple[Any, ...] = tuple(found)

    @classmethod
    def from_entry_points(cls, groups: Sequence[str] = ENTRY_POINT_GROUPS) -> LifecyclePlugins:
        """Every class registered under ``groups``; one that fails to load or to be
        instantiated is logged and left out (Heat's rule)."""
        instances = []
        for group in groups:
            for point in registered(group):
                try:
                    instances.append(point.load()())
                except Exception:
                    LOG.exception("could not load stack lifecycle plugin %s (%s)",
                                  point.name, point.value)
        return cls(instances)

    def __bool__(self) -> bool:
        return bool(self._instances)

    @property
    def instances(self) -> tuple[Any, ...]:
        return self._instances

    def pre_ops(self, stack: PluginStack, current_stack: PluginStack | None,
                action: str) -> str | None:
        """Every pre-op in turn; None when all passed, else Heat's failure reason (the
        post-ops of the plugins that passed have then run, told of a failure)."""
        passed: list[Any] = []
        for plugin in self._instances:
            op = getattr(plugin, "do_pre_op", None)
            if not callable(op):
                continue
            try:
                op(stack.context, stack, current_stack, action)
            except Exception as exc:
                LOG.exception("do_pre_op of %s failed for %s on stack %s",
                              type(plugin).__name__, action, stack.id)
                self._post(passed, stack, current_stack, action, True)
                return failure_reason(exc)
            passed.append(plugin)
        return None

    def post_ops(self, stack: PluginStack, current_stack: PluginStack | None, action: str,
                 is_stack_failure: bool) -> None:
        self._post(self._instances, stack, current_stack, action, is_stack_failure)

    @staticmethod
    def _post(plugins: Iterable[Any], stack: PluginStack, current_stack: PluginStack | None,
              action: str, is_stack_failure: bool) -> None:
        for plugin in plugins:
            op = getattr(plugin, "do_post_op", None)
            if not callable(op):
                continue
            try:
                op(stack.context, stack, current_stack, action, is_stack_failure)
            except Exception:
                LOG.exception("do_post_op of %s failed for %s on stack %s",
                              type(plugin).__name__, action, stack.id)
                return


def _view(deps: EngineDeps, stack: StackRecord, template_id: TemplateId) -> PluginStack:
    loaded = deps.caches.template(template_id)
    return plugin_stack(stack, loaded.raw, loaded.files, loaded.environment)


def before_action(deps: EngineDeps, stack: StackRecord, action: str,
                  template_id: TemplateId | None = None) -> str | None:
    """The pre-ops of ``action`` on ``stack`` (about to go to ``template_id``, for an
    update); None to go on, else the reason the action fails with. Free of cost when
    no plugin is installed."""
    plugins = deps.lifecycle
    if not plugins:
        return None
    try:
        view = _view(deps, stack, stack.raw_template_id)
        current = None
        if action == "UPDATE" and template_id is not None:
            current = _view(deps, stack, template_id)
    except Exception as exc:  # the stack's template is gone: no plugin can judge it
        LOG.exception("stack %s: no view for its %s pre-ops", stack.id, action)
        return failure_reason(exc)
    return plugins.pre_ops(view, current, action)


def after_action(deps: EngineDeps, stack: StackRecord, written: Mapping[str, Any], *,
                 failed: bool) -> None:
    """The post-ops of the stack's action, which ``written`` (the values just stored
    over ``stack``, as read before) ended. Free of cost when no plugin is installed."""
    plugins = deps.lifecycle
    if not plugins:
        return
    action = str(stack.action)
    try:
        ended = replace(stack, **written)
        view = _view(deps, ended, ended.raw_template_id)
        plugins.post_ops(view, view if action == "UPDATE" else None, action, failed)
    except Exception:
        LOG.exception("stack %s: its %s post-ops could not run", stack.id, action)

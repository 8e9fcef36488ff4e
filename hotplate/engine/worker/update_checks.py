"""What an update node must know before it updates a row: the facts, read from the caches.

Two of Heat's update rules need the engine's registry of types and the
stored environments, so the pure decisions (``convergence/node_plan``,
``convergence/restrictions``) get them from here:

- whether the template's type for a row is served by another
  implementation (Heat compares the classes it would instantiate, so a
  renamed alias of the same plugin, or any provider template for a
  provider template, keeps the physical resource or the nested stack);
- which actions the new environment restricts for the row, and what a
  refused update leaves behind (an event only; the row keeps its state).
"""

from __future__ import annotations

import logging

from hotplate.convergence import outcome
from hotplate.convergence.restrictions import restricted_text
from hotplate.convergence.steps import Failed
from hotplate.engine.cache import LoadedTemplate
from hotplate.engine.deps import EngineDeps
from hotplate.engine.events import resource_event
from hotplate.engine.hosting.row_plugins import row_class
from hotplate.engine.worker.node_work import NodeWork, failure_text
from hotplate.model.errors import HotplateError
from hotplate.model.ids import TemplateId
from hotplate.model.records import ResourceRecord
from hotplate.model.states import Action, Status
from hotplate.resources.base import Resource
from hotplate.resources.template_resource import TemplateResource

LOG = logging.getLogger(__name__)


class ResourceActionRestricted(HotplateError):
    """Heat's error for an update the environment's ``restricted_actions`` forbid."""

    def __init__(self, action: str) -> None:
        super().__init__(restricted_text(action))
        self.action = action


def same_implementation(old: type[Resource], new: type[Resource]) -> bool:
    """Heat's test: the same class, where every provider template is one class, or a
    retired type's class moving to the one that stands in for it (``substitute_class``)."""
    if old is new or old.support_status.substitute_class is new:
        return True
    return issubclass(old, TemplateResource) and issubclass(new, TemplateResource)


def implementation_changed(deps: EngineDeps, row: ResourceRecord, template_id: TemplateId,
                           wanted_type: str) -> bool:
    """Whether ``wanted_type`` (the new template's type for ``row``) needs a new resource.

    Nothing is looked up when the name and the registry are those the row
    was made with (the usual update); a row whose template or type is gone
    falls back to comparing names.
    """
    new = deps.caches.template(template_id)
    old_id = row.current_template_id
    if wanted_type == row.resource_type and (
            old_id == template_id or (old_id is not None and _same_registry(deps, old_id, new))):
        return False
    try:
        old_cls = row_class(deps, row)
        new_cls = deps.types.for_resource(new.env, row.name, wanted_type, new.files)
    except Exception as exc:  # an unknown type: the replacement reports it
        LOG.debug("resource %s: type %s not compared: %s", row.name, wanted_type, exc)
        return wanted_type != row.resource_type
    return not same_implementation(old_cls, new_cls)


def _same_registry(deps: EngineDeps, old_id: TemplateId, new: LoadedTemplate) -> bool:
    try:
        old = deps.caches.template(old_id)
    except Exception:  # the row's template is gone
        return True
    return old.env.resource_registry == new.env.resource_registry


def restricted_actions(deps: EngineDeps, template_id: TemplateId, name: str) -> frozenset[str]:
    """The actions the environment of ``template_id`` restricts for resource ``name``."""
    registry = deps.caches.template(template_id).env.resource_registry
    return registry.restricted_actions_for(name)


def refuse(deps: EngineDeps, work: NodeWork, action: str) -> Failed:
    """Fail the update for a restricted ``action``, as Heat: an UPDATE_FAILED event with
    its text, the row untouched, and the stack's update failed with the resource's name."""
    exc = ResourceActionRestricted(action)
    deps.store.add_event(resource_event(deps, work.row, Action.UPDATE, Status.FAILED,
                                        str(exc)))
    return Failed(outcome.resource_failed_reason(
        Action.UPDATE, failure_text(exc, work.row.name)))

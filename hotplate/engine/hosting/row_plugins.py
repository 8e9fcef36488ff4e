"""A resource row's plugin: its class, its context and an instance, built one way everywhere.

Operations, outputs, stack actions and signals all need "the plugin of this
row"; each building it alone is how they drifted apart (one without the
nested-stack port, one reading the wrong template's registry).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.engine import notify
from hotplate.engine.deps import EngineDeps
from hotplate.engine.hosting.keystone_users import KeystoneStackUser
from hotplate.engine.hosting.nested import EngineNestedStacks
from hotplate.engine.hosting.resource_context import EngineResourceContext
from hotplate.engine.hosting.signal_endpoints import EngineSignalEndpoints
from hotplate.engine.hosting.software_configs import EngineSoftwareConfigs
from hotplate.engine.stack_rows import current_rows
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.stack_users import ResourceOwner
from hotplate.model.states import Action, Status
from hotplate.resources.base import Resource


def row_class(deps: EngineDeps, row: ResourceRecord) -> type[Resource]:
    """The plugin a row was made with: its type under its own template's environment."""
    env, files = None, None
    if row.current_template_id is not None:
        try:
            loaded = deps.caches.template(row.current_template_id)
            env, files = loaded.env, loaded.files
        except Exception:  # its template is gone: plain type lookup
            env = None
    return deps.types.for_resource(env, row.name, row.resource_type, files)


def row_context(deps: EngineDeps, row: ResourceRecord, stack: StackRecord
                ) -> EngineResourceContext:
    return EngineResourceContext(
        deps.store, deps.clock, resource_id=row.id, uuid=row.uuid,
        resource_name=row.name, stack_id=stack.id, stack_name=stack.name,
        project_id=stack.project_id,
        nested=lambda: EngineNestedStacks(deps, stack, row.name,
                                          _template_name(deps, row, stack)),
        update_policy=lambda: _update_policy(deps, row, stack),
        engine_id=deps.engine_id,
        peers=lambda reference: _peer(deps, stack, reference),
        notify_scaling=(None if deps.notifier is None
                        else lambda notice: notify.scaling_changed(deps, stack, notice)),
        software=lambda: EngineSoftwareConfigs(deps, stack),
        cloud=lambda: deps.clouds.for_stack(stack),
        signals=lambda ctx: _signal_endpoints(deps, row, stack, ctx),
    )


def _signal_endpoints(deps: EngineDeps, row: ResourceRecord, stack: StackRecord,
                      ctx: EngineResourceContext) -> EngineSignalEndpoints:
    """The row's signal endpoints: Keystone's stack users when the stack has a stack
    user project and a stack domain is configured, else hotplate's own."""
    owner = ResourceOwner(row.id, stack.id, stack.name, row.name, stack.project_id)
    domain, project = deps.credentials.domain, stack.stack_user_project_id
    keystone = None
    if project and project != stack.project_id and domain.configured:
        def keystone(data: Any) -> KeystoneStackUser:
            return KeystoneStackUser(domain, project, data,
                                     deps.store,  # type: ignore[arg-type]
                                     owner,
                                     ctx.physical_resource_name())
    return EngineSignalEndpoints(deps.store, deps.options, ctx,  # type: ignore[arg-type]
                                 owner, deps.clock.now, keystone)


def row_instance(deps: EngineDeps, row: ResourceRecord, stack: StackRecord,
                 cls: type[Resource] | None = None) -> Resource:
    """The row's plugin over its stored properties and physical id."""
    plugin = cls if cls is not None else row_class(deps, row)
    return plugin(row.name, row.properties_data or {}, row_context(deps, row, stack),
                  resource_id=row.physical_resource_id)


PEER_STATES = frozenset({
    (Action.INIT, Status.COMPLETE), (Action.CREATE, Status.IN_PROGRESS),
    (Action.CREATE, Status.COMPLETE), (Action.RESUME, Status.IN_PROGRESS),
    (Action.RESUME, Status.COMPLETE), (Action.UPDATE, Status.IN_PROGRESS),
    (Action.UPDATE, Status.COMPLETE), (Action.CHECK, Status.COMPLETE),
})
"""The states in which Heat's ``resource_by_refid`` finds a resource."""


def _peer(deps: EngineDeps, stack: StackRecord, reference: str) -> Resource | None:
    """The stack's resource whose reference id (or name) is ``reference``, as a plugin."""
    for row in current_rows(deps, stack).values():
        if (row.action, row.status) not in PEER_STATES:
            continue
        instance = row_instance(deps, row, stack, _peer_class(deps, row, stack))
        if row.name == reference or instance.get_reference_id() == reference:
            return instance
    return None


def _peer_class(deps: EngineDeps, row: ResourceRecord, stack: StackRecord) -> type[Resource]:
    """A peer's plugin; a row not yet made has no template of its own, and its type is
    the one the stack's environment maps (a provider template, say)."""
    if row.current_template_id is not None:
        return row_class(deps, row)
    loaded = deps.caches.template(stack.raw_template_id)
    return deps.types.for_resource(loaded.env, row.name, row.resource_type, loaded.files)


def _update_policy(deps: EngineDeps, row: ResourceRecord, stack: StackRecord
                   ) -> Mapping[str, Any]:
    defn = deps.caches.for_stack(stack.raw_template_id, stack).resources.get(row.name)
    return defn.update_policy if defn is not None else {}


def _template_name(deps: EngineDeps, row: ResourceRecord, stack: StackRecord) -> str | None:
    """The template file a template resource runs, as the registry maps its type."""
    loaded = deps.caches.template(stack.raw_template_id)
    target = loaded.env.resource_registry.resolve_type(
        row.name, row.resource_type, is_known=deps.types.exists)
    return target if target != row.resource_type else None

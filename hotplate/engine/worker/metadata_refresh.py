"""After a signal, the metadata of the stack's other resources is resolved again.

A signal can change what other resources' metadata reads: a scaling policy's
signal resizes its group, and a load balancer's metadata reads the group's
``InstanceList``. Heat then calls ``metadata_update()`` on every other
created resource; the types that implement it (a template resource, an
instance, a server) set their metadata to their template's, resolved anew.
Here such a type says ``metadata_follows_template``; its row gets the
template's metadata resolved against the stack's rows as they are now, the
keys its plugin writes itself (``managed_metadata``) kept. A row a worker
holds is left alone: its action writes its metadata when it ends.
"""

from __future__ import annotations

import logging

from hotplate.engine.cache import pseudo_parameters
from hotplate.engine.deps import EngineDeps
from hotplate.engine.hosting.rows_context import RowsContext
from hotplate.engine.stack_rows import current_rows
from hotplate.model.records import ResourceRecord, StackRecord
from hotplate.model.states import Action

__all__ = ["refresh_metadata"]

LOG = logging.getLogger(__name__)


def refresh_metadata(deps: EngineDeps, stack: StackRecord, signalled: ResourceRecord) -> None:
    """Re-resolve the template metadata of ``stack``'s resources but ``signalled``."""
    loaded = deps.caches.template(stack.raw_template_id)
    template = deps.caches.for_stack(stack.raw_template_id, stack)
    rows = current_rows(deps, stack)
    ctx = None
    for name, row in rows.items():
        defn = template.resources.get(name)
        if (row.id == signalled.id or row.action is Action.INIT or row.engine_id is not None
                or defn is None):
            continue
        try:
            cls = deps.types.for_resource(loaded.env, name, row.resource_type, loaded.files)
        except Exception:  # its type is gone: nothing to refresh
            continue
        if not getattr(cls, "metadata_follows_template", False):
            continue
        if ctx is None:
            params = deps.caches.parameters(stack.raw_template_id, stack.id,
                                            pseudo_parameters(stack))
            ctx = RowsContext(deps, stack, params, rows)
        try:
            resolved = defn.resolve_metadata(ctx)
        except Exception:
            LOG.info("resource %s: metadata not refreshed", name, exc_info=True)
            continue
        current = dict(row.metadata or {})
        kept = {k: v for k, v in current.items() if k in cls.managed_metadata}
        fresh = {**resolved, **kept}
        if fresh != current:
            deps.store.update_resource_if_unlocked(row.id, row.atomic_key, {"metadata": fresh})

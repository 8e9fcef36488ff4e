"""An update that observes reality: the template compared with the live state.

Heat's ``Resource._prepare_update_props``: with ``[DEFAULT] observe_on_update``
or an update's ``converge`` flag, the properties an update starts from are the
resource's live ones, so a property changed in the cloud behind the engine's
back differs from the template and is set back by the update::

    no physical resource yet        replaced (Heat's UpdateReplace)
    cloud object gone (404)         replaced
    live state unreadable           logged; the update goes on from the stored
                                    properties, as Heat's does
    otherwise                       stored properties, where the live value
                                    differs (convergence/drift.py), the live one

Two choices of ours: only types that read their live state back are observed
(Heat's default asks every type, and replaces any without a physical id), and
only the properties that drift are taken from the cloud, so what the cloud
filled in itself (an address, a default) is never "corrected" to the
template's silence. With both switches off, nothing here runs: no cloud call.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from hotplate.convergence.drift import drifted_properties
from hotplate.engine.deps import EngineDeps
from hotplate.engine.worker.node_work import NodeWork
from hotplate.model.errors import EntityNotFound
from hotplate.resources.base import Resource

__all__ = ["observed_properties", "observes"]

LOG = logging.getLogger(__name__)



def observes(deps: EngineDeps, work: NodeWork, cls: type[Resource]) -> bool:
    """Whether this update node compares with the live state: the option, or the
    traversal's ``converge`` (kept with its graph, read from the engine's cache)."""
    if not cls.live_state:
        return False
    if deps.options.observe_on_update:
        return True
    return deps.caches.graph(work.stack.id, work.traversal_id).converge


def observed_properties(instance: Resource, stored: Mapping[str, Any]
                        ) -> dict[str, Any] | None:
    """``stored`` with the live value of each property that drifted; None
    when the resource must be replaced instead (the module docstring's table)."""
    if instance.resource_id is None:
        return None
    try:
        live = instance.get_live_state(stored)
    except EntityNotFound:
        return None
    except Exception as exc:
        LOG.warning("Resource %s cannot be updated with its live state: %s", instance.name,
                    exc)
        return dict(stored)
    drifted = drifted_properties(stored, live, instance.free_form_properties())
    if drifted:
        LOG.info("resource %s: changed behind hotplate's back: %s", instance.name,
                 ", ".join(drifted))
    return {**stored, **{key: live[key] for key in drifted}}

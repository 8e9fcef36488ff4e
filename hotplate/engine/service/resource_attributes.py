"""The attributes a resource view shows: Heat's rule for ``resource show``.

Heat shows every attribute of the resource's type, not only those something
references, and a failing attribute never fails the view:

1. resolve ``show`` (the base attribute every type has); if it gives a
   mapping, that mapping is the view, plus each name asked for with
   ``with_attr`` that it lacks;
2. otherwise (``show`` failed or is not a mapping), resolve each declared
   attribute, and each ``with_attr`` name, one by one.

An attribute whose resolution raises shows as null. Where the row stored a
value for an attribute when its action completed (``attr_data``: the
attributes that dependants and outputs read), that value is shown instead
of calling the plugin again, so the view agrees with what the dependants saw.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hotplate.resources.attributes import SHOW
from hotplate.resources.base import Resource

__all__ = ["resolved_or_none", "shown_attributes"]

LOG = logging.getLogger(__name__)


def resolved_or_none(instance: Resource, name: str) -> Any:
    """``name``'s value, or None when resolving it raises (logged, never raised)."""
    try:
        return instance.get_attribute(name)
    except Exception as exc:
        LOG.debug("resource %s: attribute %s not shown: %s", instance.name, name, exc)
        return None


def shown_attributes(instance: Resource, with_attr: Iterable[str] = (),
                     stored: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Heat's ``attributes`` of a resource view (see the module docstring)."""
    kept = dict(stored or {})
    declared = [name for name in instance.attributes_schema if name != SHOW]
    return attribute_view(lambda name: resolved_or_none(instance, name), declared,
                          with_attr, kept)


def attribute_view(resolve: Callable[[str], Any], declared: Iterable[str],
                   with_attr: Iterable[str], stored: Mapping[str, Any]) -> dict[str, Any]:
    """The rule over a resolver that never raises: ``show`` first, else one by one.

    ``stored`` values (not None) win over resolving, for declared names and
    ``with_attr`` names alike; inside a ``show`` mapping only for keys that
    are declared attributes, the rest being the plugin's own view.
    """
    names = list(declared)

    def value(name: str) -> Any:
        kept = stored.get(name)
        return kept if kept is not None else resolve(name)

    shown = resolve(SHOW)
    if isinstance(shown, Mapping):
        view = dict(shown)
        for name in names:
            if name in view and stored.get(name) is not None:
                view[name] = stored[name]
        for name in with_attr:
            if name not in view:
                view[name] = value(name)
        return view
    return {name: value(name) for name in dict.fromkeys([*names, *with_attr])}

"""The types' implicit dependencies added to a template's graph (template/implicit_deps.py).

The rules are the plugins' (``implicit_requires``, Heat's add_dependencies);
which plugin serves each resource is the engine's registry's to say, so the
edges are added here, once per template and stack (engine/cache.py), and when
a request is validated, so that a cycle they make is refused up front.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.template.implicit_deps import (
    ImplicitRule,
    implicit_edges,
    with_implicit_dependencies,
)
from hotplate.template.template import Template

__all__ = ["with_implicit"]


def _rule_of(kind: Any) -> ImplicitRule | None:
    rule = getattr(kind, "implicit_requires", None)
    return rule if callable(rule) else None


def with_implicit(types: Any, env: Any, files: Mapping[str, Any], template: Template,
                  params: Mapping[str, Any]) -> Template:
    """``template`` whose graph holds the edges its types' rules add.

    A resource whose type cannot be found adds none (its create reports that).
    """
    kinds: dict[str, Any] = {}
    for name, defn in template.resources.items():
        try:
            kinds[name] = types.for_resource(env, name, defn.type, files)
        except Exception:  # reported where the resource is validated or created
            continue
    return with_implicit_dependencies(template, implicit_edges(template, kinds, _rule_of,
                                                               params))

"""The property-level detail of an update's plan: what changes in each resource, and why
a replacement is needed. Heat's clients never see it: it travels beside Heat's
``resource_changes`` (``resource_changes_detail``), so their output stays Heat's.

A value a hidden parameter (``hidden: true``) gives must not leak through a
plan, nor anything computed from it. Two nets catch it:

* by the template: a property whose expression reads a hidden parameter, or
  an attribute of a resource that has such a property, is ``<hidden>``
  (``derived_from_hidden``, transitively in dependency order);
* by value: any value that holds a hidden parameter's value is ``<hidden>``
  (what a group or a nested template was sent as a literal, or an attribute
  that stored it).

The entries are plain data, each one resource::

    {"resource_name", "resource_type", "change",     # Heat's five kinds
     "properties": [{"name", "old", "new", "forces_replacement"}],
     "replacement": {"forced_by": [...], "reason": "..."},   # replaced only
     "properties_known": False,     # new values known only once others ran
     "metadata_changed": True,      # the template's metadata for it changes
     "nested": [entries]}           # a stack-backed resource's own stack
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hotplate.resources.base import Resource
from hotplate.template import ResourceDefinition, Template
from hotplate.template.functions.base import Node, iter_functions
from hotplate.template.functions.cfn_references import ParamRef
from hotplate.template.functions.references import GetParam, ResourceRead

HIDDEN = "<hidden>"
"""What a plan shows in place of a hidden value."""

MIN_SECRET_SEARCH = 3
"""A hidden value this long or longer is looked for inside other values; a shorter
one only hides a value equal to it (a secret "1" would hide every number)."""

EVERY_PROPERTY = "*"
"""Stands for all of a resource's properties when its whole properties section is
one expression (``properties: {get_param: settings}``)."""


@dataclass(frozen=True, slots=True)
class Masks:
    """What a stack's plan must not show."""

    derived: Mapping[str, frozenset[str]]
    """Per resource, the properties computed from a hidden value."""
    secrets: frozenset[str]
    """The hidden values themselves, as text."""

    def hides(self, resource: str, key: str, value: Any) -> bool:
        derived = self.derived.get(resource, frozenset())
        return key in derived or EVERY_PROPERTY in derived or self._holds_secret(value)

    def _holds_secret(self, value: Any) -> bool:
        if not self.secrets or value is None:
            return False
        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True,
                                                               default=str)
        return any(text == s or (len(s) >= MIN_SECRET_SEARCH and s in text)
                   for s in self.secrets)


def hidden_parameters(template: Template) -> frozenset[str]:
    return frozenset(name for name, schema in template.parameters.items() if schema.hidden)


def secret_texts(names: Iterable[str], *values: Mapping[str, Any]) -> frozenset[str]:
    """The text of each hidden parameter's value, in any of ``values`` (old and new)."""
    found: set[str] = set()
    for given in values:
        for name in names:
            value = given.get(name)
            if value is None or value == "":
                continue
            found.add(value if isinstance(value, str) else json.dumps(value, default=str))
    return frozenset(found)


def masks_for(template: Template, hidden: frozenset[str],
              secrets: frozenset[str]) -> Masks:
    return Masks(derived_from_hidden(template, hidden), secrets)


def derived_from_hidden(template: Template,
                        hidden: frozenset[str]) -> dict[str, frozenset[str]]:
    """Per resource, the properties that read a hidden parameter, directly or through
    the attributes of a resource with such a property; resources in dependency order,
    so what a resource reads is decided before it."""
    if not hidden:
        return {}
    derived: dict[str, frozenset[str]] = {}
    for name in template.dependencies().toposort():
        defn = template.resources.get(name)
        if defn is not None:
            keys = _derived_keys(defn, hidden, {n for n, ks in derived.items() if ks})
            if keys:
                derived[name] = keys
    return derived


def _derived_keys(defn: ResourceDefinition, hidden: frozenset[str],
                  tainted: set[str]) -> frozenset[str]:
    node = defn.properties_node
    by_key = node.as_mapping()
    if by_key is None:
        return frozenset({EVERY_PROPERTY}) if _reads_hidden(node, hidden, tainted) else frozenset()
    return frozenset(key for key, value in by_key.items()
                     if _reads_hidden(value, hidden, tainted))


def _reads_hidden(node: Node, hidden: frozenset[str], tainted: set[str]) -> bool:
    for function in iter_functions(node):
        if isinstance(function, GetParam | ParamRef):
            # A name computed at run time could be any parameter: assume the worst.
            if function.name is None or function.name in hidden:
                return True
        elif (isinstance(function, ResourceRead) and not _is_reference(function)
              and (function.target is None or function.target in tainted)):
            return True
    return False


def _is_reference(function: ResourceRead) -> bool:
    """``get_resource`` gives an id, never what the resource was given."""
    return not hasattr(function, "attribute")


def property_changes(cls: type[Resource], name: str, old: Mapping[str, Any],
                     new: Mapping[str, Any], masks: Masks) -> list[dict[str, Any]]:
    """Each changed property with its old and new value, in name order; a property
    the type cannot update in place is marked as forcing the replacement."""
    allowed = {k for k, s in cls.properties_schema.items() if s.update_allowed}
    changes = []
    for key in sorted(set(old) | set(new)):
        before, after = old.get(key), new.get(key)
        if before == after:
            continue
        hide = masks.hides(name, key, before) or masks.hides(name, key, after)
        changes.append({
            "name": key,
            "old": HIDDEN if hide else before,
            "new": HIDDEN if hide else after,
            "forces_replacement": key in new and key in cls.properties_schema
            and key not in allowed,
        })
    return changes


def replacement(cls: type[Resource], old: Mapping[str, Any] | None,
                new: Mapping[str, Any] | None) -> dict[str, Any]:
    """Why a change of properties needs a new resource: the properties the type cannot
    update in place, else the type's own rule over the changed ones."""
    if old is None or new is None:
        return {"forced_by": [], "reason": "the new properties are known only at run time"}
    allowed = {k for k, s in cls.properties_schema.items() if s.update_allowed}
    changed = sorted(cls.property_diff(old, new))
    fixed = [k for k in changed if k in new and k in cls.properties_schema
             and k not in allowed]
    if fixed:
        return {"forced_by": fixed,
                "reason": f"{', '.join(fixed)} cannot be updated in place"}
    declared = [k for k in changed if k in cls.properties_schema]
    return {"forced_by": declared,
            "reason": f"the type replaces on a change to {', '.join(declared)}"}


def entry(name: str, type_name: str, change: str, **extra: Any) -> dict[str, Any]:
    """One resource of the detail; empty extras are left out."""
    found: dict[str, Any] = {"resource_name": name, "resource_type": type_name,
                             "change": change}
    found.update({key: value for key, value in extra.items()
                  if value is not None and value != []})
    return found

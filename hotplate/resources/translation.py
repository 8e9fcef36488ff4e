"""Heat's translation rules: a type's old property names and lookups, declared as data.

A type lists ``translation_rules``; the engine applies them where Heat does,
so a template written for an older Heat (``network_id``) or naming a cloud
object by name (``network: private``) gives the same properties as one using
today's names and ids::

    rule      what it does                                       when
    REPLACE   moves a deprecated property's value to its          before validation
              successor (Subnet ``network_id`` -> ``network``);   (pure: ``translate``)
              both given is an error naming both
    ADD       appends values (or another property's) to a list    before validation
    DELETE    drops a property (its value is ignored)             before validation
    RESOLVE   turns a name into the cloud object's id, through    before create and
              the cloud's finder (``Cloud.find``)                 before the update diff
                                                                  (``resolve``, at the edge)

Because RESOLVE runs on the new properties before an update is diffed, and the
stored properties were resolved when created, a network named by its name and
later by its id is the same value: the subnet is not replaced.

A path is a tuple of property names; a list of maps in the way is walked item by
item (``("fixed_ips", "subnet")`` is the ``subnet`` of each fixed IP). REPLACE
with ``value_name`` takes the old value beside the new key in that same item.
``translate`` does no I/O; ``resolve`` asks only the ``lookup`` it is given.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from hotplate.model.errors import StackValidationFailed

__all__ = ["Rule", "TranslationRule", "has_resolve", "resolve", "translate"]

Lookup = Callable[[str, str], str]
"""``lookup(kind, name_or_id) -> id`` (``Cloud.find``)."""


class Rule(StrEnum):
    ADD = "Add"
    REPLACE = "Replace"
    DELETE = "Delete"
    RESOLVE = "Resolve"


@dataclass(frozen=True, slots=True)
class TranslationRule:
    """One rule. ``path`` is the property it writes (for DELETE: drops).

    REPLACE and ADD take their value from ``value`` (a constant), from
    ``value_path`` (another property, from the top) or from ``value_name`` (a key
    beside the last one of ``path``, inside the same list item). RESOLVE looks up
    the value at ``path`` as a ``finder`` kind (``"network"``).
    """

    rule: Rule
    path: tuple[str, ...]
    value: Any = None
    value_path: tuple[str, ...] | None = None
    value_name: str | None = None
    finder: str | None = None

    @classmethod
    def replace(cls, path: Sequence[str], old: Sequence[str] | str) -> TranslationRule:
        """``old`` is a deprecated name of ``path``: a path from the top, or (a str)
        a key beside ``path``'s last key."""
        if isinstance(old, str) and len(path) > 1:
            return cls(Rule.REPLACE, tuple(path), value_name=old)
        return cls(Rule.REPLACE, tuple(path), value_path=(old,) if isinstance(old, str)
                   else tuple(old))

    @classmethod
    def resolve(cls, path: Sequence[str], finder: str) -> TranslationRule:
        return cls(Rule.RESOLVE, tuple(path), finder=finder)

    @classmethod
    def delete(cls, path: Sequence[str]) -> TranslationRule:
        return cls(Rule.DELETE, tuple(path))

    @classmethod
    def add(cls, path: Sequence[str], *, value: Sequence[Any] | None = None,
            value_path: Sequence[str] | None = None) -> TranslationRule:
        return cls(Rule.ADD, tuple(path), value=list(value) if value is not None else None,
                   value_path=tuple(value_path) if value_path is not None else None)


def has_resolve(rules: Iterable[TranslationRule]) -> bool:
    """Whether any rule needs the cloud (the engine then builds one)."""
    return any(r.rule is Rule.RESOLVE for r in rules)


# -- walking -------------------------------------------------------------------------
def _containers(data: Any, parents: Sequence[str]) -> list[dict[str, Any]]:
    """The maps that hold the last key of a path whose leading keys are ``parents``;
    lists on the way are walked item by item."""
    found: list[Any] = [data]
    for key in parents:
        step: list[Any] = []
        for item in found:
            value = item.get(key) if isinstance(item, dict) else None
            if isinstance(value, list):
                step.extend(v for v in value if isinstance(v, dict))
            elif isinstance(value, dict):
                step.append(value)
        found = step
    return [item for item in found if isinstance(item, dict)]


def _value_at(data: Mapping[str, Any], path: Sequence[str]) -> Any:
    holders = _containers(data, path[:-1])
    values = [h.get(path[-1]) for h in holders if h.get(path[-1]) is not None]
    if not values:
        return None
    return values[0] if len(path) == 1 else values


# -- the pure rules --------------------------------------------------------------------
def translate(rules: Iterable[TranslationRule], raw: Mapping[str, Any] | None,
              where: Sequence[str | int] = ("properties",)) -> Mapping[str, Any] | None:
    """``raw`` with every REPLACE, ADD and DELETE rule applied (RESOLVE is ``resolve``'s).

    ``raw`` is not changed; a value that is not a map is returned as is (validation
    refuses it, naming it). Rules apply in Heat's order: per rule as listed, with a
    REPLACE reading the old name before a DELETE could drop it.

    Raises:
        StackValidationFailed: a REPLACE rule's old and new names are both given:
            ``Cannot define the following properties at the same time: network,
            network_id`` (Heat's words, with ``where`` and the key as its path).
    """
    pure = [r for r in rules if r.rule is not Rule.RESOLVE]
    if not pure or not isinstance(raw, Mapping):
        return raw
    data = copy.deepcopy(dict(raw))
    for rule in pure:
        if rule.rule is Rule.REPLACE:
            _replace(rule, data, tuple(where))
        elif rule.rule is Rule.ADD:
            _add(rule, data)
        else:
            for holder in _containers(data, rule.path[:-1]):
                holder.pop(rule.path[-1], None)
    return data


def _replace(rule: TranslationRule, data: dict[str, Any], where: tuple[str | int, ...]) -> None:
    key = rule.path[-1]
    if rule.value_name is not None:
        for holder in _containers(data, rule.path[:-1]):
            old = holder.pop(rule.value_name, None)
            _put(holder, key, old, ".".join(rule.path),
                 ".".join((*rule.path[:-1], rule.value_name)), where)
        return
    if rule.value_path is not None:
        old_holders = _containers(data, rule.value_path[:-1])
        old = None
        for holder in old_holders:
            found = holder.pop(rule.value_path[-1], None)
            old = found if found is not None else old
        for holder in _containers(data, rule.path[:-1]):
            _put(holder, key, old, ".".join(rule.path), ".".join(rule.value_path), where)
        return
    for holder in _containers(data, rule.path[:-1]):
        if rule.value is not None:
            holder[key] = copy.deepcopy(rule.value)


def _put(holder: dict[str, Any], key: str, old: Any, new_name: str, old_name: str,
         where: tuple[str | int, ...]) -> None:
    if old is None:
        return
    if holder.get(key) is not None:
        raise StackValidationFailed(
            "Cannot define the following properties at the same time: "
            f"{new_name}, {old_name}", where)
    holder[key] = old


def _add(rule: TranslationRule, data: dict[str, Any]) -> None:
    extra: list[Any] = []
    if rule.value is not None:
        extra = list(rule.value)
    elif rule.value_path is not None:
        found = _value_at(data, rule.value_path)
        if found is not None:
            extra = list(found) if isinstance(found, list) else [found]
    if not extra:
        return
    for holder in _containers(data, rule.path[:-1]):
        current = holder.get(rule.path[-1])
        base = list(current) if isinstance(current, list) else []
        holder[rule.path[-1]] = base + copy.deepcopy(extra)


# -- at the edge: RESOLVE --------------------------------------------------------------
def resolve(rules: Iterable[TranslationRule], props: Mapping[str, Any],
            lookup: Lookup) -> dict[str, Any]:
    """``props`` with each RESOLVE rule's values replaced by ``lookup``'s ids.

    Values in a list (a list of names, or a key of each item of a list of maps)
    are each looked up; None and empty values stay as they are. A failed lookup
    raises the finder's error (Heat's "Unable to find network ...").
    """
    out = copy.deepcopy(dict(props))
    for rule in rules:
        if rule.rule is not Rule.RESOLVE or rule.finder is None:
            continue
        finder = rule.finder
        for holder in _containers(out, rule.path[:-1]):
            key = rule.path[-1]
            value = holder.get(key)
            if isinstance(value, list):
                holder[key] = [lookup(finder, str(v)) if v not in (None, "") else v
                               for v in value]
            elif value not in (None, ""):
                holder[key] = lookup(finder, str(value))
    return out

"""Drift: where a resource's live state differs from what its template gave it. Pure.

The engine reads each resource's live state (resources/live_state.py) and
hands this module two mappings of property values: ``expected`` (the
properties the template resolved to, as stored when the resource was last
created or updated) and ``live`` (what the cloud has, for the properties the
type reads back). What is compared::

    property the type does not read back   not compared
    expected None (the template left it)   not compared: the cloud chose it
    a mapping given as a free-form map     equal keys and values
      (metadata, value_specs)              (an extra live key is drift)
    any other mapping (a list item with    its keys that the template set;
      a schema: a port's fixed IP)         live keys it did not set are the cloud's
    a list of plain values (tags)          the same values, in any order
    any other list                         the same length, item by item
    numbers and strings                    equal, or equal as text ("1" and 1)

The same test serves an update that converges (``drifted_properties``): only
the properties that differ are taken from the live state, so what the cloud
filled in by itself never turns into a change the template did not ask for.

A resource's verdict (``ResourceDrift.status``)::

    IN_SYNC      read, and nothing differs
    DRIFTED      read, and ``differences`` lists what differs
    NOT_CHECKED  its type has no live state (Heat's own types, nested stacks)
    DELETED      its cloud object is gone
    UNKNOWN      its live state could not be read (``reason`` says why)
    (no object yet, or a failed create: NOT_CHECKED)
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["Difference", "DriftStatus", "ResourceDrift", "compare_resource", "drift_report",
           "drifted_properties", "values_match"]


class DriftStatus(StrEnum):
    IN_SYNC = "IN_SYNC"
    DRIFTED = "DRIFTED"
    NOT_CHECKED = "NOT_CHECKED"
    DELETED = "DELETED"
    UNKNOWN = "UNKNOWN"


@dataclass(frozen=True, slots=True)
class Difference:
    """One property whose live value is not the template's."""

    resource: str
    type: str
    property: str
    expected: Any
    actual: Any

    def as_dict(self) -> dict[str, Any]:
        return {"resource": self.resource, "type": self.type, "property": self.property,
                "expected": self.expected, "actual": self.actual}


@dataclass(frozen=True, slots=True)
class ResourceDrift:
    """One resource's verdict, and its differences when it drifted."""

    resource: str
    type: str
    physical_resource_id: str | None
    status: DriftStatus
    differences: tuple[Difference, ...] = field(default_factory=tuple)
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The resource's line of a drift report (its differences are listed apart)."""
        return {"resource_name": self.resource, "resource_type": self.type,
                "physical_resource_id": self.physical_resource_id,
                "drift_status": str(self.status), "drift_status_reason": self.reason}


def drift_report(verdicts: Iterable[ResourceDrift]) -> dict[str, Any]:
    """``stack drift``'s answer: each resource's verdict, then every difference."""
    listed = list(verdicts)
    return {"resources": [v.as_dict() for v in listed],
            "differences": [d.as_dict() for v in listed for d in v.differences]}


def values_match(expected: Any, actual: Any, *, free_form: bool = False) -> bool:
    """Whether ``actual`` is what ``expected`` asked for (the module docstring's rules).

    ``free_form``: ``expected`` is a free-form map, whose keys are all the user's.
    """
    if expected is None:
        return True
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return False
        if free_form:
            return _same_map(expected, actual)
        return all(values_match(value, actual.get(key)) for key, value in expected.items()
                   if value is not None)
    if isinstance(expected, list | tuple):
        return _lists_match(list(expected), actual)
    return _scalars_match(expected, actual)


def _same_map(expected: Mapping[Any, Any], actual: Mapping[Any, Any]) -> bool:
    if set(map(str, expected)) != set(map(str, actual)):
        return False
    wanted = {str(k): v for k, v in expected.items()}
    return all(_plain_match(wanted[str(k)], v) for k, v in actual.items())


def _plain_match(expected: Any, actual: Any) -> bool:
    """Equal as given: inside a free-form map a None is a value like any other."""
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        return _same_map(expected, actual)
    if expected is None or actual is None:
        return expected is actual
    return values_match(expected, actual)


def _lists_match(expected: list[Any], actual: Any) -> bool:
    if not isinstance(actual, list | tuple):
        return False
    actual = list(actual)
    if len(expected) != len(actual):
        return False
    if all(_is_plain(v) for v in (*expected, *actual)):
        return sorted(map(_text, expected)) == sorted(map(_text, actual))
    return all(values_match(e, a) for e, a in zip(expected, actual, strict=True))


def _is_plain(value: Any) -> bool:
    return isinstance(value, str | int | float | bool) or value is None


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _scalars_match(expected: Any, actual: Any) -> bool:
    if expected == actual and type(expected) is type(actual):
        return True
    if isinstance(expected, bool) or isinstance(actual, bool):  # "True" reads as true
        return _text(expected).lower() == _text(actual).lower()
    if actual is None:
        return False
    return expected == actual or str(expected) == str(actual)


def drifted_properties(expected: Mapping[str, Any], live: Mapping[str, Any],
                       free_form: Collection[str] = ()) -> list[str]:
    """The properties read back (``live``) whose values are not ``expected``'s, in
    ``live``'s order; ``free_form`` names the free-form map properties."""
    return [key for key, actual in live.items()
            if not values_match(expected.get(key), actual, free_form=key in free_form)]


def compare_resource(name: str, type_name: str, physical_id: str | None,
                     expected: Mapping[str, Any], live: Mapping[str, Any],
                     free_form: Iterable[str] = ()) -> ResourceDrift:
    """A read resource's verdict: IN_SYNC, or DRIFTED with one difference a property."""
    maps = frozenset(free_form)
    differences = tuple(
        Difference(name, type_name, key, expected.get(key), live[key])
        for key in drifted_properties(expected, live, maps))
    status = DriftStatus.DRIFTED if differences else DriftStatus.IN_SYNC
    return ResourceDrift(name, type_name, physical_id, status, differences)

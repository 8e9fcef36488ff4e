"""Whether a changed resource definition is updated in place or replaced."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class UpdateKind(StrEnum):
    NO_CHANGE = "NO_CHANGE"
    IN_PLACE = "IN_PLACE"
    REPLACE = "REPLACE"


@dataclass(frozen=True, slots=True)
class UpdateDecision:
    kind: UpdateKind
    prop_diff: Mapping[str, Any] = field(default_factory=dict)


def property_diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """The properties whose value changed, with their new values (removed ones as None)."""
    diff = {key: value for key, value in new.items() if old.get(key) != value}
    for key in old:
        if key not in new:
            diff[key] = None
    return diff


def decide_update(
    old_props: Mapping[str, Any],
    new_props: Mapping[str, Any],
    update_allowed: Collection[str],
    *,
    metadata_changed: bool = False,
) -> UpdateDecision:
    """Compare stored and newly resolved properties.

    Any change to a property that is not ``update_allowed`` needs a new
    physical resource. A metadata-only change is an in-place update with an
    empty property diff, as in Heat.
    """
    diff = property_diff(old_props, new_props)
    if not diff:
        if metadata_changed:
            return UpdateDecision(UpdateKind.IN_PLACE, {})
        return UpdateDecision(UpdateKind.NO_CHANGE)
    # Only properties the type declares now count, as in Heat (a provider template
    # that dropped a parameter updates its stack rather than replacing it).
    if any(key not in update_allowed for key in diff if key in new_props):
        return UpdateDecision(UpdateKind.REPLACE, diff)
    return UpdateDecision(UpdateKind.IN_PLACE, diff)

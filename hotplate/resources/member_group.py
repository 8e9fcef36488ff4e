"""What every group of members in a child stack shares: names, the template, attributes.

ResourceGroup and ResourceChain both keep their members in a child stack
(members named ``0``, ``1``, ...) and answer the same synthetic attributes,
as Heat's do: ``refs`` (the members' reference ids, in name order),
``refs_map``, ``resource.<n>`` (a member's reference id),
``resource.<n>.<attr>`` and ``[resource.<n>, attr, ...]`` (a member's
attribute), ``[attributes, attr]`` (a map of member names to their
``attr``), and any other name: the list of that attribute over the members.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources.attributes import InvalidTemplateAttribute
from hotplate.resources.base import select_path
from hotplate.resources.group_steps import Steps
from hotplate.resources.nested import ChildMember
from hotplate.resources.stack_resource import StackResource

__all__ = ["ATTRIBUTES", "CHILD_VERSION", "MemberGroup", "MemberNotFound", "REFS", "REFS_MAP"]

REFS, REFS_MAP, ATTRIBUTES = "refs", "refs_map", "attributes"
MEMBER_PREFIX = "resource."
CHILD_VERSION = "2015-04-30"
SHOW = "show"


class MemberNotFound(Exception):
    def __init__(self, member: str, group: str) -> None:
        super().__init__(f"Member '{member}' not found in group resource '{group}'.")


class MemberGroup(StackResource):
    """A stack-backed resource whose child holds its members."""

    path_attributes = True

    def _names(self, size: int | None = None) -> list[str]:
        """The members' names, in order."""
        raise NotImplementedError

    def _template(self, members: list[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
        return {"heat_template_version": CHILD_VERSION,
                "resources": {name: dict(defn) for name, defn in members}}

    def child_parameters(self) -> dict[str, Any]:
        return {}

    def next_check_after(self, data: Any) -> float | None:
        """A batched action knows when its pause ends (group_steps.py)."""
        if isinstance(data, Steps):
            return data.next_check_after(self.ctx.clock.now())
        return None

    def _members(self) -> list[ChildMember]:
        if self.resource_id is None:
            return []
        return self._stacks().members(str(self.resource_id))

    def _member_attribute(self, member: str, attribute: str) -> Any:
        if self.resource_id is None:
            return None
        return self._stacks().member_attribute(str(self.resource_id), member, attribute)

    # -- attributes -----------------------------------------------------------------
    def get_attribute(self, name: str) -> Any:
        if name == ATTRIBUTES:
            raise InvalidTemplateAttribute(self.name, name)
        if name in (REFS, REFS_MAP) or name.startswith(MEMBER_PREFIX):
            return self._reference_attribute(name)
        if name == SHOW:
            return super().get_attribute(name)
        return [self._member_attribute(n, name) for n in self._names()]

    def get_attribute_path(self, name: str, path: tuple[Any, ...]) -> Any:
        if not path or name in (REFS, REFS_MAP, SHOW):
            return super().get_attribute_path(name, path)
        attribute, rest = str(path[0]), tuple(path[1:])
        if name == ATTRIBUTES:
            return {n: select_path(self._member_attribute(n, attribute), rest)
                    for n in self._names()}
        if name.startswith(MEMBER_PREFIX):
            parts = name.split(".", 2)
            if len(parts) == 2:
                self._check_member(parts[1])
                return select_path(self._member_attribute(parts[1], attribute), rest)
            return super().get_attribute_path(name, path)
        return [select_path(self._member_attribute(n, name), tuple(path))
                for n in self._names()]

    def _reference_attribute(self, name: str) -> Any:
        refs = {m.name: m.reference_id for m in self._members()}
        if name == REFS:
            return [refs.get(n) for n in self._names()]
        if name == REFS_MAP:
            return {n: refs.get(n) for n in self._names()}
        _, member, *rest = name.split(".", 2)
        if rest:
            self._check_member(member)
            return self._member_attribute(member, rest[0])
        if self.resource_id is not None and member not in refs:
            raise MemberNotFound(member, self.name)
        return refs.get(member)

    def _check_member(self, member: str) -> None:
        if self.resource_id is not None and member not in self._names():
            raise MemberNotFound(member, self.name)

    def _resolve_attribute(self, name: str) -> Any:
        if name == ATTRIBUTES:
            return None
        return self.get_attribute(name)

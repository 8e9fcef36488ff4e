"""OS::Heat::ResourceGroup: ``count`` identically configured resources in a nested stack.

The group's child stack holds members named ``0``, ``1``, ... built from
``resource_def`` (``%index%``, or ``index_var``, replaced by each member's
name). Names removed by ``removal_policies`` are never reused; the list is
kept in the group's resource data (``name_blacklist``, Heat's key), so it
survives updates and shows in abandon documents as Heat's does.

An update that changes ``resource_def`` under a ``rolling_update`` policy,
and a create under ``batch_create``, change the child in batches
(``rolling_update.py``) with ``pause_time`` between them; otherwise the
child is updated in one go. Attributes read the members: ``refs``,
``refs_map``, ``resource.<n>`` and ``resource.<n>.<attr>``, and any other
name is the list of that attribute over the members.
"""

from __future__ import annotations

import copy
import functools
import itertools
from collections.abc import Iterator, Mapping
from typing import Any

from hotplate.resources.attributes import Attribute
from hotplate.resources.base import select_path
from hotplate.resources.constraints import AllowedValues, Length, Range
from hotplate.resources.group_steps import Apply, Pause, Steps
from hotplate.resources.member_group import ATTRIBUTES, REFS, REFS_MAP, MemberGroup
from hotplate.resources.properties import Schema, with_defaults
from hotplate.resources.rolling_update import batches, member_definitions
from hotplate.resources.support import SupportStatus

__all__ = ["ResourceGroup"]

COUNT, INDEX_VAR, RESOURCE_DEF = "count", "index_var", "resource_def"
REMOVAL_POLICIES, REMOVAL_POLICIES_MODE = "removal_policies", "removal_policies_mode"
DEF_TYPE, DEF_PROPERTIES, DEF_METADATA = "type", "properties", "metadata"
RESOURCE_LIST = "resource_list"
REMOVED_LIST = "removed_rsrc_list"
ROLLING_UPDATE, BATCH_CREATE = "rolling_update", "batch_create"
MIN_IN_SERVICE, MAX_BATCH_SIZE, PAUSE_TIME = "min_in_service", "max_batch_size", "pause_time"
SKIPLIST_KEY = "name_blacklist"


class ResourceGroup(MemberGroup):
    """Creates one or more identically configured nested resources.

    In addition to the `refs` attribute, this resource implements synthetic
    attributes that mirror those of the resources in the group. When getting
    an attribute from this resource, a list of attribute values for each
    resource in the group is returned. To get attribute values for a single
    resource in the group, synthetic attributes of the form
    `resource.{resource index}.{attribute name}` can be used. The resource ID
    of a particular resource in the group can be obtained via the synthetic
    attribute `resource.{resource index}`.
    """

    support_status = SupportStatus(version="2014.1")
    properties_schema = {
        COUNT: Schema(Schema.INTEGER, "The number of resources to create.", default=1,
                      constraints=[Range(min=0)], update_allowed=True),
        INDEX_VAR: Schema(
            Schema.STRING, "A variable that this resource will use to replace with the "
            "current index of a given resource in the group.", default="%index%",
            constraints=[Length(min=3)], support_status=SupportStatus(version="2014.2")),
        RESOURCE_DEF: Schema(
            Schema.MAP, "Resource definition for the resources in the group. The value "
            "of this property is the definition of a resource just as if it had been "
            "declared in the template itself.",
            schema={
                DEF_TYPE: Schema(Schema.STRING, "The type of the resources in the group.",
                                 required=True),
                DEF_PROPERTIES: Schema(Schema.MAP,
                                       "Property values for the resources in the group."),
                DEF_METADATA: Schema(Schema.MAP,
                                     "Supplied metadata for the resources in the group.",
                                     support_status=SupportStatus(version="5.0.0")),
            },
            required=True, update_allowed=True),
        REMOVAL_POLICIES: Schema(
            Schema.LIST, "Policies for removal of resources on update.",
            schema=Schema(Schema.MAP, "Policy to be processed when doing an update which "
                          "requires removal of specific resources.", schema={
                              RESOURCE_LIST: Schema(
                                  Schema.LIST, "List of resources to be removed when doing "
                                  "an update which requires removal of specific resources.",
                                  default=[]),
                          }),
            default=[], update_allowed=True, support_status=SupportStatus(version="2015.1")),
        REMOVAL_POLICIES_MODE: Schema(
            Schema.STRING, 'How to handle changes to removal_policies on update. The default '
            '"append" mode appends to the internal list, "update" replaces it on update.',
            default="append", constraints=[AllowedValues(("append", "update"))],
            update_allowed=True, support_status=SupportStatus(version="10.0.0")),
    }
    attributes_schema = {
        REFS: Attribute("A list of resource IDs for the resources in the group.",
                        Attribute.LIST),
        REFS_MAP: Attribute("A map of resource names to IDs for the resources in the group.",
                            Attribute.MAP, support_status=SupportStatus(version="7.0.0")),
        ATTRIBUTES: Attribute("A map of resource names to the specified attribute of each "
                              "individual resource. Requires heat_template_version: "
                              "2014-10-16.", Attribute.MAP,
                              support_status=SupportStatus(version="2014.2")),
        REMOVED_LIST: Attribute("A list of removed resource names.", Attribute.LIST,
                                support_status=SupportStatus(version="7.0.0")),
    }

    # -- names ----------------------------------------------------------------------
    def _skiplist(self) -> list[str]:
        stored = self.data().get(SKIPLIST_KEY)
        return stored.split(",") if stored else []

    def _new_skiplist_entries(self, current: set[str]) -> Iterator[str]:
        members = {m.name: m.reference_id for m in self._members()}
        for policy in self.properties[REMOVAL_POLICIES] or ():
            for item in policy.get(RESOURCE_LIST) or ():
                name = str(item)
                if name in current or self.resource_id is None or name in members:
                    yield name
                elif isinstance(item, str):
                    yield from (m for m, ref in members.items() if ref == item)

    def _update_skiplist(self) -> None:
        current = set(self._skiplist())
        start = set() if self.properties[REMOVAL_POLICIES_MODE] == "update" else current
        wanted = start | set(self._new_skiplist_entries(current))
        if wanted != current:
            self.data_set(SKIPLIST_KEY, ",".join(sorted(wanted)))

    def _names(self, size: int | None = None) -> list[str]:
        """The first ``size`` (default ``count``) member names not removed."""
        skipped = set(self._skiplist())
        count = self.properties[COUNT] if size is None else size
        candidates = (str(i) for i in itertools.count())
        return list(itertools.islice((n for n in candidates if n not in skipped), count))

    # -- the child template ---------------------------------------------------------
    def member_definition(self, name: str) -> dict[str, Any]:
        """The member's snippet in the child template: ``resource_def`` for this name."""
        resource_def = self.properties[RESOURCE_DEF]
        snippet: dict[str, Any] = {"type": resource_def[DEF_TYPE]}
        props = resource_def.get(DEF_PROPERTIES)
        if props:
            cleaned = {k: v for k, v in props.items() if v is not None}
            snippet["properties"] = _with_index(cleaned, self.properties[INDEX_VAR], name)
        if resource_def.get(DEF_METADATA):
            snippet["metadata"] = copy.deepcopy(resource_def[DEF_METADATA])
        return snippet

    def child_template(self) -> dict[str, Any]:
        return self._template([(n, self.member_definition(n)) for n in self._names()])

    def child_parameters(self) -> dict[str, Any]:
        return {}

    def preview_child(self) -> tuple[Mapping[str, Any] | str, dict[str, Any]] | None:
        """As an update builds it: the names the removal policies take out are skipped
        first (recorded in the preview's context only)."""
        self._update_skiplist()
        return super().preview_child()

    @classmethod
    def validation_template(cls, properties: Mapping[str, Any]) -> dict[str, Any] | None:
        """One member, to validate the definition; none at count 0 (Heat's rule, so a
        count of 0 can switch off a feature whose members would not validate)."""
        props = with_defaults(cls.properties_schema, properties)
        if not props[COUNT]:
            return None
        group = cls.__new__(cls)
        group.properties = props
        return group._template([("0", group.member_definition("0"))])

    def _current_definitions(self) -> list[tuple[str, Mapping[str, Any]]]:
        """The live members' definitions in the child's template, failed ones left out."""
        template = self._stacks().template(str(self.resource_id)) if self.resource_id else {}
        resources = template.get("resources") or {}
        skipped = set(self._skiplist())
        return [(m.name, resources[m.name]) for m in self._members()
                if m.status != "FAILED" and m.name not in skipped and m.name in resources]

    def _rolling_template(self, size: int, changes: int) -> dict[str, Any]:
        """Heat's rolling-update template: which members change in this batch."""
        names = self._names(size)
        target = self.properties[COUNT]
        old = self._current_definitions()

        def priority(item: tuple[str, Mapping[str, Any]]) -> int:
            if item[0] not in names:
                return 0  # outside the group's names: removed first
            index = names.index(item[0])
            return target - index if index < target else size

        existing = {name for name, _ in old}
        fresh = (n for n in names if n not in existing)
        chosen = member_definitions(sorted(old, key=priority), self.member_definition,
                                    size, changes, lambda: next(fresh))
        return self._template(list(chosen))

    # -- handlers -------------------------------------------------------------------
    def _batched(self, min_in_service: int, batch_size: int, pause: float) -> Steps:
        skipped = set(self._skiplist())
        current = sum(1 for m in self._members() if m.name not in skipped)
        planned = list(batches(self.properties[COUNT], current, batch_size, min_in_service))
        steps: list[Apply | Pause] = []
        for index, (size, changes) in enumerate(planned):
            steps.append(Apply(functools.partial(self._rolling_template, size, changes)))
            if index < len(planned) - 1 and pause > 0:
                steps.append(Pause(pause))
        return Steps(steps)

    def _policy(self, name: str) -> Mapping[str, Any] | None:
        policy = self.update_policy().get(name)
        return policy if isinstance(policy, Mapping) else None

    def handle_create(self) -> Any:
        self._update_skiplist()
        policy = self._policy(BATCH_CREATE)
        if policy is not None and self.properties[COUNT]:
            steps = self._batched(0, _int(policy, MAX_BATCH_SIZE, 1),
                                  _number(policy, PAUSE_TIME))
        else:
            steps = Steps([Apply(self.child_template)])
        steps.advance(self)
        return steps

    def check_create_complete(self, data: Any) -> bool:
        return bool(data.advance(self))

    def handle_adopt(self, entry: Mapping[str, Any]) -> Any:
        """All ``count`` members at once, each adopted from ``entry['resources']`` under
        its name (``0``, ``1``...), as Heat's handle_adopt; no batches, no removals."""
        return self.adopt_child(entry)

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        self.properties = with_defaults(self.properties_schema, new_properties)
        self._update_skiplist()
        policy = self._policy(ROLLING_UPDATE)
        if RESOURCE_DEF in prop_diff and policy is not None and self.resource_id is not None:
            steps = self._batched(_int(policy, MIN_IN_SERVICE, 0),
                                  _int(policy, MAX_BATCH_SIZE, 1), _number(policy, PAUSE_TIME))
        else:
            steps = Steps([Apply(self.child_template)])
        steps.advance(self)
        return steps

    def check_update_complete(self, data: Any) -> bool:
        return bool(data.advance(self))

    # -- attributes -----------------------------------------------------------------
    def get_attribute(self, name: str) -> Any:
        if name == REMOVED_LIST:
            return self._skiplist()
        return super().get_attribute(name)

    def get_attribute_path(self, name: str, path: tuple[Any, ...]) -> Any:
        if name == REMOVED_LIST:
            return select_path(self._skiplist(), path)
        return super().get_attribute_path(name, path)


def _with_index(value: Any, variable: str, name: str) -> Any:
    if isinstance(value, str):
        return value.replace(variable, name)
    if isinstance(value, Mapping):
        return {k: _with_index(v, variable, name) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_index(v, variable, name) for v in value]
    return value


def _int(policy: Mapping[str, Any], key: str, default: int) -> int:
    value = policy.get(key)
    return default if value is None else int(value)


def _number(policy: Mapping[str, Any], key: str) -> float:
    value = policy.get(key)
    return 0.0 if value is None else float(value)

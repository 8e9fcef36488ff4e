"""OS::Nova::HostAggregate (Heat's ``host_aggregate.py``).

Every property changes in place: hosts join and leave by their difference with
the hosts Nova lists, metadata is set again (a key the template dropped is
unset), and a new name or availability zone is one update. The delete takes
every host out first, as Nova deletes only an empty aggregate; anything
already gone is fine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources.constraints import CustomConstraint
from hotplate.resources.openstack.nova.base import NovaResource, is_not_found
from hotplate.resources.properties import Schema
from hotplate.resources.support import SupportStatus

__all__ = ["HostAggregate", "host_changes", "metadata_changes"]


def host_changes(new: list[str] | None, current: list[str]) -> tuple[list[str], list[str]]:
    """(hosts to add, hosts to remove) to go from ``current`` to ``new``."""
    wanted = list(dict.fromkeys(new or []))
    return [h for h in wanted if h not in current], [h for h in current if h not in wanted]


def metadata_changes(new: Mapping[str, Any] | None,
                     old: Mapping[str, Any] | None) -> dict[str, Any]:
    """Nova's ``set_metadata`` body: the new values, and None (unset) for dropped keys."""
    changes: dict[str, Any] = {k: None for k in (old or {}) if k not in (new or {})}
    changes.update(new or {})
    return changes


class HostAggregate(NovaResource):
    """A resource for further partition an availability zone with hosts.

    While availability zones are visible to users, host aggregates are only
    visible to administrators. Host aggregates started out as a way to use
    Xen hypervisor resource pools, but has been generalized to provide a
    mechanism to allow administrators to assign key-value pairs to groups of
    machines. Each node can have multiple aggregates, each aggregate can have
    multiple key-value pairs, and the same key-value pair can be assigned to
    multiple aggregate. This information can be used in the scheduler to
    enable advanced scheduling, to set up xen hypervisor resources pools or to
    define logical groups for migration.
    """

    support_status = SupportStatus(version="6.0.0")
    path, entity = "/os-aggregates", "aggregate"

    properties_schema = {
        "name": Schema(Schema.STRING, "Name for the aggregate.", required=True,
                       update_allowed=True),
        "availability_zone": Schema(Schema.STRING, "Name for the availability zone.",
                                    update_allowed=True),
        "hosts": Schema(Schema.LIST, "List of hosts to join aggregate.", update_allowed=True,
                        schema=Schema(Schema.STRING,
                                      constraints=[CustomConstraint("nova.host")])),
        "metadata": Schema(Schema.MAP, "Arbitrary key/value metadata to store information "
                           "for aggregate.", update_allowed=True, default={}),
    }

    def _action(self, body: Mapping[str, Any]) -> None:
        self.nova().post(f"{self.path}/{self.resource_id}/action", dict(body))

    def handle_create(self) -> Any:
        props = self.properties
        body = {"name": props["name"], "availability_zone": props.get("availability_zone")}
        made = self.nova().post(self.path, {"aggregate": body})["aggregate"]
        self.resource_id_set(str(made["id"]))
        if props.get("metadata"):
            self._action({"set_metadata": {"metadata": dict(props["metadata"])}})
        for host in props.get("hosts") or []:
            self._action({"add_host": {"host": host}})
        return None

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        if "hosts" in prop_diff:
            current = [str(h) for h in self.show().get("hosts") or []]
            added, removed = host_changes(prop_diff["hosts"], current)
            for host in added:
                self._action({"add_host": {"host": host}})
            for host in removed:
                self._action({"remove_host": {"host": host}})
        if "metadata" in prop_diff:
            changes = metadata_changes(prop_diff["metadata"], self.properties.get("metadata"))
            if changes:
                self._action({"set_metadata": {"metadata": changes}})
        fields = {k: prop_diff[k] for k in ("name", "availability_zone") if k in prop_diff}
        if fields:
            self.nova().put(f"{self.path}/{self.resource_id}", {"aggregate": fields})
        return super().handle_update(new_properties, prop_diff)

    def parse_live_resource_data(self, resource_properties: Mapping[str, Any],
                                 resource_data: Mapping[str, Any]) -> dict[str, Any]:
        """Heat's reading of an aggregate: each property under its own name; the zone
        Nova also keeps among the metadata is not metadata the template gave."""
        result = {key: resource_data.get(key) for key in self.properties_schema}
        metadata = dict(resource_data.get("metadata") or {})
        if "availability_zone" not in (resource_properties.get("metadata") or {}):
            metadata.pop("availability_zone", None)
        result["metadata"] = metadata
        return result

    def handle_delete(self) -> Any:
        if self.resource_id is None:
            return None
        try:
            hosts = self.show().get("hosts") or []
        except Exception as exc:
            if is_not_found(exc):
                return None
            raise
        for host in hosts:
            self._action({"remove_host": {"host": host}})
        return super().handle_delete()

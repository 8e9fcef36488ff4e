"""OS::Nova::ServerGroup (Heat's ``server_group.py``).

One policy (the first of ``policies``) and, from microversion 2.64 on,
``rules``, as Heat sends them; the name is the ``name`` property or the
physical name. A retried create first looks for a group of that name among
the project's (the physical name is this resource's alone; a name the
template chose may be shared, so then it creates again). Every change
replaces the group.
"""

from __future__ import annotations

from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.constraints import AllowedValues
from hotplate.resources.openstack.nova.base import NovaResource
from hotplate.resources.properties import Schema
from hotplate.resources.support import SupportStatus

__all__ = ["ServerGroup"]

MICROVERSION_SOFT_POLICIES = "2.15"
MICROVERSION_RULE = "2.64"


class ServerGroup(NovaResource):
    """A resource for managing a Nova server group.

    Server groups allow you to make sure instances (VM/VPS) are on the same
    hypervisor host or on a different one.
    """

    support_status = SupportStatus(version="2014.2")
    path = "/os-server-groups"
    entity = "server_group"

    properties_schema = {
        "name": Schema(Schema.STRING, "Server Group name."),
        "policies": Schema(Schema.LIST, "A list of exactly one policy to apply. Defaults to "
                           "anti-affinity.", default=["anti-affinity"],
                           constraints=[AllowedValues(("anti-affinity", "affinity",
                                                       "soft-anti-affinity",
                                                       "soft-affinity"))],
                           schema=Schema(Schema.STRING)),
        "rules": Schema(Schema.MAP, "Rules for a policy.",
                        schema={"max_server_per_host": Schema(
                            Schema.NUMBER, "Maximum servers in a group on a given host. Rule "
                            "for anti-affinity policy.")},
                        support_status=SupportStatus(version="17.0.0")),
    }

    def physical_resource_name(self) -> str:
        return str(self.properties.get("name") or super().physical_resource_name())

    def _check_versions(self) -> None:
        api = self.nova()
        policies = self.properties.get("policies") or []
        if ({"soft-affinity", "soft-anti-affinity"} & set(policies)
                and not api.supports(MICROVERSION_SOFT_POLICIES)):
            raise StackValidationFailed("Required microversion for soft policies not "
                                        "supported.")
        if self.properties.get("rules") and not api.supports(MICROVERSION_RULE):
            raise StackValidationFailed("Required microversion for rules not supported.")

    def handle_create(self) -> Any:
        self._check_versions()
        api = self.nova()
        name = self.physical_resource_name()
        policies = list(self.properties.get("policies") or ["anti-affinity"])
        body: dict[str, Any] = {"name": name}
        if api.supports(MICROVERSION_RULE):
            body["policy"] = policies[0]
            rules = self.properties.get("rules")
            if rules:
                body["rules"] = {k: int(v) if float(v).is_integer() else v
                                 for k, v in rules.items() if v is not None}
        else:
            body["policies"] = policies
        made = self._made_before(name) if self.attempt.retry else None
        if made is None:
            made = api.post("/os-server-groups", {"server_group": body})["server_group"]
        self.resource_id_set(str(made["id"]))
        return None

    def _made_before(self, name: str) -> dict[str, Any] | None:
        if name != super().physical_resource_name():
            return None
        groups = self.nova().get("/os-server-groups")["server_groups"]
        matches = [g for g in groups if g.get("name") == name]
        return matches[0] if len(matches) == 1 else None

    def needs_replace_failed(self) -> bool:
        """Heat's hook: a FAILED group is replaced only when Nova no longer has it."""
        return self.resource_id is None or self._show_resource() is None

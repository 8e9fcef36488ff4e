"""AWS::EC2::SecurityGroup (Heat's ``aws/ec2/security_group.py``): a Neutron group.

The group is named after the physical name and described by
``GroupDescription``; its ingress and egress rules are properties of the
group, kept as Heat keeps them:

- **create**: the group, then, when any egress rule is listed, Neutron's
  default egress rules go (a group that lists none keeps them); then each rule,
  one call each, a conflict (the same rule already there) ignored.
- **update** (only the rule lists change in place): every rule Neutron holds is
  compared with the wanted ones by Heat's six keys (ports, protocol, direction,
  CIDR, remote group); those not wanted are deleted, the missing ones made.
  As in Heat, Neutron's default egress rules are not wanted either, so the
  first update takes them away.
- **delete**: the group with its rules, gone when Neutron says 404.

A rule's ports are strings in the template: negative ones (ICMP's ``-1``)
mean "any" (None), and a rule with no ports at all has no CIDR, as Heat sends
it. ``SourceSecurityGroupName`` is sent as the remote group when no id is
given. ``VpcId`` and ``SourceSecurityGroupOwnerId`` are not implemented (the
latter is refused). The reference is the group's id; there is no ``show``
view (Heat's type has no entity to show).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.openstack.neutron.api import ignoring, is_conflict
from hotplate.resources.openstack.neutron.base import NeutronResource
from hotplate.resources.properties import PropertyPath, Schema

__all__ = ["RULE_KEYS", "SecurityGroup", "neutron_rule", "rule_changes", "rule_of_neutron",
           "wanted_rules"]

INGRESS, EGRESS = "SecurityGroupIngress", "SecurityGroupEgress"
DIRECTIONS = {INGRESS: "ingress", EGRESS: "egress"}
CIDR, FROM, TO, PROTOCOL = "CidrIp", "FromPort", "ToPort", "IpProtocol"
GROUP_ID, GROUP_NAME, OWNER_ID = ("SourceSecurityGroupId", "SourceSecurityGroupName",
                                  "SourceSecurityGroupOwnerId")
RULE_KEYS = (FROM, TO, PROTOCOL, "direction", CIDR, GROUP_ID)
"""What makes two rules the same (Heat's common form of a rule)."""

_S = Schema.STRING
_RULE = {CIDR: Schema(_S), FROM: Schema(_S), TO: Schema(_S), PROTOCOL: Schema(_S),
         GROUP_ID: Schema(_S), GROUP_NAME: Schema(_S), OWNER_ID: Schema(_S)}

Rule = dict[str, Any]


def _port(value: Any) -> int | None:
    """A template's port as Neutron takes it: an int, a negative one meaning any."""
    if value is None:
        return None
    number = int(value)
    return number if number >= 0 else None


def wanted_rules(props: Mapping[str, Any]) -> list[Rule]:
    """The rules the properties ask for, ingress then egress, in the common form."""
    rules = []
    for key in (INGRESS, EGRESS):
        for given in props.get(key) or []:
            ported = given.get(FROM) is not None or given.get(TO) is not None
            rules.append({FROM: _port(given.get(FROM)), TO: _port(given.get(TO)),
                          PROTOCOL: given.get(PROTOCOL), "direction": DIRECTIONS[key],
                          CIDR: given.get(CIDR) if ported else None,
                          GROUP_ID: given.get(GROUP_ID) or given.get(GROUP_NAME)})
    return rules


def rule_of_neutron(rule: Mapping[str, Any]) -> Rule:
    """A rule Neutron holds, in the common form."""
    return {FROM: rule.get("port_range_min"), TO: rule.get("port_range_max"),
            PROTOCOL: rule.get("protocol"), "direction": rule.get("direction"),
            CIDR: rule.get("remote_ip_prefix"), GROUP_ID: rule.get("remote_group_id")}


def neutron_rule(rule: Mapping[str, Any], group_id: str) -> dict[str, Any]:
    """Neutron's create body of a rule in the common form (always IPv4, as Heat's)."""
    return {"direction": rule["direction"], "ethertype": "IPv4",
            "remote_ip_prefix": rule[CIDR], "port_range_min": rule[FROM],
            "port_range_max": rule[TO], "protocol": rule[PROTOCOL],
            "remote_group_id": rule[GROUP_ID], "security_group_id": group_id}


def rule_changes(existing: Mapping[str, Rule],
                 wanted: Sequence[Rule]) -> tuple[list[str], list[Rule]]:
    """(ids of Neutron's rules to delete, rules to make) to go from ``existing``
    (Neutron's, by id) to ``wanted``."""
    held = list(existing.values())
    return ([ident for ident, rule in existing.items() if rule not in wanted],
            [rule for rule in wanted if rule not in held])


class SecurityGroup(NeutronResource):
    """An AWS-compatible security group: a Neutron security group with its rules."""

    heat_class_name = "SecurityGroup"
    default_client_name = None  # type: ignore[assignment]
    """Heat's type names no client, so it is listed whatever the catalog holds."""
    entity = "security_group"
    collection = "security-groups"
    marked = True
    names_itself = False

    properties_schema = {
        "GroupDescription": Schema(_S, "Description of the security group.", required=True),
        "VpcId": Schema(_S, "Physical ID of the VPC. Not implemented."),
        INGRESS: Schema(Schema.LIST, update_allowed=True, schema=Schema(
            Schema.MAP, "List of security group ingress rules.", schema=_RULE)),
        EGRESS: Schema(Schema.LIST, update_allowed=True, schema=Schema(
            Schema.MAP, "List of security group egress rules.", schema=_RULE)),
    }

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        """Heat refuses the one rule key it declares without implementing."""
        for key in (INGRESS, EGRESS):
            for rule in props.get(key) or []:
                if isinstance(rule, Mapping) and rule.get(OWNER_ID) is not None:
                    raise StackValidationFailed(f"Property {OWNER_ID} not implemented yet")

    def create_body(self) -> dict[str, Any]:
        return {"name": self.physical_resource_name(),
                "description": self.properties["GroupDescription"]}

    def after_create(self, made: Mapping[str, Any]) -> None:
        if self.properties.get(EGRESS):
            for rule in made.get("security_group_rules") or []:
                if rule.get("direction") == "egress":
                    self.neutron().delete("security-group-rules", str(rule["id"]))
        self._make(wanted_rules(self.properties))

    def _make(self, rules: Iterable[Rule]) -> None:
        for rule in rules:
            with ignoring(is_conflict):
                self.neutron().create("security-group-rules", "security_group_rule",
                                      neutron_rule(rule, str(self.resource_id)))

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        if INGRESS in prop_diff or EGRESS in prop_diff:
            held = self.show().get("security_group_rules") or []
            stale, missing = rule_changes(
                {str(rule["id"]): rule_of_neutron(rule) for rule in held},
                wanted_rules(new_properties))
            for ident in stale:
                self.neutron().delete("security-group-rules", ident)  # 404: already gone
            self._make(missing)
        return super(NeutronResource, self).handle_update(new_properties, prop_diff)

    def _show_resource(self) -> Any:
        return None

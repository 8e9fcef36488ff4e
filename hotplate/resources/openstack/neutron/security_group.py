"""OS::Neutron::SecurityGroup and SecurityGroupRule (Heat's ``security_group*.py``).

A group's rules are a property of the group: created with it in one bulk call,
and on update brought to the wanted set by comparing each rule's key (Heat's
comparable fields), so rules that stay are left alone. A group without egress
rules keeps Neutron's default egress rules; one that lists any replaces them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hotplate.model.errors import NotSupported, StackValidationFailed
from hotplate.resources.constraints import AllowedValues, CustomConstraint, Range
from hotplate.resources.openstack.neutron.api import is_not_found
from hotplate.resources.openstack.neutron.base import NeutronResource
from hotplate.resources.openstack.neutron.subnet import conflict
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.support import SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["SecurityGroup", "SecurityGroupRule"]

_PROTOCOL_NAMES = ("ah", "dccp", "egp", "esp", "gre", "icmp", "icmpv6", "igmp", "ipv6-encap",
                   "ipv6-frag", "ipv6-icmp", "ipv6-nonxt", "ipv6-opts", "ipv6-route", "ospf",
                   "pgm", "rsvp", "sctp", "tcp", "udp", "udplite", "vrrp")
PROTOCOLS = (*range(256), *_PROTOCOL_NAMES)
PROTOCOL_DESCRIPTION = ("The protocol that is matched by the security group rule. Allowed "
                        "values are " + ", ".join(_PROTOCOL_NAMES) +
                        " and integer representations [0-255].")
_DIRECTION = ("The direction in which the security group rule is applied. For a compute "
              "instance, an ingress security group rule matches traffic that is incoming "
              "(ingress) for that instance. An egress rule is applied to traffic leaving the "
              "instance.")
_PORT_MIN = ("The minimum port number in the range that is matched by the security group "
             "rule. If the protocol is TCP or UDP, this value must be less than or equal to "
             "the value of the port_range_max attribute. If the protocol is ICMP, this value "
             "must be an ICMP type.")
_PORT_MAX = ("The maximum port number in the range that is matched by the security group "
             "rule. The port_range_min attribute constrains the port_range_max attribute. If "
             "the protocol is ICMP, this value must be an ICMP {}.")
_PORT_RANGE = [Range(min=0, max=65535)]
_STATELESS_UNSUPPORTED = ('Neutron does not support stateless security groups; remove the '
                          '"stateful" property or set it to true.')

_RULE_SCHEMA = {
    "direction": Schema(Schema.STRING, _DIRECTION, default="ingress",
                        constraints=[AllowedValues(("ingress", "egress"))]),
    "ethertype": Schema(Schema.STRING, "Ethertype of the traffic.", default="IPv4",
                        constraints=[AllowedValues(("IPv4", "IPv6"))]),
    "port_range_min": Schema(Schema.INTEGER, _PORT_MIN, constraints=_PORT_RANGE),
    "port_range_max": Schema(Schema.INTEGER, _PORT_MAX.format("type"), constraints=_PORT_RANGE),
    "protocol": Schema(Schema.STRING, PROTOCOL_DESCRIPTION + " If not specified, all "
                       "protocols will be matched.", constraints=[AllowedValues(PROTOCOLS)]),
    "remote_mode": Schema(Schema.STRING, "Whether to specify a remote group or a remote IP "
                          "prefix.", default="remote_ip_prefix",
                          constraints=[AllowedValues(("remote_ip_prefix", "remote_group_id"))]),
    "remote_group_id": Schema(Schema.STRING, "The remote group ID to be associated with this "
                              "security group rule. If no value is specified then this rule "
                              "will use this security group for the remote_group_id. The "
                              'remote mode parameter must be set to "remote_group_id".',
                              constraints=[CustomConstraint("neutron.security_group")]),
    "remote_ip_prefix": Schema(Schema.STRING, "The remote IP prefix (CIDR) to be associated "
                               "with this security group rule.",
                               constraints=[CustomConstraint("net_cidr")]),
    "description": Schema(Schema.STRING, "Description of the security group rule.",
                          support_status=SupportStatus(version="27.0.0")),
}

DEFAULT_EGRESS_RULES = ({"direction": "egress", "ethertype": "IPv4"},
                        {"direction": "egress", "ethertype": "IPv6"})
_COMPARED = ("direction", "ethertype", "protocol", "port_range_min", "port_range_max",
             "remote_group_id", "remote_ip_prefix", "security_group_id")


def rule_key(rule: Mapping[str, Any]) -> tuple[str | None, ...]:
    """What makes two rules the same rule (Heat's comparable keys, as strings)."""
    return tuple(str(rule[k]) if rule.get(k) is not None else None for k in _COMPARED)


class SecurityGroup(NeutronResource):
    """A resource for managing Neutron security groups.

    Security groups are sets of IP filter rules that are applied to an
    instance's networking. They are project specific, and project members can
    edit the default rules for their group and add new rules sets. All projects
    have a "default" security group, which is applied to instances that have no
    other security group defined.
    """

    required_service_extension = "security-group"
    entity = "security_group"
    collection = "security-groups"
    marked = True
    support_status = SupportStatus(version="2014.1")

    properties_schema = {
        "name": Schema(Schema.STRING, "A string specifying a symbolic name for the security "
                       "group, which is not required to be unique.", update_allowed=True),
        "description": Schema(Schema.STRING, "Description of the security group.",
                              update_allowed=True),
        "rules": Schema(Schema.LIST, "List of security group rules.", default=[],
                        schema=Schema(Schema.MAP, schema=_RULE_SCHEMA), update_allowed=True),
        "stateful": Schema(Schema.BOOLEAN, "Whether to create this security group as stateful "
                           "or stateless.", update_allowed=True,
                           support_status=SupportStatus(version="27.0.0")),
    }

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        if props.get("name") == "default":
            raise StackValidationFailed('Security groups cannot be assigned the name '
                                        '"default".')

    def _stateful_known(self) -> bool:
        return bool(self.cloud.has_extension("neutron", "stateful-security-group"))

    def create_body(self) -> dict[str, Any]:
        body = self.prepare(self.properties)
        body.pop("rules", None)
        if "stateful" in body and not self._stateful_known():
            if body["stateful"] is False:
                raise StackValidationFailed(_STATELESS_UNSUPPORTED)
            del body["stateful"]
        return body

    def after_create(self, made: Mapping[str, Any]) -> None:
        rules = list(self.properties.get("rules") or [])
        if not rules:
            return
        if any(r["direction"] == "egress" for r in rules):
            self._delete_rules(made.get("security_group_rules", []),
                               lambda r: r["direction"] == "egress")
        self._create_rules([self._format(r) for r in rules])

    def _format(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """A rule as Neutron takes it (Heat's _format_rule)."""
        rule = dict(given)
        rule["security_group_id"] = self.resource_id
        if "remote_mode" in rule:
            mode = rule.pop("remote_mode")
            if mode == "remote_group_id":
                rule["remote_ip_prefix"] = None
                if not rule.get("remote_group_id"):
                    rule["remote_group_id"] = self.resource_id
            else:
                rule["remote_group_id"] = None
        for key in ("port_range_min", "port_range_max"):
            if rule.get(key) is not None:
                rule[key] = str(rule[key])
        if rule.get("description") is None:
            rule.pop("description", None)
        return rule

    def _create_rules(self, rules: list[dict[str, Any]]) -> None:
        if rules:
            self.neutron().request("POST", "/security-group-rules",
                                   {"security_group_rules": rules})

    def _delete_rules(self, rules: Iterable[Mapping[str, Any]],
                      which: Callable[[Mapping[str, Any]], bool] | None = None) -> None:
        api = self.neutron()
        for rule in rules:
            if which is None or which(rule):
                api.delete("security-group-rules", str(rule["id"]))

    def delete_object(self) -> None:
        try:
            rules = self.show().get("security_group_rules", [])
        except Exception as exc:
            if is_not_found(exc):
                return
            raise
        self._delete_rules(rules)
        super().delete_object()

    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        body = dict(prop_diff)
        rules = body.pop("rules", None)
        if "stateful" in body and body["stateful"] != self.properties.get("stateful"):
            self._stateful_may_change(body["stateful"])
        if rules is not None or "rules" in prop_diff:
            self._update_rules(list(rules or []))
        return super().update_body(body)

    def _stateful_may_change(self, new: Any) -> None:
        ports = self.neutron().find_all("ports", security_groups=str(self.resource_id))
        if ports:
            raise NotSupported(
                f'Updating the "stateful" property while security group "{self.resource_id}" '
                "is attached to ports. Detach all ports from the security group and retry. "
                "is not supported.")

    def _update_rules(self, rules: list[Mapping[str, Any]]) -> None:
        wanted_rules = list(rules)
        if not any(r.get("direction") == "egress" for r in wanted_rules):
            wanted_rules.extend(DEFAULT_EGRESS_RULES)
        wanted = [(rule_key(r), r) for r in (self._format(r) for r in wanted_rules)]
        current = [(rule_key(r), r) for r in self.show().get("security_group_rules", [])]
        wanted_keys, current_keys = {k for k, _ in wanted}, {k for k, _ in current}
        self._delete_rules(r for k, r in current if k not in wanted_keys)
        self._create_rules([r for k, r in wanted if k not in current_keys])


class SecurityGroupRule(NeutronResource):
    """A resource for managing Neutron security group rules.

    Rules to use in security group resource.
    """

    required_service_extension = "security-group"
    entity = "security_group_rule"
    collection = "security-group-rules"
    support_status = SupportStatus(version="7.0.0")
    names_itself = False

    properties_schema = {
        "security_group": Schema(Schema.STRING, "Security group name or ID to add rule.",
                                 required=True,
                                 constraints=[CustomConstraint("neutron.security_group")]),
        "description": Schema(Schema.STRING, "Description of the security group rule."),
        "direction": Schema(Schema.STRING, _DIRECTION, default="ingress",
                            constraints=[AllowedValues(("ingress", "egress"))]),
        "ethertype": Schema(Schema.STRING, "Ethertype of the traffic.", default="IPv4",
                            constraints=[AllowedValues(("IPv4", "IPv6"))]),
        "port_range_min": Schema(Schema.INTEGER, _PORT_MIN, constraints=_PORT_RANGE),
        "port_range_max": Schema(Schema.INTEGER, _PORT_MAX.format("code"),
                                 constraints=_PORT_RANGE),
        "protocol": Schema(Schema.STRING, PROTOCOL_DESCRIPTION, default="tcp",
                           constraints=[AllowedValues(PROTOCOLS)]),
        "remote_group": Schema(Schema.STRING, "The remote group name or ID to be associated "
                               "with this security group rule.",
                               constraints=[CustomConstraint("neutron.security_group")]),
        "remote_ip_prefix": Schema(Schema.STRING, "The remote IP prefix (CIDR) to be "
                                   "associated with this security group rule.",
                                   constraints=[CustomConstraint("net_cidr")]),
    }

    translation_rules = (
        TranslationRule.resolve(("security_group",), "security_group"),
        TranslationRule.resolve(("remote_group",), "security_group"),
    )

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        if props.get("remote_group") is not None and props.get("remote_ip_prefix") is not None:
            raise conflict("remote_group", "remote_ip_prefix")
        low, high = props.get("port_range_min"), props.get("port_range_max")
        if (low is not None and high is not None and high < low
                and props.get("protocol") not in ("icmp", "icmpv6", "ipv6-icmp")):
            raise StackValidationFailed("The minimum port number must be less than or equal "
                                        "to the maximum port number.")

    def create_body(self) -> dict[str, Any]:
        body = self.prepare(self.properties)
        body["security_group_id"] = body.pop("security_group")
        if "remote_group" in body:
            body["remote_group_id"] = body.pop("remote_group")
        for key in ("port_range_min", "port_range_max"):
            if body.get(key) is not None:
                body[key] = str(body[key])
        return body

    def _made_before(self, body: Mapping[str, Any], mark: str | None,
                     ) -> dict[str, Any] | None:
        """A retried create finds the rule it made: Neutron refuses a second, equal one
        (409), so look for a rule with the same key instead."""
        wanted = rule_key(body)
        for rule in self.neutron().find_all(self.collection,
                                         security_group_id=str(body["security_group_id"])):
            if rule_key(rule) == wanted:
                return rule
        return None

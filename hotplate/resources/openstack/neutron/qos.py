"""OS::Neutron::QoSPolicy and its rules (Heat's ``qos.py``).

A rule lives under its policy in Neutron's API
(``/qos/policies/<policy>/bandwidth_limit_rules/<rule>``), so its calls are made
at that path; its ``policy`` (a name or id) is resolved to the id before create,
and a new policy means a new rule. A rule has no name: nothing is named after
the resource.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources.attributes import Attribute
from hotplate.resources.constraints import AllowedValues, CustomConstraint, Range
from hotplate.resources.openstack.neutron.base import NeutronResource
from hotplate.resources.properties import Schema
from hotplate.resources.support import SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["QoSBandwidthLimitRule", "QoSDscpMarkingRule", "QoSMinimumBandwidthRule",
           "QoSMinimumPacketRateRule", "QoSPolicy"]

DSCP_MARKS = (0, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 46, 48, 56)


class QoSPolicy(NeutronResource):
    """A resource for Neutron QoS Policy.

    This QoS policy can be associated with neutron resources, such as port and
    network, to provide QoS capabilities. The default policy usage of this
    resource is limited to administrators only.
    """

    required_service_extension = "qos"
    support_status = SupportStatus(version="6.0.0")
    entity = "policy"
    collection = "qos/policies"
    marked = True
    list_key = "policies"

    properties_schema = {
        "name": Schema(Schema.STRING, "The name for the QoS policy.", update_allowed=True),
        "description": Schema(Schema.STRING, "The description for the QoS policy.",
                              update_allowed=True),
        "shared": Schema(Schema.BOOLEAN, "Whether this QoS policy should be shared to other "
                         "tenants.", default=False, update_allowed=True),
        "tenant_id": Schema(Schema.STRING, "The owner tenant ID of this QoS policy."),
    }

    attributes_schema = {
        "rules": Attribute("A list of all rules for the QoS policy.", Attribute.LIST),
    }


_RULE_BASE = {
    "policy": Schema(Schema.STRING, "ID or name of the QoS policy.", required=True,
                     constraints=[CustomConstraint("neutron.qos_policy")]),
    "tenant_id": Schema(Schema.STRING, "The owner tenant ID of this rule."),
}


def _direction(values: list[str], version: str | None = None) -> Schema:
    return Schema(Schema.STRING, "Traffic direction from the point of view of the port.",
                  update_allowed=True, constraints=[AllowedValues(tuple(values))],
                  default="egress",
                  support_status=SupportStatus(version=version))


def _rate(description: str, *, default: int | None = None) -> Schema:
    return Schema(Schema.INTEGER, description, required=default is None, update_allowed=True,
                  constraints=[Range(min=0)], default=default)


class QoSRule(NeutronResource):
    """A rule of a QoS policy: ``collection`` is the rules' name under the policy."""

    required_service_extension = "qos"
    support_status = SupportStatus(version="6.0.0")
    names_itself = False

    translation_rules = (TranslationRule.resolve(("policy",), "qos_policy"),)

    def collection_path(self) -> str:
        return f"qos/policies/{self.properties['policy']}/{self.collection}"

    def create_body(self) -> dict[str, Any]:
        body = self.prepare(self.properties)
        body.pop("policy", None)
        return body

    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        return dict(prop_diff)


class QoSBandwidthLimitRule(QoSRule):
    """A resource for Neutron QoS bandwidth limit rule.

    This rule can be associated with QoS policy, and then the policy can be used
    by neutron port and network, to provide bandwidth limit QoS capabilities.
    The default policy usage of this resource is limited to administrators only.
    """

    entity = "bandwidth_limit_rule"
    collection = "bandwidth_limit_rules"

    properties_schema = {
        "max_kbps": _rate("Max bandwidth in kbps."),
        "max_burst_kbps": _rate("Max burst bandwidth in kbps.", default=0),
        "direction": _direction(["egress", "ingress"], "13.0.0"),
        **_RULE_BASE,
    }


class QoSDscpMarkingRule(QoSRule):
    """A resource for Neutron QoS DSCP marking rule.

    This rule can be associated with QoS policy, and then the policy can be used
    by neutron port and network, to provide DSCP marking QoS capabilities. The
    default policy usage of this resource is limited to administrators only.
    """

    support_status = SupportStatus(version="7.0.0")
    entity = "dscp_marking_rule"
    collection = "dscp_marking_rules"

    properties_schema = {
        "dscp_mark": Schema(Schema.INTEGER, "DSCP mark between 0 and 56, except 2-6, 42, 44, "
                            "and 50-54.", required=True, update_allowed=True,
                            constraints=[AllowedValues(DSCP_MARKS)]),
        **_RULE_BASE,
    }


class QoSMinimumBandwidthRule(QoSRule):
    """A resource for guaranteeing bandwidth.

    This rule can be associated with a QoS policy, and then the policy can be
    used by a neutron port to provide guaranteed bandwidth QoS capabilities.
    Depending on drivers the guarantee may be enforced on two levels. First
    when a server is placed (scheduled) on physical infrastructure and/or
    second in the data plane of the physical hypervisor. The default policy
    usage of this resource is limited to administrators only.
    """

    required_service_extension = "qos-bw-minimum-ingress"
    support_status = SupportStatus(version="14.0.0")
    entity = "minimum_bandwidth_rule"
    collection = "minimum_bandwidth_rules"

    properties_schema = {
        "min_kbps": _rate("Min bandwidth in kbps."),
        "direction": _direction(["egress", "ingress"]),
        **_RULE_BASE,
    }


class QoSMinimumPacketRateRule(QoSRule):
    """A resource for guaranteeing packet rate.

    This rule can be associated with a QoS policy, and then the policy can be
    used by a neutron port to provide guaranteed packet rate QoS capabilities.
    Depending on drivers the guarantee may be enforced on two levels. First
    when a server is placed (scheduled) on physical infrastructure and/or
    second in the data plane of the physical hypervisor. The default policy
    usage of this resource is limited to administrators only.
    """

    required_service_extension = "qos-pps-minimum"
    support_status = SupportStatus(version="19.0.0")
    entity = "minimum_packet_rate_rule"
    collection = "minimum_packet_rate_rules"

    properties_schema = {
        "min_kpps": _rate("Min packet rate in kpps."),
        "direction": _direction(["any", "egress", "ingress"]),
        **_RULE_BASE,
    }

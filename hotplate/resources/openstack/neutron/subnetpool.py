"""OS::Neutron::SubnetPool: a block of addresses subnets are cut from (Heat's ``SubnetPool``).

An update may only grow ``prefixes`` (every old prefix inside the new ones), as
Neutron requires; Heat refuses a shrinking one before asking, with its text.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.constraints import CustomConstraint, Length, Range
from hotplate.resources.openstack.neutron.base import NeutronResource
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.support import SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["SubnetPool", "is_prefix_subset"]

_LENGTHS = ("default_prefixlen", "min_prefixlen", "max_prefixlen")


def _prefixlen(description: str) -> Schema:
    return Schema(Schema.INTEGER, description, constraints=[Range(min=0)], update_allowed=True)


def is_prefix_subset(old: Sequence[str], new: Sequence[str]) -> bool:
    """Whether every address of the ``old`` prefixes lies in the ``new`` ones (taken
    together: two halves cover their whole)."""
    given = [ipaddress.ip_network(p, strict=False) for p in new]
    merged: dict[int, list[Any]] = {
        4: list(ipaddress.collapse_addresses(n for n in given
                                             if isinstance(n, ipaddress.IPv4Network))),
        6: list(ipaddress.collapse_addresses(n for n in given
                                             if isinstance(n, ipaddress.IPv6Network))),
    }
    for prefix in old:
        net = ipaddress.ip_network(prefix, strict=False)
        if not any(net.subnet_of(w) for w in merged[net.version]):
            return False
    return True


class SubnetPool(NeutronResource):
    """A resource that implements neutron subnet pool.

    This resource can be used to create a subnet pool with a large block of
    addresses and create subnets from it.
    """

    required_service_extension = "subnet_allocation"
    support_status = SupportStatus(version="6.0.0")
    entity = "subnetpool"
    collection = "subnetpools"
    taggable = True

    properties_schema = {
        "name": Schema(Schema.STRING, "Name of the subnet pool.", update_allowed=True),
        "prefixes": Schema(Schema.LIST, "List of subnet prefixes to assign.",
                           schema=Schema(Schema.STRING,
                                         constraints=[CustomConstraint("net_cidr")]),
                           constraints=[Length(min=1)], required=True, update_allowed=True),
        "address_scope": Schema(Schema.STRING, "An address scope ID to assign to the subnet "
                                "pool.", constraints=[CustomConstraint("neutron.address_scope")],
                                update_allowed=True),
        "default_quota": Schema(Schema.INTEGER, "A per-tenant quota on the prefix space that "
                                "can be allocated from the subnet pool for tenant subnets.",
                                constraints=[Range(min=0)], update_allowed=True),
        "default_prefixlen": _prefixlen("The size of the prefix to allocate when the cidr or "
                                        "prefixlen attributes are not specified while "
                                        "creating a subnet."),
        "min_prefixlen": _prefixlen("Smallest prefix size that can be allocated from the "
                                    "subnet pool."),
        "max_prefixlen": _prefixlen("Maximum prefix size that can be allocated from the "
                                    "subnet pool."),
        "is_default": Schema(Schema.BOOLEAN, "Whether this is default IPv4/IPv6 subnet pool. "
                             "There can only be one default subnet pool for each IP family. "
                             "Note that the default policy setting restricts administrative "
                             "users to set this to True.", default=False, update_allowed=True),
        "tenant_id": Schema(Schema.STRING, "The ID of the tenant who owns the subnet pool. "
                            "Only administrative users can specify a tenant ID other than "
                            "their own."),
        "shared": Schema(Schema.BOOLEAN, "Whether the subnet pool will be shared across all "
                         "tenants. Note that the default policy setting restricts usage of "
                         "this attribute to administrative users only.", default=False),
        "tags": Schema(Schema.LIST, "The tags to be added to the subnetpool.",
                       schema=Schema(Schema.STRING), update_allowed=True,
                       support_status=SupportStatus(version="9.0.0")),
    }

    translation_rules = (TranslationRule.resolve(("address_scope",), "address_scope"),)

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        """Heat's prefix bounds: min <= default <= max."""
        super().check_properties(props, path)
        low, default, high = (props.get(k) for k in ("min_prefixlen", "default_prefixlen",
                                                      "max_prefixlen"))
        if low and high and low > high:
            raise _bounds("max_prefixlen", high, "min_prefixlen", low)
        if default:
            if high and default > high:
                raise _bounds("max_prefixlen", high, "default_prefixlen", default)
            if low and low > default:
                raise _bounds("min_prefixlen", low, "default_prefixlen", default)

    def create_body(self) -> dict[str, Any]:
        body = self.prepare(self.properties)
        scope = body.pop("address_scope", None)
        if scope:
            body["address_scope_id"] = scope
        return body

    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        body = super().update_body(prop_diff)
        if "prefixes" in body:
            old, new = list(self.properties.get("prefixes") or []), list(body["prefixes"])
            if not is_prefix_subset(old, new):
                raise StackValidationFailed(
                    f"Property prefixes updated value {sorted(new)} should be superset of "
                    f"existing value {sorted(old)}.")
        if "address_scope" in body:
            body["address_scope_id"] = body.pop("address_scope") or None
        return body


def _bounds(key1: str, value1: Any, key2: str, value2: Any) -> StackValidationFailed:
    return StackValidationFailed(
        f"Illegal prefix bounds: {key1}={value1}, {key2}={value2}.")

"""OS::Neutron::Router, RouterInterface and RouterGateway (Heat's ``router.py``).

An interface or a gateway is not an object of its own in Neutron but a change to
a router: its physical id records what to undo (``<router>:subnet_id=<subnet>``,
``<router>:<network>``, Heat's formats), and nothing of it can change in place.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.attributes import Attribute
from hotplate.resources.base import CheckResult
from hotplate.resources.constraints import CustomConstraint
from hotplate.resources.openstack.neutron.api import ignoring, is_not_found
from hotplate.resources.openstack.neutron.base import NeutronResource, either, peers_of
from hotplate.resources.openstack.neutron.subnet import Subnet, conflict
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.support import Status, SupportStatus
from hotplate.resources.translation import TranslationRule
from hotplate.template.implicit_deps import Peer

__all__ = ["Router", "RouterGateway", "RouterInterface"]

_ADMIN_ONLY = " NOTE: The default policy setting in Neutron restricts usage of this " \
              "property to administrative users only."


def _hidden(version: str, message: str | None, deprecated: str,
            first: str | None = None, *, message_on_hidden: bool = False) -> SupportStatus:
    """Heat's HIDDEN-after-DEPRECATED status of an old property name."""
    before = SupportStatus(version=first) if first else None
    if message_on_hidden:
        return SupportStatus(Status.HIDDEN, version, message,
                             SupportStatus(Status.DEPRECATED, deprecated, None, before))
    return SupportStatus(Status.HIDDEN, version, None,
                         SupportStatus(Status.DEPRECATED, deprecated, message, before))


class Router(NeutronResource):
    """A resource that implements Neutron router.

    Router is a physical or virtual network device that passes network traffic
    between different networks.
    """

    required_service_extension = "router"
    entity = "router"
    collection = "routers"
    has_status = True
    taggable = True

    properties_schema = {
        "name": Schema(Schema.STRING, "The name of the router.", update_allowed=True),
        "external_gateway_info": Schema(
            Schema.MAP, "External network gateway configuration for a router.",
            update_allowed=True, schema={
                "network": Schema(Schema.STRING, "ID or name of the external network for the "
                                  "gateway.", required=True, update_allowed=True),
                "enable_snat": Schema(Schema.BOOLEAN, "Enables Source NAT on the router "
                                      "gateway. NOTE: The default policy setting in Neutron "
                                      "restricts usage of this property to administrative "
                                      "users only.", update_allowed=True),
                "external_fixed_ips": Schema(
                    Schema.LIST, "External fixed IP addresses for the gateway.",
                    update_allowed=True, support_status=SupportStatus(version="6.0.0"),
                    schema=Schema(Schema.MAP, schema={
                        "ip_address": Schema(Schema.STRING, "External fixed IP address.",
                                             constraints=[CustomConstraint("ip_addr")]),
                        "subnet": Schema(Schema.STRING, "Subnet of external fixed IP address.",
                                         constraints=[CustomConstraint("neutron.subnet")]),
                    })),
            }),
        "value_specs": Schema(Schema.MAP, "Extra parameters to include in the creation "
                              "request.", default={}, update_allowed=True),
        "admin_state_up": Schema(Schema.BOOLEAN, "The administrative state of the router.",
                                 default=True, update_allowed=True),
        "l3_agent_id": Schema(Schema.STRING, "ID of the L3 agent." + _ADMIN_ONLY,
                              update_allowed=True,
                              support_status=_hidden("6.0.0", "Use property l3_agent_ids.",
                                                     "2015.1", "2014.1")),
        "l3_agent_ids": Schema(Schema.LIST, "ID list of the L3 agent. User can specify "
                               "multi-agents for highly available router." + _ADMIN_ONLY,
                               schema=Schema(Schema.STRING), update_allowed=True,
                               support_status=SupportStatus(version="2015.1")),
        "distributed": Schema(Schema.BOOLEAN, "Indicates whether or not to create a "
                              "distributed router." + _ADMIN_ONLY + " This property can not "
                              "be used in conjunction with the L3 agent ID.",
                              support_status=SupportStatus(version="2015.1")),
        "ha": Schema(Schema.BOOLEAN, "Indicates whether or not to create a highly available "
                     "router." + _ADMIN_ONLY + " And now neutron do not support distributed "
                     "and ha at the same time.", support_status=SupportStatus(version="2015.1")),
        "availability_zone_hints": Schema(
            Schema.LIST, "Availability zone candidates for the router. It requires the "
            "availability_zone extension to be available.", update_allowed=True,
            support_status=SupportStatus(version="19.0.0")),
        "tags": Schema(Schema.LIST, "The tags to be added to the router.",
                       schema=Schema(Schema.STRING), update_allowed=True,
                       support_status=SupportStatus(version="9.0.0")),
        "tenant_id": Schema(Schema.STRING, "The ID of the tenant which will own the router. "
                            "Only administrative users can set the tenant identifier; this "
                            "cannot be changed using authorization policies.",
                            support_status=SupportStatus(version="24.0.0")),
    }

    attributes_schema = {
        "status": Attribute("The status of the router.", Attribute.STRING),
        "external_gateway_info": Attribute("Gateway network for the router.", Attribute.MAP),
        "name": Attribute("Friendly name of the router.", Attribute.STRING),
        "admin_state_up": Attribute("Administrative state of the router.", Attribute.STRING),
        "tenant_id": Attribute("Tenant owning the router.", Attribute.STRING),
    }

    translation_rules = (
        TranslationRule.resolve(("external_gateway_info", "network"), "network"),
        TranslationRule.resolve(("external_gateway_info", "external_fixed_ips", "subnet"),
                                "subnet"),
        TranslationRule.add(("l3_agent_ids",), value_path=("l3_agent_id",)),
        TranslationRule.delete(("l3_agent_id",)),
    )

    @classmethod
    def implicit_requires(cls, me: Peer, peers: Mapping[str, Peer]) -> Iterable[str]:
        """The subnets of the gateway's network (Heat's Router.add_dependencies)."""
        gateway = me.properties.get("external_gateway_info")
        network = gateway.get("network") if isinstance(gateway, Mapping) else None
        return _subnets_of(network, peers)

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        super().check_properties(props, path)
        distributed, ha = props.get("distributed"), props.get("ha")
        agents = props.get("l3_agent_ids")
        if distributed and agents:
            raise conflict("distributed", "l3_agent_id/l3_agent_ids")
        if ha and distributed:
            raise conflict("distributed", "ha")
        if not ha and agents and len(agents) > 1:
            raise StackValidationFailed("Non HA routers can only have one L3 agent.")

    def create_body(self) -> dict[str, Any]:
        body = self.prepare(self.properties)
        body.pop("l3_agent_ids", None)
        body.pop("l3_agent_id", None)
        if body.get("external_gateway_info"):
            body["external_gateway_info"] = _gateway(body["external_gateway_info"])
        return body

    def after_create(self, made: Mapping[str, Any]) -> None:
        super().after_create(made)
        if self.properties.get("l3_agent_ids"):
            self._replace_agents(list(self.properties["l3_agent_ids"]))

    def update_body(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        body = dict(prop_diff)
        if "l3_agent_ids" in body or "l3_agent_id" in body:
            body.pop("l3_agent_id", None)
            self._replace_agents(list(body.pop("l3_agent_ids", None) or []))
        if body.get("external_gateway_info"):
            body["external_gateway_info"] = _gateway(body["external_gateway_info"])
        elif "external_gateway_info" in body:
            body["external_gateway_info"] = {}
        return super().update_body(body)

    def parse_live_resource_data(self, resource_properties: Mapping[str, Any],
                                 resource_data: Mapping[str, Any]) -> dict[str, Any]:
        """Heat's reading of a router: its gateway's network and SNAT flag, and the L3
        agents hosting it (asked only when the template names agents)."""
        result = super().parse_live_resource_data(resource_properties, resource_data)
        gateway = _live_gateway(resource_data.get("external_gateway_info"))
        if gateway is not None:
            result["external_gateway_info"] = gateway
        if resource_properties.get("l3_agent_ids") is not None:
            try:
                hosting = self.neutron().request("GET", f"/routers/{self.resource_id}/l3-agents")
            except Exception as exc:
                if getattr(exc, "status", None) != 403:
                    raise
            else:
                result["l3_agent_ids"] = [a["id"] for a in hosting.get("agents", [])]
        return result

    def _replace_agents(self, agents: list[str]) -> None:
        api = self.neutron()
        hosting = api.request("GET", f"/routers/{self.resource_id}/l3-agents")
        for agent in hosting.get("agents", []):
            api.request("DELETE", f"/agents/{agent['id']}/l3-routers/{self.resource_id}")
        for agent_id in agents:
            api.request("POST", f"/agents/{agent_id}/l3-routers",
                        {"router_id": self.resource_id})


def _live_gateway(shown: Any) -> dict[str, Any] | None:
    """Heat's live reading of a router's gateway: its network and SNAT flag."""
    if not isinstance(shown, Mapping):
        return None
    return {"network": shown.get("network_id"), "enable_snat": shown.get("enable_snat")}


def _gateway(given: Mapping[str, Any]) -> dict[str, Any]:
    """Heat's gateway body: ``network`` as ``network_id``, unset keys left out, each
    fixed IP's ``subnet`` as ``subnet_id``."""
    gateway: dict[str, Any] = {"network_id": given.get("network")}
    if given.get("enable_snat") is not None:
        gateway["enable_snat"] = given["enable_snat"]
    if given.get("external_fixed_ips") is not None:
        ips = []
        for fixed in given["external_fixed_ips"]:
            item = {k: v for k, v in fixed.items() if v is not None}
            if "subnet" in item:
                item["subnet_id"] = item.pop("subnet")
            ips.append(item)
        gateway["external_fixed_ips"] = ips
    return gateway


class _RouterChange(NeutronResource):
    """A change to a router undone on delete; no object of its own to show or wait on."""

    required_service_extension = "router"
    live_state = False

    def _show_resource(self) -> Any:
        return None

    def _resolve_attribute(self, name: str) -> Any:
        return None

    def check_delete_complete(self, data: Any) -> CheckResult:
        return True


class RouterInterface(_RouterChange):
    """A resource for managing Neutron router interfaces.

    Router interfaces associate routers with existing subnets or ports.
    """

    properties_schema = {
        "router": Schema(Schema.STRING, "The router.", required=True,
                         constraints=[CustomConstraint("neutron.router")]),
        "router_id": Schema(Schema.STRING, "ID of the router.",
                            constraints=[CustomConstraint("neutron.router")],
                            support_status=_hidden("6.0.0", "Use property router.", "2015.1",
                                                   "2013.1")),
        "subnet_id": Schema(Schema.STRING, constraints=[CustomConstraint("neutron.subnet")],
                            support_status=_hidden("5.0.0", "Use property subnet.", "2014.2",
                                                   message_on_hidden=True)),
        "subnet": Schema(Schema.STRING, "The subnet, either subnet or port should be "
                         "specified.", constraints=[CustomConstraint("neutron.subnet")]),
        "port_id": Schema(Schema.STRING, "The port id, either subnet or port_id should be "
                          "specified.", constraints=[CustomConstraint("neutron.port")],
                          support_status=_hidden("6.0.0", "Use property port.", "2015.1",
                                                 "2014.1")),
        "port": Schema(Schema.STRING, "The port, either subnet or port should be specified.",
                       constraints=[CustomConstraint("neutron.port")],
                       support_status=SupportStatus(version="2015.1")),
    }

    translation_rules = (
        TranslationRule.replace(("port",), "port_id"),
        TranslationRule.replace(("router",), "router_id"),
        TranslationRule.replace(("subnet",), "subnet_id"),
        TranslationRule.resolve(("port",), "port"),
        TranslationRule.resolve(("router",), "router"),
        TranslationRule.resolve(("subnet",), "subnet"),
    )

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        has_subnet, has_port = props.get("subnet") is not None, props.get("port") is not None
        if has_subnet and has_port:
            raise conflict("subnet", "port")
        if not has_subnet and not has_port and "subnet" in props and "port" in props:
            raise StackValidationFailed("At least one of the following properties must be "
                                        "specified: subnet, port.")

    def handle_create(self) -> Any:
        router = self.properties["router"]
        key, value = "subnet_id", self.properties.get("subnet")
        if not value:
            key, value = "port_id", self.properties.get("port")
        self.neutron().request("PUT", f"/routers/{router}/add_router_interface", {key: value})
        self.resource_id_set(f"{router}:{key}={value}")
        return None

    def handle_delete(self) -> Any:
        if not self.resource_id:
            return None
        tokens = self.resource_id.replace("=", ":").split(":")
        if len(tokens) == 2:  # Heat's older format: <router>:<subnet>
            tokens.insert(1, "subnet_id")
        router, key, value = tokens
        with ignoring(is_not_found):
            self.neutron().request("PUT", f"/routers/{router}/remove_router_interface",
                                   {key: value})
        return None


class RouterGateway(_RouterChange):
    """A router's gateway to an external network; Heat keeps it hidden in favour of the
    router's ``external_gateway_info``."""

    support_status = SupportStatus(
        Status.HIDDEN, "5.0.0", "Use the `external_gateway_info` property in the router "
        "resource to set up the gateway.", SupportStatus(Status.DEPRECATED, "2014.1"))

    properties_schema = {
        "router_id": Schema(Schema.STRING, "ID of the router.", required=True,
                            constraints=[CustomConstraint("neutron.router")]),
        "network_id": Schema(Schema.STRING, constraints=[CustomConstraint("neutron.network")],
                             support_status=_hidden("9.0.0", "Use property network.",
                                                    "2014.2", message_on_hidden=True)),
        "network": Schema(Schema.STRING, "external network for the gateway.",
                          constraints=[CustomConstraint("neutron.network")]),
    }

    translation_rules = (
        TranslationRule.replace(("network",), "network_id"),
        TranslationRule.resolve(("network",), "network"),
    )

    @classmethod
    def implicit_requires(cls, me: Peer, peers: Mapping[str, Peer]) -> Iterable[str]:
        """The router's interfaces and the subnets of the gateway's network (Heat's
        RouterGateway.add_dependencies)."""
        router = me.properties.get("router_id")
        found = [i.name for i in peers_of(peers, RouterInterface)
                 if router and either(i.properties, "router", "router_id") == router]
        network = either(me.properties, "network", "network_id")
        return found + _subnets_of(network, peers)

    def handle_create(self) -> Any:
        router, network = self.properties["router_id"], self.properties.get("network")
        self.neutron().request("PUT", f"/routers/{router}",
                               {"router": {"external_gateway_info": {"network_id": network}}})
        self.resource_id_set(f"{router}:{network}")
        return None

    def handle_delete(self) -> Any:
        if not self.resource_id:
            return None
        router = self.resource_id.split(":")[0]
        with ignoring(is_not_found):
            self.neutron().request("PUT", f"/routers/{router}",
                                   {"router": {"external_gateway_info": {}}})
        return None


def _subnets_of(network: Any, peers: Mapping[str, Peer]) -> list[str]:
    return [s.name for s in peers_of(peers, Subnet)
            if network and either(s.properties, "network", "network_id") == network]

"""OS::Neutron::ExtraRouteSet: static routes added to a router (Heat's ``ExtraRouteSet``).

Neutron's ``extraroute-atomic`` extension adds and removes routes one set at a
time, so several sets (several stacks) may share a router safely. The set is no
object of its own: its physical id is the router's, and delete removes exactly
the routes it added. An update removes the routes no longer wanted, then adds
the new ones, leaving the rest in place. A route the router has already is
refused, as Heat refuses it (``The Resource (<router>,<dest>=<hop>) already
exists.``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hotplate.model.errors import HotplateError
from hotplate.resources.base import CheckResult, Resource
from hotplate.resources.constraints import CustomConstraint
from hotplate.resources.openstack.neutron.api import ignoring, is_not_found
from hotplate.resources.openstack.neutron.base import NeutronResource, either, peers_of
from hotplate.resources.openstack.neutron.router import RouterInterface
from hotplate.resources.properties import Schema
from hotplate.resources.support import SupportStatus
from hotplate.template.implicit_deps import Peer

__all__ = ["ExtraRouteSet", "PhysicalResourceExists", "route_changes"]

Route = frozenset[tuple[str, Any]]


class PhysicalResourceExists(HotplateError):
    def __init__(self, name: str) -> None:
        super().__init__(f"The Resource ({name}) already exists.")


def _routes(given: Iterable[Mapping[str, Any]]) -> set[Route]:
    return {frozenset(r.items()) for r in given}


def route_changes(old: Iterable[Mapping[str, Any]], new: Iterable[Mapping[str, Any]]
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(to remove, to add), compared route by route."""
    before, after = _routes(old), _routes(new)
    return [dict(r) for r in before - after], [dict(r) for r in after - before]


def duplicate(router: str, existing: Iterable[Mapping[str, Any]],
              adding: Iterable[Mapping[str, Any]]) -> PhysicalResourceExists | None:
    """The error for the first route of ``adding`` the router has already, if any."""
    have = _routes(existing)
    for route in adding:
        if frozenset(route.items()) in have:
            return PhysicalResourceExists(
                f"{router},{route['destination']}={route['nexthop']}")
    return None


class ExtraRouteSet(NeutronResource):
    """Resource for specifying extra routes for a Neutron router.

    Requires Neutron ``extraroute-atomic`` extension to be enabled. An extra
    route is a static routing table entry that is added beyond the routes
    managed implicitly by router interfaces and router gateways. The
    ``destination`` of an extra route is any IP network in /CIDR notation; its
    ``nexthop`` is an IP in a subnet that is directly connected to the router.
    It is safe to manage multiple extra routes of the same router from multiple
    stacks, but not the same route.
    """

    required_service_extension = "extraroute-atomic"
    support_status = SupportStatus(version="14.0.0")

    properties_schema = {
        "router": Schema(Schema.STRING, "The router id.", required=True,
                         constraints=[CustomConstraint("neutron.router")]),
        "routes": Schema(
            Schema.LIST, "A set of route dictionaries for the router.", default=[],
            update_allowed=True, schema=Schema(Schema.MAP, schema={
                "destination": Schema(Schema.STRING, "The destination network in CIDR "
                                      "notation.", required=True,
                                      constraints=[CustomConstraint("net_cidr")]),
                "nexthop": Schema(Schema.STRING, "The next hop for the destination.",
                                  required=True, constraints=[CustomConstraint("ip_addr")]),
            })),
    }

    @classmethod
    def implicit_requires(cls, me: Peer, peers: Mapping[str, Peer]) -> Iterable[str]:
        """The interfaces of the same router (a next hop must be on one of its subnets)."""
        router = me.properties.get("router")
        return [i.name for i in peers_of(peers, RouterInterface)
                if router and either(i.properties, "router", "router_id") == router]

    def _change(self, verb: str, router: str, routes: list[dict[str, Any]]) -> None:
        self.neutron().request("PUT", f"/routers/{router}/{verb}_extraroutes",
                               {"router": {"routes": routes}})

    def _refuse_duplicates(self, router: str, adding: list[dict[str, Any]]) -> None:
        shown = self.neutron().show("routers", "router", router)
        error = duplicate(router, shown.get("routes") or [], adding)
        if error is not None:
            raise error

    def handle_create(self) -> Any:
        router, routes = str(self.properties["router"]), list(self.properties["routes"] or [])
        self._refuse_duplicates(router, routes)
        self._change("add", router, routes)
        self.resource_id_set(router)
        return None

    def check_create_complete(self, data: Any) -> CheckResult:
        return True

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        router = str(self.properties["router"])
        remove, add = route_changes(self.properties.get("routes") or [],
                                    new_properties.get("routes") or [])
        self._refuse_duplicates(router, add)
        if remove:
            self._change("remove", router, remove)
        if add:
            self._change("add", router, add)
        Resource.handle_update(self, new_properties, prop_diff)  # no PUT of the router
        return None

    def check_update_complete(self, data: Any) -> CheckResult:
        return True

    def handle_delete(self) -> Any:
        if not self.resource_id:
            return None
        with ignoring(is_not_found):
            self._change("remove", str(self.properties["router"]),
                         list(self.properties.get("routes") or []))
        return None

    def check_delete_complete(self, data: Any) -> CheckResult:
        return True

    live_state = False  # no object of its own to read back

    def _show_resource(self) -> Any:
        return None

    def _resolve_attribute(self, name: str) -> Any:
        return None

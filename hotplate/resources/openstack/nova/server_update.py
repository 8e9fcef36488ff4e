"""How an OS::Nova::Server changes in place (Heat's ``handle_update`` and its checks).

``begin`` makes the quick changes at once and plans the slow ones as a list of
``Step``; the engine's checks then ``start`` each step in turn and wait until it
is ``finished``::

    property    at once                         slow steps, in this order
    metadata    PUT metadata
    tags        PUT tags (attempt tags kept)
    name        PUT the server's name
    networks                                    detach / attach, per interface
    flavor                                      resize, then confirm
    user_data                                   rebuild with it (policy REBUILD)
    image                                       rebuild (REBUILD_PRESERVE_EPHEMERAL too)
    admin_pass  changePassword (unless the image changes: its rebuild sets it)

Networks follow Heat's ``calculate_networks``: the entries kept stay; an interface
a gone entry made is detached (and the port deleted once detached, if Heat made
it), its floating IP let go; an added entry is attached (a port Heat makes, a
given port, or a network). Moving to or from ``allocate_network`` swaps them all.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hotplate.resources.openstack.attempt_marks import tags_with_marks
from hotplate.resources.openstack.neutron.api import ignoring
from hotplate.resources.openstack.nova import status as st
from hotplate.resources.openstack.nova.base import NovaResource, is_not_found
from hotplate.resources.openstack.nova.network_match import sort_networks
from hotplate.resources.openstack.nova.server_boot_data import boot_data
from hotplate.resources.openstack.nova.server_create import meta_serialize
from hotplate.resources.openstack.nova.server_ports import ServerPorts, without_empty
from hotplate.resources.openstack.nova.server_schema import PORT_EXTRA

__all__ = ["InPlaceUpdate", "Step", "replaced_by_policy"]



def replaced_by_policy(changed: frozenset[str], new: Mapping[str, Any],
                       old: Mapping[str, Any]) -> bool:
    """Whether the update policies replace the server rather than change it: a flavor
    or image change under ``REPLACE``, a user_data change unless ``IGNORE`` or
    ``REBUILD``. Any other change is the schema's to decide."""
    def policy(key: str) -> Any:
        return new.get(key) or old.get(key)

    if "flavor" in changed and policy("flavor_update_policy") == "REPLACE":
        return True
    if "image" in changed and policy("image_update_policy") == "REPLACE":
        return True
    return "user_data" in changed and policy("user_data_update_policy") in (None, "REPLACE")


def extra_updatable(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> bool:
    """Whether a port the server made can take ``new`` extra properties in place (Heat's
    ``_can_update_internal_port``): every changed key one Neutron updates; dropping them
    all gives the port up, which a new one stands for."""
    if new is None:
        return False
    before = old or {}
    changed = {k for k in {*before, *new} if before.get(k) != new.get(k)}
    return all(k in PORT_EXTRA and PORT_EXTRA[k].update_allowed for k in changed)


@dataclass
class Step:
    """One slow update step: ``kind`` started (``called``) and then waited on."""

    kind: str
    args: dict[str, Any] = field(default_factory=dict)
    called: bool = False


class InPlaceUpdate:
    """The in-place update of one server.

    ``plugin`` is the server resource, its properties already the new ones;
    ``fetch`` gives the server as Nova has it now (None when it is gone).
    """

    def __init__(self, plugin: NovaResource,
                 fetch: Callable[[], dict[str, Any] | None]) -> None:
        self._plugin = plugin
        self._fetch = fetch
        self._ports = ServerPorts(plugin)

    def begin(self, old: Mapping[str, Any], prop_diff: Mapping[str, Any],
              name: str) -> list[Step]:
        """Make the quick changes; the slow steps to take, in order (``name`` is the
        server's name after the update)."""
        after = self._plugin.properties
        api, ident = self._plugin.nova(), str(self._plugin.resource_id)
        steps: list[Step] = []
        if "metadata" in prop_diff:
            api.put(f"/servers/{ident}/metadata",
                    {"metadata": meta_serialize(after.get("metadata") or {})})
        if "tags" in prop_diff:
            self._set_tags(list(after.get("tags") or []))
        if "name" in prop_diff:
            api.put(f"/servers/{ident}", {"server": {"name": name}})
        if "networks" in prop_diff:
            steps.extend(self._network_steps(old.get("networks"), after.get("networks"),
                                             list(after.get("security_groups") or [])))
        if "flavor" in prop_diff:
            steps += [Step("resize", {"flavor": after["flavor"]}), Step("confirm")]
        if "user_data" in prop_diff and after.get("user_data_update_policy") == "REBUILD":
            steps.append(Step("rebuild", {"image": after.get("image"), "user_data": True}))
        if "image" in prop_diff:
            steps.append(Step("rebuild", {"image": after.get("image")}))
        elif "admin_pass" in prop_diff and after.get("admin_pass"):
            api.action(ident, {"changePassword": {"adminPass": after["admin_pass"]}})
        return steps

    def _set_tags(self, tags: list[str]) -> None:
        api, ident = self._plugin.nova(), str(self._plugin.resource_id)
        current = api.get(f"/servers/{ident}/tags").get("tags", [])
        api.put(f"/servers/{ident}/tags", {"tags": tags_with_marks(tags, current)})

    # -- a step's start and end ------------------------------------------------------------
    def start(self, step: Step) -> None:
        api, ident = self._plugin.nova(), str(self._plugin.resource_id)
        args = step.args
        if step.kind == "resize":
            api.action(ident, {"resize": {"flavorRef": args["flavor"]}})
        elif step.kind == "confirm":
            server = self._fetch() or {}
            if st.status_of(server) != "VERIFY_RESIZE":
                raise st.ResourceUnknownStatus(st.status_of(server), result=(
                    f"Could not confirm resize of server {ident}"))
            api.action(ident, {"confirmResize": None})
        elif step.kind == "rebuild":
            api.action(ident, {"rebuild": self._rebuild_body(args)})
        elif step.kind == "detach":
            with ignoring(is_not_found):
                api.delete(f"/servers/{ident}/os-interface/{args['port']}")
        elif step.kind == "attach":
            self._attach(args)

    def _rebuild_body(self, args: Mapping[str, Any]) -> dict[str, Any]:
        props = self._plugin.properties
        body: dict[str, Any] = {"imageRef": args.get("image") or self._image_of()}
        if props.get("image_update_policy") == "REBUILD_PRESERVE_EPHEMERAL":
            body["preserve_ephemeral"] = True
        if props.get("admin_pass"):
            body["adminPass"] = props["admin_pass"]
        if props.get("metadata"):
            body["metadata"] = meta_serialize(props["metadata"])
        if args.get("user_data"):
            data = boot_data(self._plugin) or ""
            body["user_data"] = base64.b64encode(data.encode()).decode() if data else None
        return body

    def _attach(self, args: dict[str, Any]) -> None:
        api, ident = self._plugin.nova(), str(self._plugin.resource_id)
        attach: dict[str, Any] = {}
        if args.get("port"):
            attach["port_id"] = args["port"]
        else:
            if args.get("net"):
                attach["net_id"] = args["net"]
            if args.get("fixed_ip"):
                attach["fixed_ips"] = [{"ip_address": args["fixed_ip"]}]
        made = api.post(f"/servers/{ident}/os-interface",
                        {"interfaceAttachment": attach})["interfaceAttachment"]
        args["port"] = made.get("port_id")
        if not attach.get("port_id") and args.get("groups"):
            self._ports.neutron().update("ports", "port", str(args["port"]),
                                         {"security_groups": args["groups"]})
        if args.get("floating_ip"):
            self._ports.associate_floating_ip(args["floating_ip"], str(args["port"]),
                                              args.get("fixed_ip"))

    def _image_of(self) -> str:
        image = (self._fetch() or {}).get("image")
        return str(image.get("id")) if isinstance(image, Mapping) else ""

    def finished(self, step: Step, seen: Mapping[str, Any] | None = None) -> bool:
        """Whether Nova is done with a started step (``seen``: the server as the batched
        waits last saw it; else it is asked for)."""
        server = seen if seen is not None else self._fetch()
        if server is None:
            return False
        if step.kind == "resize":
            return st.check_resized(server, str(step.args["flavor"]))
        if step.kind == "confirm":
            return st.check_verified(server, str(self._plugin.resource_id))
        if step.kind == "rebuild":
            return st.check_rebuilt(server)
        if step.kind in ("detach", "attach"):
            return self._interface_settled(step)
        return True

    def _interface_settled(self, step: Step) -> bool:
        port = step.args.get("port")
        if not port:
            return True
        try:
            found = self._ports.neutron().show("ports", "port", str(port))
        except Exception as exc:
            if is_not_found(exc):
                return step.kind == "detach"
            raise
        attached = found.get("device_id") == str(self._plugin.resource_id)
        if step.kind == "attach":
            return attached
        if not attached and step.args.get("internal"):
            # Only once detached: Neutron refuses a member the delete of a bound port.
            self._ports.delete_internal(str(port))
        return not attached

    # -- networks (Heat's calculate_networks) ----------------------------------------------
    def _interfaces(self) -> list[dict[str, Any]]:
        found = self._plugin.nova().get(f"/servers/{self._plugin.resource_id}/os-interface")
        ifaces = []
        for iface in found.get("interfaceAttachments", []):
            fixed = iface.get("fixed_ips") or [{}]
            ifaces.append({"port": iface.get("port_id"), "network": iface.get("net_id"),
                           "fixed_ip": fixed[0].get("ip_address"),
                           "subnet": fixed[0].get("subnet_id")})
        return ifaces

    def _network_steps(self, old: list[Mapping[str, Any]] | None,
                       new: list[Mapping[str, Any]] | None, groups: list[str]) -> list[Step]:
        """Heat's calculate_networks: interfaces to detach and to attach."""
        ifaces = self._interfaces()
        internal = set(self._ports.ids())
        # A nic's tag cannot change on a live server: Heat ignores it in updates.
        old_nets = [without_empty({**n, "tag": None}) for n in old or []]
        new_nets = [without_empty({**n, "tag": None}) for n in new or []]
        group_ids = self._ports.security_group_ids(groups) if groups else []
        steps: list[Step] = []
        allocating = next((n["allocate_network"] for n in new_nets
                           if n.get("allocate_network")), None)
        if allocating or not old_nets or any(n.get("allocate_network") for n in old_nets):
            steps += [Step("detach", {"port": i["port"], "internal": i["port"] in internal})
                      for i in ifaces]
            if allocating == "auto" or (not allocating and not new_nets):
                steps.append(Step("attach", {"net": None, "groups": group_ids}))
            elif not allocating:
                steps += self._attach_steps(new_nets, group_ids)
            return steps
        changes = sort_networks(old_nets, new_nets, ifaces, internal, self._ports.network_id,
                                extra_updatable)
        for made, extra in changes.port_updates:
            self._ports.update_internal(made, extra)
        for net in changes.gone:
            if net.get("port"):
                port = str(net["port"])
                steps.append(Step("detach", {"port": port, "internal": port in internal}))
            if net.get("floating_ip"):
                with ignoring(is_not_found):
                    self._ports.neutron().update("floatingips", "floatingip",
                                                 net["floating_ip"], {"port_id": None})
        if not changes.added and not changes.kept:
            steps.append(Step("attach", {"net": None, "groups": group_ids}))
        # Numbered by their place among the entries attached now, as Heat names them.
        steps += self._attach_steps(changes.added, group_ids)
        return steps

    def _attach_steps(self, nets: Sequence[Mapping[str, Any]], group_ids: list[str],
                      start: int = 0) -> list[Step]:
        steps = []
        for offset, net in enumerate(nets):
            args: dict[str, Any] = {"port": None, "net": None,
                                    "floating_ip": net.get("floating_ip"),
                                    "fixed_ip": net.get("fixed_ip")}
            if net.get("port"):
                args["port"] = net["port"]
            elif net.get("subnet") or net.get("port_extra_properties"):
                args["port"] = self._ports.create_internal(net, start + offset, [])
            else:
                args["net"] = self._ports.network_id(net)
                args["groups"] = group_ids
            steps.append(Step("attach", args))
        return steps

"""OS::Nova::Server (Heat's ``server.py`` and ``server_network_mixin.py``).

Create: the ports Heat makes itself are made first and recorded, floating IPs
associated with them, then one POST /servers with the boot data, block device
mappings, networks and tags. The server is marked with a tag derived from the
action's attempt token (microversion 2.52 takes tags at create), so a create retried
after its engine died finds the server the earlier try made instead of making a
second one; each port it makes carries a tag of its own, derived from the same
token, found again the same way. The tag is hidden from the ``tags`` attribute and
``show`` and kept across updates.

Waiting parks: ACTIVE ends the create, ERROR fails it at once with Nova's
fault (``Went to status ERROR due to "Message: ..., Code: ..."``), a
building server is asked again after ``BUILD_POLL_SECS``. On ACTIVE the ports
Nova made are recorded too (``external_ports``).

Update in place: ``name``, ``metadata``, ``tags``, ``admin_pass`` at once; then
``networks``, ``flavor`` (resize) and ``image``/``user_data`` (rebuild, as their
policies say) one after another, each parked until Nova is done. The ``REPLACE``
policies, and any other change, replace the server.

Delete: DELETE (gone is fine), then until Nova no longer has it; then the
ports Heat made are deleted. With ``deletion_policy: Snapshot`` the engine's
snapshot hook (``handle_snapshot_delete``) first saves an image, which stays.

Here: the type, Heat's hooks, and handlers that decide when to wait. The work::

    server_schema.py      properties, attributes, translations
    server_checks.py      validation, microversions, implicit dependencies
    server_create.py      the POST /servers body, the attempt tag, port handover
    server_boot_data.py   user data in its format, software-config metadata
    server_ports.py       the ports Heat makes and those Nova made, as recorded
    server_update.py      update policies, quick changes, slow steps, networks
    server_attributes.py  addresses, networks, console URLs, tags
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from hotplate.model.errors import HotplateError
from hotplate.resources.base import DEPLOYMENTS, CheckAgain, CheckResult
from hotplate.resources.deployed_server import DeployedServer
from hotplate.resources.openstack.attempt_marks import tags_without_marks
from hotplate.resources.openstack.cloud_errors import is_conflict
from hotplate.resources.openstack.neutron.api import NeutronApi, ignoring
from hotplate.resources.openstack.nova import server_checks as checks
from hotplate.resources.openstack.nova import status as st
from hotplate.resources.openstack.nova.base import NovaResource, is_not_found
from hotplate.resources.openstack.nova.image_flavor import check_image_flavor
from hotplate.resources.openstack.nova.server_attributes import server_attribute
from hotplate.resources.openstack.nova.server_boot_data import (
    OCC,
    boot_data,
    stored_metadata,
    transport,
)
from hotplate.resources.openstack.nova.server_create import (
    attempt_tag,
    bdm_v1,
    bdm_v2,
    create_body,
    made_before,
    meta_serialize,
    ports_held_by_predecessor,
)
from hotplate.resources.openstack.nova.server_live import live_data, parse_live_data
from hotplate.resources.openstack.nova.server_ports import EXTERNAL, ServerPorts
from hotplate.resources.openstack.nova.server_schema import ATTRIBUTES, PROPERTIES, RULES
from hotplate.resources.openstack.nova.server_snapshots import ServerSnapshots
from hotplate.resources.openstack.nova.server_update import InPlaceUpdate, Step, replaced_by_policy
from hotplate.resources.openstack.status_lists import NOVA_SERVERS
from hotplate.resources.openstack.waiting import Look, acted, done_waiting, look
from hotplate.resources.properties import PropertyPath
from hotplate.resources.signal_responder import signal_endpoints
from hotplate.template.implicit_deps import Peer

__all__ = ["Server", "attempt_tag"]

BUILD_POLL_SECS = 2.0
"""How long a building server is left before the next look (a fake host builds in
seconds; a real one in tens of seconds, so the look is cheap either way)."""
DELETE_POLL_SECS = 1.0
BATCHED_STEPS = frozenset({"resize", "confirm", "rebuild"})
"""Update steps whose end shows in the server's status (read through the batched waits);
interface attach and detach steps look at the ports themselves."""
PORT_HANDOVER_SECS = 60.0
"""How long a replacement waits for its predecessor to let go of a given port; then
the create goes ahead, and fails with Nova's 409 if the port is still bound."""


class Server(ServerSnapshots, NovaResource):
    """A resource for managing Nova instances.

    A Server resource manages the running virtual machine instance within an
    OpenStack cloud.
    """

    path = "/servers"
    entity = "server"
    properties_schema = PROPERTIES
    attributes_schema = ATTRIBUTES
    translation_rules = RULES
    managed_metadata = frozenset({OCC, DEPLOYMENTS})

    # Pure readings of the create body, offered on the type too (callers read them here).
    meta_serialize = staticmethod(meta_serialize)
    _bdm_v1 = staticmethod(bdm_v1)
    _bdm_v2 = staticmethod(bdm_v2)

    # -- validation and replacement (Heat's hooks) -----------------------------------------
    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        checks.check_properties(props, path)

    @classmethod
    def check_with_cloud(cls, props: Mapping[str, Any], path: PropertyPath, cloud: Any,
                         seen: dict[Any, Any]) -> None:
        if props.get("image") and props.get("flavor"):
            check_image_flavor(cloud, str(props["image"]), str(props["flavor"]), seen)

    @classmethod
    def implicit_requires(cls, me: Peer, peers: Mapping[str, Peer]) -> Iterable[str]:
        return checks.implicit_requires(me, peers)

    @classmethod
    def needs_replace_with_prop_diff(cls, changed: frozenset[str], new: Mapping[str, Any],
                                     old: Mapping[str, Any]) -> bool:
        return replaced_by_policy(changed, new, old)

    def needs_replace_failed(self) -> bool:
        """Heat's hook: a FAILED server is replaced only when it is gone or broken (ERROR,
        DELETED, SOFT_DELETED); an engine that asks keeps a server that is fine."""
        if self.resource_id is None:
            return True
        server = self._fetch()
        return server is None or st.status_of(server) in ("ERROR", "DELETED", "SOFT_DELETED")

    # -- helpers ---------------------------------------------------------------------------
    def neutron(self) -> NeutronApi:
        return NeutronApi(self.cloud)

    @property
    def ports(self) -> ServerPorts:
        return ServerPorts(self)

    def _server_name(self) -> str:
        return str(self.properties.get("name") or self.physical_resource_name())

    def show(self) -> dict[str, Any]:
        """The server as Nova has it, less hotplate's mark among its tags."""
        found = super().show()
        if found.get("tags"):
            found = {**found, "tags": tags_without_marks(found["tags"])}
        return found

    def _fetch(self) -> dict[str, Any] | None:
        try:
            return self.nova().server(str(self.resource_id))
        except Exception as exc:
            if is_not_found(exc):
                return None
            raise

    def _now(self) -> float:
        return self.ctx.clock.now().timestamp()

    def _transport(self) -> str:
        return transport(self)

    def collector_config(self) -> dict[str, Any]:
        """os-collect-config's configuration for this server (DeployedServer's)."""
        found: dict[str, Any] = DeployedServer.collector_config(self)  # type: ignore[arg-type]
        return found

    # -- create ----------------------------------------------------------------------------
    def handle_create(self) -> Any:
        checks.check_versions(self.nova(), self.properties)
        made = self._made_before() if self.attempt.retry else None
        if made is None and self._makes_ports() and self._ports_held_by_predecessor():
            return {"started": self._now(), "waiting_for_ports": True}
        try:
            self._create(made)
        except Exception as exc:
            # Nova refuses a port still bound (409); asked only then: the port may be
            # the one this server's predecessor is letting go of.
            if made is None and is_conflict(exc) and self._ports_held_by_predecessor():
                return {"started": self._now(), "waiting_for_ports": True}
            raise
        return {"started": self._now()}

    def _made_before(self) -> dict[str, Any] | None:
        """The server an earlier try of this create made, by its attempt tag."""
        return made_before(self.nova(), self.attempt.token)

    def _create(self, made: Mapping[str, Any] | None = None) -> None:
        if made is None:
            body = create_body(self.properties, self._server_name(), boot_data(self),
                               self.nova(), self.ports, self.attempt.token)
            made = self.nova().post("/servers", body)["server"]
            acted(self, "create")
        self.resource_id_set(str(made["id"]))

    def _makes_ports(self) -> bool:
        """Whether the create makes ports of its own (a network entry with a subnet or
        port_extra_properties): such a create asks first whether its given ports are
        free, rather than make its ports, be refused, and make them again."""
        return any(not net.get("port") and (net.get("subnet") or net.get("port_extra_properties"))
                   for net in self.properties.get("networks") or [])

    def _ports_held_by_predecessor(self) -> bool:
        return ports_held_by_predecessor(list(self.properties.get("networks") or []),
                                         self.nova(), self.neutron(), self._server_name(),
                                         self.physical_resource_name())

    def check_create_complete(self, data: Any) -> CheckResult:
        if isinstance(data, dict) and data.get("waiting_for_ports"):
            waited = self._now() - float(data["started"])
            if waited < PORT_HANDOVER_SECS and self._ports_held_by_predecessor():
                return CheckAgain(1.0)
            data["waiting_for_ports"] = False
            self._create()
            return CheckAgain(BUILD_POLL_SECS)
        seen = self._look("create", BUILD_POLL_SECS)
        if seen.pending:
            return CheckAgain(seen.after)
        # A server gone while building fails the create (Nova's NotFound), as in Heat.
        server = seen.record or self.nova().server(str(self.resource_id))
        if not st.check_active(server):
            return CheckAgain(seen.after)
        done_waiting(self, "create", NOVA_SERVERS, str(self.resource_id))
        self.store_external_ports()
        return True

    def _look(self, purpose: str, every: float) -> Look:
        """The server as the engine's batched waits last saw it (``waiting``)."""
        return look(self, purpose, NOVA_SERVERS, str(self.resource_id), self._fetch,
                    every=every, until_gone=purpose == "delete")

    def store_external_ports(self) -> None:
        """Record the ports Nova made for the server (Heat's ``external_ports``): with a
        port given for every network, those ports, known without asking Neutron."""
        networks = list(self.properties.get("networks") or [])
        if networks and all(net.get("port") for net in networks):
            self.ports.record_given([str(net["port"]) for net in networks])
        else:
            self.ports.store_external()

    # -- update ----------------------------------------------------------------------------
    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        old = copy.deepcopy(self.properties)
        super().handle_update(new_properties, prop_diff)
        return self._update().begin(old, prop_diff, self._server_name())

    def _update(self) -> InPlaceUpdate:
        return InPlaceUpdate(self, self._fetch)

    def check_update_complete(self, data: Any) -> CheckResult:
        update = self._update()
        steps: list[Step] = list(data or [])
        for index, step in enumerate(steps):
            if not step.called:
                update.start(step)
                step.called = True
                return CheckAgain(BUILD_POLL_SECS) if step.kind in ("resize", "rebuild") \
                    else False
            if step.kind == "done":
                continue
            after, record = BUILD_POLL_SECS, None
            if step.kind in BATCHED_STEPS:  # Nova's own state tells: the batched waits
                seen = self._look(f"update-{index}", BUILD_POLL_SECS)
                if seen.pending:
                    return CheckAgain(seen.after)
                after, record = seen.after, seen.record
            if not update.finished(step, record):
                return CheckAgain(after)
            done_waiting(self, f"update-{index}", NOVA_SERVERS, str(self.resource_id))
            step.kind = "done"
        self.store_external_ports()
        return True

    # -- delete ----------------------------------------------------------------------------
    def handle_delete(self) -> Any:
        self.data_delete(EXTERNAL)
        if self.properties.get("user_data_format") == "SOFTWARE_CONFIG":
            with ignoring(lambda exc: isinstance(exc, RuntimeError)):
                signal_endpoints(self).forget_signal_credentials()
        if self.resource_id is None:
            self.ports.delete_all_internal()
            return None
        self.nova().delete(f"/servers/{self.resource_id}")
        return {"deleting": True}

    def check_delete_complete(self, data: Any) -> CheckResult:
        if data is None:
            return True
        if isinstance(data, dict) and data.get("image"):
            return self._check_snapshot(data)
        seen = self._look("delete", DELETE_POLL_SECS)
        if seen.pending:
            return CheckAgain(seen.after)
        gone = st.check_deleted(seen.record)
        if gone == "force":
            self.nova().action(str(self.resource_id), {"forceDelete": None})
            return CheckAgain(seen.after)
        if not gone:
            return CheckAgain(seen.after)
        done_waiting(self, "delete", NOVA_SERVERS, str(self.resource_id))
        self.ports.delete_all_internal()
        return True

    def resume_data(self, action: str) -> Any:
        if action == "DELETE":
            return {"deleting": True}
        if action == "UPDATE":
            return []
        return {"started": self._now()}

    # -- suspend, resume, check (the engine's stack actions) -------------------------------
    def _for_action(self, verb: str) -> dict[str, Any]:
        if self.resource_id is None:
            raise HotplateError(f"Cannot {verb} {self.name}, resource_id not set")
        server = self._fetch()
        if server is None:
            raise HotplateError(f"Failed to find server {self.resource_id}")
        return server

    def handle_suspend(self) -> Any:
        """Suspend (not again if it is already); the wait is check_suspend_complete's."""
        if st.status_of(self._for_action("suspend")) != "SUSPENDED":
            self.nova().action(str(self.resource_id), {"suspend": None})
            acted(self, "suspend")
        return str(self.resource_id)

    def check_suspend_complete(self, data: Any) -> CheckResult:
        seen = self._look("suspend", BUILD_POLL_SECS)
        server = seen.record
        if server is None:
            return CheckAgain(seen.after)
        status = st.status_of(server)
        if status == "SUSPENDED":
            done_waiting(self, "suspend", NOVA_SERVERS, str(self.resource_id))
            return True
        if status in st.DEFERRED | {"ACTIVE"}:
            return CheckAgain(seen.after)
        done_waiting(self, "suspend", NOVA_SERVERS, str(self.resource_id))
        raise st.ResourceUnknownStatus(status, result=(
            f"Suspend of server {server.get('name')} failed"))

    def handle_resume(self) -> Any:
        if st.status_of(self._for_action("resume")) != "ACTIVE":
            self.nova().action(str(self.resource_id), {"resume": None})
            acted(self, "resume")
        return str(self.resource_id)

    def check_resume_complete(self, data: Any) -> CheckResult:
        seen = self._look("resume", BUILD_POLL_SECS)
        if seen.record is None or not st.check_active(seen.record):
            return CheckAgain(seen.after)
        done_waiting(self, "resume", NOVA_SERVERS, str(self.resource_id))
        return True

    def handle_check(self) -> None:
        """Heat's check: the server is there and ACTIVE."""
        status = st.status_of(self.nova().server(str(self.resource_id)))
        if status != "ACTIVE":
            raise HotplateError(f"'status': expected 'ACTIVE', got '{status}'")

    # -- Snapshot deletion policy (Heat's handle_snapshot_delete) --------------------------
    def handle_snapshot_delete(self, state: tuple[str, str]) -> Any:
        """Save an image of the server, then delete it (a failed server is just deleted).
        The image stays after the stack is gone, as with Heat."""
        if state[1] != "FAILED" and self.resource_id is not None:
            made = self.nova().request("POST", f"/servers/{self.resource_id}/action",
                                       {"createImage": {"name": self.physical_resource_name()}})
            return {"image": str((made or {}).get("image_id"))}
        return self.handle_delete()

    def _check_snapshot(self, data: dict[str, Any]) -> CheckResult:
        image = self.cloud.call(self.cloud.image.get_image, data["image"])
        status = str(image.status).lower()
        if status in ("error", "deleted"):
            raise HotplateError(status)
        if status != "active":
            return CheckAgain(BUILD_POLL_SECS)
        data.clear()
        data.update(self.handle_delete() or {})
        return self.check_delete_complete(data) if data else True

    # -- replacement (Heat's hooks; the engine calls them once it offers them) -------------
    def prepare_for_replace(self) -> None:
        """Hand this server's ports to its replacement: detach them (an ERROR server's own
        ports are deleted instead), as Heat's prepare_ports_for_replace."""
        if self.resource_id is None:
            return
        server = self._fetch()
        if server is None or st.status_of(server) == "ERROR":
            self.ports.delete_all_internal()
            return
        self.ports.detach_all()

    def restore_prev_rsrc(self, convergence: bool = False) -> None:
        """Take this server's ports back on rollback: detached from whichever server holds
        them now (the replacement, once built), attached here again."""
        if self.resource_id is None:
            return
        other = self.replacement if convergence else None
        self.ports.take_back(str(other.resource_id) if other and other.resource_id else None)

    # -- live state (server_live.py) ------------------------------------------------------
    def get_live_resource_data(self) -> Any:
        return live_data(self) if self.resource_id is not None else None

    def parse_live_resource_data(self, resource_properties: Mapping[str, Any],
                                 resource_data: Mapping[str, Any]) -> dict[str, Any]:
        return parse_live_data(self, resource_properties, resource_data)

    # -- attributes ------------------------------------------------------------------------
    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == "name":
            return self._server_name()
        if name == "os_collect_config":
            return stored_metadata(self).get(OCC, {})
        server = self._fetch()
        if server is None:
            return ""
        return server_attribute(self, name, server)

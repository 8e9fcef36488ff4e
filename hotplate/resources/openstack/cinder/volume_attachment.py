"""OS::Cinder::VolumeAttachment, and the attachment both it and AWS's share (Heat's
``BaseVolumeAttachment``).

Create asks Nova to attach the volume to the server (at the device given, if
any) and records Nova's id of the attachment (the volume's id); it is done when
Cinder shows the volume in use (``attachments``). A create retried after its
engine died takes the attachment its first try made, if Nova holds one. Delete detaches and waits
until both Cinder and Nova say it is gone; a server or volume already gone
counts as detached.

Update (any property): detach from the old server, then attach the new volume
(or the same one) to the new server at the new device, each waited for; the
physical id becomes the new attachment's once it is attached.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from hotplate.resources.base import CheckAgain, CheckResult, Resource
from hotplate.resources.constraints import CustomConstraint
from hotplate.resources.openstack.cinder.api import CinderApi
from hotplate.resources.openstack.cinder.attachments import (
    Attaching,
    Detaching,
    Watch,
    attach,
    attached_before,
)
from hotplate.resources.openstack.nova.api import NovaApi
from hotplate.resources.openstack.status_lists import CINDER_VOLUMES
from hotplate.resources.openstack.waiting import Look, acted, look
from hotplate.resources.properties import Schema

__all__ = ["BaseVolumeAttachment", "CinderVolumeAttachment"]


@dataclass
class _Moving:
    detach: Detaching | None
    attach: Attaching


class BaseVolumeAttachment(Resource):
    """An attachment of a volume to a server; subclasses name the three properties."""

    default_client_name = "cinder"
    server_key: ClassVar[str] = "instance_uuid"
    volume_key: ClassVar[str] = "volume_id"
    device_key: ClassVar[str] = "mountpoint"

    def cinder(self) -> CinderApi:
        return CinderApi(self.cloud)

    def nova(self) -> NovaApi:
        return NovaApi(self.cloud)

    def _where(self, props: Mapping[str, Any]) -> tuple[str, str, str | None]:
        return (str(props[self.server_key]), str(props[self.volume_key]),
                props.get(self.device_key) or None)

    def watch(self, purpose: str, volume: str) -> Watch:
        """The volume, for the wait ``purpose``, through the engine's batched waits."""
        def seen() -> Look:
            return look(self, purpose, CINDER_VOLUMES, volume,
                        lambda: self.cinder().volume_or_none(volume), every=1.0)
        return seen

    # -- create -----------------------------------------------------------------------
    def handle_create(self) -> Any:
        server, volume, device = self._where(self.properties)
        state = Attaching(server, volume, device)
        if self.attempt.retry:
            state.called = attached_before(self.nova(), server, volume)
        if state.called is None:
            state.called = attach(self.nova(), server, volume, device)
        if state.called is not None:
            self.resource_id_set(state.called)
            acted(self, "attach")
        return state

    def check_create_complete(self, data: Any) -> CheckResult:
        state = data if isinstance(data, Attaching) else Attaching(
            *self._where(self.properties), called=self.resource_id)
        done = state.advance(self.nova(), self.cinder(), self.watch("attach", state.volume))
        if state.called is not None and self.resource_id is None:
            self.resource_id_set(state.called)
        return done

    def resume_data(self, action: str) -> Any:
        if action == "DELETE":
            return self._detaching(self.properties, deleting=True)
        return None

    # -- update -----------------------------------------------------------------------
    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        if not prop_diff:
            return None
        detaching = self._detaching(self.properties)
        if detaching is not None:
            detaching.advance(self.nova(), self.cinder())
        server, volume, device = self._where({**self.properties, **prop_diff})
        super().handle_update(new_properties, prop_diff)
        return _Moving(detaching, Attaching(server, volume, device))

    def check_update_complete(self, data: Any) -> CheckResult:
        if not isinstance(data, _Moving):
            return True
        if data.detach is not None and not data.detach.nova_done:
            moved = data.detach.advance(self.nova(), self.cinder(),
                                        self.watch("detach", data.detach.volume))
            return moved if isinstance(moved, CheckAgain) else False
        done = data.attach.advance(self.nova(), self.cinder(),
                                   self.watch("attach", data.attach.volume))
        if done:
            self.resource_id_set(data.attach.called)
        return done

    # -- delete -----------------------------------------------------------------------
    def _detaching(self, props: Mapping[str, Any], *, deleting: bool = False,
                   ) -> Detaching | None:
        """The detach of this attachment; a delete's waits for Cinder's side only
        (``Detaching`` says why)."""
        if self.resource_id is None:
            return None
        server, volume, _ = self._where(props)
        return Detaching(server, volume, str(self.resource_id), nova_done=deleting)

    def handle_delete(self) -> Any:
        state = self._detaching(self.properties, deleting=True)
        if state is not None:
            state.advance(self.nova(), self.cinder())
        return state

    def check_delete_complete(self, data: Any) -> CheckResult:
        if not isinstance(data, Detaching):
            return True
        return data.advance(self.nova(), self.cinder(), self.watch("detach", data.volume))

    def _show_resource(self) -> Any:
        return None  # Heat's attachment types have no entity to show


class CinderVolumeAttachment(BaseVolumeAttachment):
    """Resource for associating volume to instance.

    Resource for associating existing volume to instance. Also, the location
    where the volume is exposed on the instance can be specified.
    """

    heat_class_name = "CinderVolumeAttachment"

    properties_schema = {
        "instance_uuid": Schema(Schema.STRING, "The ID of the server to which the volume "
                                "attaches.", required=True, update_allowed=True),
        "volume_id": Schema(Schema.STRING, "The ID of the volume to be attached.",
                            required=True, update_allowed=True,
                            constraints=[CustomConstraint("cinder.volume")]),
        "mountpoint": Schema(Schema.STRING, "The location where the volume is exposed on the "
                             "instance. This assignment may not be honored and it is advised "
                             "that the path /dev/disk/by-id/virtio-<VolumeId> be used "
                             "instead.", update_allowed=True),
    }

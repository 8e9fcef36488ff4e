"""OS::Cinder::Volume (Heat's ``cinder/volume.py``).

A volume of ``size`` GB, or from an ``image`` (its name looked up in Glance),
a ``snapshot_id``, a ``source_volid`` or a ``backup_id``; create, delete,
check and the Snapshot deletion policy are ``volume_base``'s. Once available,
the ``read_only`` flag is set when given, and the volume's type is kept as
resource data (Heat's ``_store_config_default_properties``).

Update in place: name and description (an unset one keeps the old value, as
Heat's ``or`` does), metadata (replaced whole, hotplate's mark kept) and
volume_type (a retype that never migrates) at once; then the slow steps
``volume_update`` plans (detach, restore a backup, extend, read-only flag,
reattach), one after another, each waited for. Any other change replaces the
volume. ``multiattach`` is accepted and not sent (Cinder takes it from the volume
type now; Heat hides it).

Attributes read Cinder's view each time; all but ``metadata_values``,
``attachments_list`` and the two names are Heat's ``str()`` of the value
(``"None"``, ``"False"``, the Python form of a list), as Heat gives them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.attributes import Attribute
from hotplate.resources.base import CheckAgain, CheckResult
from hotplate.resources.constraints import CustomConstraint, Range
from hotplate.resources.openstack.attempt_marks import metadata_with_mark, metadata_without_marks
from hotplate.resources.openstack.cinder.api import CinderApi
from hotplate.resources.openstack.cinder.attachments import Attaching, Detaching
from hotplate.resources.openstack.cinder.errors import Error, ResourceUnknownStatus
from hotplate.resources.openstack.cinder.volume_base import BaseVolume
from hotplate.resources.openstack.cinder.volume_snapshots import VolumeSnapshots
from hotplate.resources.openstack.cinder.volume_update import (
    MICROVERSION_EXTEND_INUSE,
    UpdatePlan,
    plan_update,
)
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.support import Status, SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["CinderVolume"]

_S = Schema.STRING


@dataclass
class _Updating:
    """The slow part of an update in progress (see ``volume_update``)."""

    plan: UpdatePlan
    detach: Detaching | None = None
    attach: Attaching | None = None
    restore_called: bool = False
    restore_done: bool = False
    extend_ready: bool = False
    extend_called: bool = False
    extend_done: bool = False
    access_done: bool = False


def _given(props: Mapping[str, Any], key: str) -> bool:
    """Heat's truth of a property; one whose value is not known yet (absent while the
    resources it reads are not built) is given."""
    return key not in props or bool(props[key])


class CinderVolume(VolumeSnapshots, BaseVolume):
    """A resource that implements Cinder volumes.

    Cinder volume is a storage in the form of block devices. It can be used,
    for example, for providing storage to instance. Volume supports creation
    from snapshot, backup or image. Also volume can be created only by size.
    """

    heat_class_name = "CinderVolume"
    live_state = True
    creating_statuses = frozenset({"creating", "restoring-backup", "downloading"})

    properties_schema = {
        "availability_zone": Schema(_S, "The availability zone in which the volume will be "
                                    "created."),
        "size": Schema(Schema.INTEGER, "The size of the volume in GB. On update only "
                       "increase in size is supported. This property is required unless "
                       "property backup_id or source_volid or snapshot_id is specified.",
                       update_allowed=True, constraints=[Range(min=1)]),
        "snapshot_id": Schema(_S, "If specified, the snapshot to create the volume from.",
                              constraints=[CustomConstraint("cinder.snapshot")]),
        "backup_id": Schema(_S, "If specified, the backup to create the volume from.",
                            update_allowed=True,
                            constraints=[CustomConstraint("cinder.backup")]),
        "name": Schema(_S, "A name used to distinguish the volume.", update_allowed=True),
        "description": Schema(_S, "A description of the volume.", update_allowed=True),
        "volume_type": Schema(_S, "If specified, the type of volume to use, mapping to a "
                              "specific backend.", update_allowed=True,
                              constraints=[CustomConstraint("cinder.vtype")]),
        "metadata": Schema(Schema.MAP, "Key/value pairs to associate with the volume.",
                           update_allowed=True, default={}),
        "imageRef": Schema(_S, "The ID of the image to create the volume from.",
                           support_status=SupportStatus(
                               Status.HIDDEN, "5.0.0", "Use property image.",
                               SupportStatus(Status.DEPRECATED, "2014.1"))),
        "image": Schema(_S, "If specified, the name or ID of the image to create the volume "
                        "from.", constraints=[CustomConstraint("glance.image")]),
        "source_volid": Schema(_S, "If specified, the volume to use as source.",
                               constraints=[CustomConstraint("cinder.volume")]),
        "scheduler_hints": Schema(Schema.MAP, "Arbitrary key-value pairs specified by the "
                                  "client to help the Cinder scheduler creating a volume.",
                                  support_status=SupportStatus(version="2015.1")),
        "read_only": Schema(Schema.BOOLEAN, "Enables or disables read-only access mode of "
                            "volume.", update_allowed=True,
                            support_status=SupportStatus(version="5.0.0")),
        "multiattach": Schema(Schema.BOOLEAN, "Whether allow the volume to be attached more "
                              "than once.", default=False,
                              support_status=SupportStatus(
                                  Status.HIDDEN, "13.0.0",
                                  previous_status=SupportStatus(version="6.0.0"))),
    }

    attributes_schema = {
        "availability_zone": Attribute("The availability zone in which the volume is "
                                       "located.", Attribute.STRING),
        "size": Attribute("The size of the volume in GB.", Attribute.STRING),
        "snapshot_id": Attribute("The snapshot the volume was created from, if any.",
                                 Attribute.STRING),
        "display_name": Attribute("Name of the volume.", Attribute.STRING),
        "display_description": Attribute("Description of the volume.", Attribute.STRING),
        "volume_type": Attribute("The type of the volume mapping to a backend, if any.",
                                 Attribute.STRING),
        "metadata": Attribute("Key/value pairs associated with the volume.",
                              Attribute.STRING),
        "source_volid": Attribute("The volume used as source, if any.", Attribute.STRING),
        "status": Attribute("The current status of the volume.", Attribute.STRING),
        "created_at": Attribute("The timestamp indicating volume creation.",
                                Attribute.STRING),
        "bootable": Attribute("Boolean indicating if the volume can be booted or not.",
                              Attribute.STRING),
        "metadata_values": Attribute("Key/value pairs associated with the volume in raw "
                                     "dict form.", Attribute.MAP),
        "encrypted": Attribute("Boolean indicating if the volume is encrypted or not.",
                               Attribute.STRING),
        "attachments": Attribute("A string representation of the list of attachments of "
                                 "the volume.", Attribute.STRING, SupportStatus(
                                     Status.DEPRECATED, "9.0.0",
                                     "Use property attachments_list.",
                                     SupportStatus(version="2015.1"))),
        "attachments_list": Attribute("The list of attachments of the volume.",
                                      Attribute.LIST, SupportStatus(version="9.0.0")),
        "multiattach": Attribute("Boolean indicating whether allow the volume to be attached "
                                 "more than once.", Attribute.BOOLEAN,
                                 SupportStatus(version="6.0.0")),
    }

    translation_rules = (TranslationRule.replace(("image",), "imageRef"),)

    # -- validation -----------------------------------------------------------------------
    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        """Heat's source checks (unless created from a backup): without a size, exactly
        one of snapshot_id and source_volid; with one, at most one source."""
        super().check_properties(props, path)
        if _given(props, "backup_id"):
            return
        exclusive = [k for k in ("snapshot_id", "source_volid", "image", "imageRef")
                     if _given(props, k)]
        no_size = [k for k in ("snapshot_id", "source_volid") if _given(props, k)]
        size_given = _given(props, "size")
        if not size_given and (len(no_size) != 1 or len(exclusive) != 1):
            raise StackValidationFailed(
                'If neither "backup_id" nor "size" is provided, one and only one of '
                '"source_volid", "snapshot_id" must be specified, but currently specified '
                f"options: {exclusive}.")
        if size_given and len(exclusive) > 1:
            raise StackValidationFailed(
                'If "size" is provided, only one of "image", "imageRef", "source_volid", '
                '"snapshot_id" can be specified, but currently specified options: '
                f"{exclusive}.")

    # -- create -----------------------------------------------------------------------
    def volume_name(self) -> str:
        return str(self.properties.get("name") or self.physical_resource_name())

    def volume_description(self) -> str | None:
        described = self.properties.get("description")
        return str(described) if described is not None else None

    def create_arguments(self) -> dict[str, Any]:
        props = self.properties
        args: dict[str, Any] = {"size": props.get("size"),
                                "availability_zone": props.get("availability_zone") or None}
        if props.get("scheduler_hints"):
            args["scheduler_hints"] = props["scheduler_hints"]
        if props.get("image"):
            args["imageRef"] = self.cloud.find("image", str(props["image"]))
        args.update({k: props[k] for k in ("snapshot_id", "volume_type", "source_volid",
                                           "metadata") if props.get(k) is not None})
        return args

    def check_create_complete(self, data: Any) -> CheckResult:
        done = super().check_create_complete(data)
        if not done:
            return done
        self._store_volume_type(self.created or self.cinder().volume(str(self.resource_id)))
        self._set_read_only(self.properties.get("read_only"))
        return True

    def _store_volume_type(self, volume: Mapping[str, Any]) -> None:
        if volume.get("volume_type") is not None:
            self.data_set("volume_type", str(volume["volume_type"]))
        else:
            self.data_delete("volume_type")

    def _set_read_only(self, flag: bool | None) -> None:
        if flag is not None:
            self.cinder().volume_action(str(self.resource_id), "os-update_readonly_flag",
                                        {"readonly": flag})

    # -- update -----------------------------------------------------------------------
    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        api, ident = self.cinder(), str(self.resource_id)
        volume = api.volume(ident)
        if "name" in prop_diff or "description" in prop_diff:
            name = prop_diff.get("name") or self.properties.get("name")
            description = prop_diff.get("description") or self.properties.get("description")
            api.put(f"/volumes/{ident}", {"volume": self.names(name, description)})
        if "metadata" in prop_diff:
            api.put(f"/volumes/{ident}/metadata", {"metadata": metadata_with_mark(
                prop_diff["metadata"], volume.get("metadata"))})
        if "volume_type" in prop_diff:
            api.volume_action(ident, "os-retype", {"new_type": prop_diff["volume_type"],
                                                   "migration_policy": "never"})
        plan = plan_update(prop_diff, volume,
                           extend_in_use=api.supports(MICROVERSION_EXTEND_INUSE))
        super().handle_update(new_properties, prop_diff)
        if not plan.slow:
            return None
        state = _Updating(plan)
        if plan.reattach is not None:
            where = plan.reattach
            state.detach = Detaching(where.server, ident, where.attachment)
            state.attach = Attaching(where.server, ident, where.device)
        return state

    def check_update_complete(self, data: Any) -> CheckResult:
        if not isinstance(data, _Updating):
            return True
        api, plan = self.cinder(), data.plan
        if data.detach is not None and not data.detach.nova_done:
            data.detach.advance(self.nova(), api)
            return False
        if plan.restore is not None and not data.restore_done:
            return self._restore(api, data)
        if plan.extend is not None and not data.extend_done:
            return self._extend(api, data)
        if plan.access and not data.access_done:
            self._set_read_only(plan.read_only)
            data.access_done = True
            return False
        if data.attach is not None:
            return data.attach.advance(self.nova(), api)
        return True

    def _restore(self, api: CinderApi, data: _Updating) -> bool:
        ident, backup = str(self.resource_id), data.plan.restore
        if not data.restore_called:
            try:
                api.post(f"/backups/{backup}/restore",
                         {"restore": {"volume_id": ident, "name": None}})
            except Exception as exc:
                if getattr(exc, "status", None) is None:
                    raise
                raise Error(f"Failed to restore volume {ident} from backup {backup} - "
                            f"{exc}") from exc
            data.restore_called = True
            return False
        status = str(api.volume(ident).get("status"))
        if status == "restoring-backup":
            return False
        if status != "available":
            raise ResourceUnknownStatus(status, result="Volume backup restore failed")
        data.restore_done = True
        return False

    def _extend(self, api: CinderApi, data: _Updating) -> CheckResult:
        ident = str(self.resource_id)
        ready = ("available", "in-use") if api.supports(MICROVERSION_EXTEND_INUSE) \
            else ("available",)
        if not data.extend_ready:
            data.extend_ready = api.volume(ident).get("status") in ready
            if not data.extend_ready:
                return False
        if not data.extend_called:
            try:
                api.volume_action(ident, "os-extend", {"new_size": data.plan.extend})
            except Exception as exc:
                if getattr(exc, "status", None) is None:
                    raise
                raise Error(f"Failed to extend volume {ident} - {exc}") from exc
            data.extend_called = True
            return False
        seen = self.look("extend")
        if seen.pending:
            return CheckAgain(seen.after)
        status = str((seen.record or api.volume(ident)).get("status"))
        if status == "extending":
            return CheckAgain(seen.after)
        self.done_looking("extend")
        if status not in ready:
            raise ResourceUnknownStatus(status, result="Volume resize failed")
        data.extend_done = True
        return False

    def needs_replace_failed(self) -> bool:
        """Heat's rule: a failed volume is replaced when it is gone, in error or being
        deleted; one Cinder still holds in good order is updated in place."""
        if self.resource_id is None:
            return True
        found = self.cinder().volume_or_none(str(self.resource_id))
        return found is None or found.get("status") in ("error", "deleting")

    # -- live state -----------------------------------------------------------------------
    def parse_live_resource_data(self, resource_properties: Mapping[str, Any],
                                 resource_data: Mapping[str, Any]) -> dict[str, Any]:
        """Heat's reading of a volume: size, name, description and metadata (less
        hotplate's mark and the ``readonly`` key, read as ``read_only``); the volume
        type when it is no longer the one the volume was made with; the backup only
        when Cinder says it. ``name`` and ``description`` only when the template gave
        them (the volume otherwise carries the physical name)."""
        metadata = metadata_without_marks(resource_data.get("metadata"))
        result: dict[str, Any] = {"size": resource_data.get("size"), "metadata": metadata}
        readonly = metadata.pop("readonly", None)
        if readonly is not None:
            result["read_only"] = str(readonly).lower() == "true"
        for key in ("name", "description"):
            if resource_properties.get(key) is not None:
                result[key] = resource_data.get(key)
        live_type = resource_data.get("volume_type")
        if live_type is not None and live_type != self.data().get("volume_type"):
            result["volume_type"] = live_type
        if "backup_id" in resource_data:
            result["backup_id"] = resource_data["backup_id"]
        return result

    # -- attributes -----------------------------------------------------------------------
    def _show_resource(self) -> Any:
        if self.resource_id is None:
            return None
        return self._volume()

    def _volume(self) -> dict[str, Any]:
        """The volume as Cinder has it, less hotplate's mark among its metadata."""
        volume = self.cinder().volume(str(self.resource_id))
        return {**volume, "metadata": metadata_without_marks(volume.get("metadata"))}

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        volume = self._volume()
        if name == "metadata":
            return json.dumps(volume.get("metadata"))
        if name == "metadata_values":
            return volume.get("metadata")
        if name == "display_name":
            return volume.get("name")
        if name == "display_description":
            return volume.get("description")
        if name == "attachments_list":
            return volume.get("attachments")
        return str(volume.get(name))

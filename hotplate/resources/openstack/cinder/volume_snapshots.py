"""A Cinder volume's part in a stack snapshot: a backup, as Heat's volume makes.

``handle_snapshot`` backs the volume up (``force``: an attached volume too)
and keeps the backup's id in the resource data, which the snapshot records.
A restore makes the volume's definition name that backup (``backup_id``,
which an update restores into the same volume); the image and source volume
it was first made from no longer apply. Deleting the snapshot deletes the
backup (one already gone is fine).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hotplate.resources.openstack.cinder.api import CinderApi
from hotplate.resources.openstack.cinder.errors import Error
from hotplate.resources.openstack.cloud_errors import is_not_found

BACKUP_KEY = "backup_id"
NOT_RESTORED = frozenset({"image", "imageRef", "source_volid"})
"""Properties a restored volume drops: it comes from the backup, not from these."""


class VolumeSnapshots:
    """Heat's snapshot handlers for OS::Cinder::Volume (a mixin of the plugin)."""

    name: str
    resource_id: str | None
    properties: dict[str, Any]

    if TYPE_CHECKING:  # the plugin's own, declared for the type checker only
        def cinder(self) -> CinderApi: ...

        def data_set(self, key: str, value: str, *, redact: bool = False) -> None: ...

    def handle_snapshot(self) -> str:
        made = self.cinder().post("/backups", {"backup": {
            "volume_id": str(self.resource_id), "force": True}})
        backup = str(made["backup"]["id"])
        self.data_set(BACKUP_KEY, backup)
        return backup

    def check_snapshot_complete(self, backup: str) -> bool:
        found = self.cinder().backup(backup)
        status = str(found.get("status"))
        if status == "creating":
            return False
        if status == "available":
            return True
        raise Error(str(found.get("fail_reason")))

    def handle_delete_snapshot(self, snapshot: Mapping[str, Any]) -> str | None:
        backup = (snapshot.get("resource_data") or {}).get(BACKUP_KEY)
        if not backup:
            return None
        return str(backup) if self.cinder().delete(f"/backups/{backup}") else None

    def check_delete_snapshot_complete(self, backup: str | None) -> bool:
        if not backup:
            return True
        try:
            self.cinder().backup(backup)
        except Exception as exc:
            if is_not_found(exc):
                return True
            raise
        return False

    def handle_restore(self, definition: dict[str, Any],
                       part: Mapping[str, Any]) -> dict[str, Any]:
        """The definition of this volume made from its backup, with the properties it
        has now (its size too: a volume extended since shrinks back only through this)."""
        backup = (part.get("resource_data") or {})[BACKUP_KEY]
        properties = {key: value for key, value in self.properties.items()
                      if key not in NOT_RESTORED and value is not None}
        properties[BACKUP_KEY] = backup
        return {**definition, "properties": properties}

"""What a Cinder volume and an AWS volume share, as Heat's ``volume_base.py`` has it.

Create: from a backup (Cinder restores it into a new volume, then the name and
description are set), else one POST /volumes with the type's arguments. The
id is recorded at once; the create then waits::

    creating, restoring-backup, downloading   not yet
    available                                 done
    error                                     ResourceInError: Went to status error
                                              due to "Unknown"
    anything else                             ResourceUnknownStatus: Volume create
                                              failed - Unknown status X due to "Unknown"

The create's metadata carries a mark derived from the attempt token (under
``attempt_marks.ATTEMPT_METADATA_KEY``; Cinder takes no client token), so a
create retried after its engine died first looks for the volume carrying it
(``GET /volumes/detail?metadata={...}``) and takes it instead of making a
second. The mark is left out of what the volume shows and kept by metadata
updates. (A volume restored from a backup takes no metadata at create: its
retry looks for the physical name it would have set, as Heat would.)

Delete (``Deleting``): with ``deletion_policy: Snapshot`` a backup of the
volume first (Heat 27 keeps a *backup*, not a snapshot; none for a volume
whose create or update failed, none when the volume is already gone), waited
for until available (else ``Volume backup failed - Unknown status ...``); then
DELETE, refused while the volume is in use (``Volume in use``), already
deleting or gone being fine, and waited for until Cinder no longer has it
(``error_deleting``: ``Went to status error_deleting due to "delete"``). The
backup stays after the stack is gone.

Check: the volume is ``available`` or ``in-use`` (Heat's text otherwise).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from hotplate.resources.base import CheckAgain, CheckResult, Resource
from hotplate.resources.openstack.attempt_marks import ATTEMPT_METADATA_KEY, attempt_tag
from hotplate.resources.openstack.cinder.api import CinderApi
from hotplate.resources.openstack.cinder.errors import (
    Error,
    ResourceInError,
    ResourceUnknownStatus,
)
from hotplate.resources.openstack.cloud_errors import is_not_found
from hotplate.resources.openstack.nova.api import NovaApi
from hotplate.resources.openstack.status_lists import CINDER_VOLUMES
from hotplate.resources.openstack.waiting import Look, acted, done_waiting, look

POLL_SECS = 1.0
"""Between two looks of a check that asks Cinder itself (the board cannot serve)."""

__all__ = ["BaseVolume", "Deleting", "check_conditions"]


def check_conditions(attribute: str, expected: list[str], current: Any) -> None:
    """Heat's ``_verify_check_conditions`` for one attribute."""
    if current not in expected:
        raise Error(f"'{attribute}': expected '{expected}', got '{current}'")


@dataclass
class Deleting:
    """A delete in progress: an optional backup first, then the volume."""

    backup_called: bool = True
    backup_done: bool = True
    backup_id: str | None = None
    delete_called: bool = False
    delete_done: bool = False


class BaseVolume(Resource):
    """A Cinder volume; subclasses give the create arguments and the name rules."""

    default_client_name = "cinder"
    creating_statuses: ClassVar[frozenset[str]] = frozenset({"creating", "restoring-backup"})
    backup_property: ClassVar[str] = "backup_id"
    """The property naming the backup to restore from (AWS's ``SnapshotId``)."""
    created: Mapping[str, Any] | None = None
    """The volume as Cinder had it when its create was done."""

    # -- the cloud -----------------------------------------------------------------
    def cinder(self) -> CinderApi:
        return CinderApi(self.cloud)

    def nova(self) -> NovaApi:
        return NovaApi(self.cloud)

    # -- names (Heat's _name, _description) --------------------------------------------
    def volume_name(self) -> str:
        return self.physical_resource_name()

    def volume_description(self) -> str | None:
        return self.physical_resource_name()

    def names(self, name: str | None = None, description: str | None = None,
              ) -> dict[str, Any]:
        """Heat's ``_fetch_name_and_description``: a falsy value takes the default."""
        return {"name": name or self.volume_name(),
                "description": description or self.volume_description()}

    def create_arguments(self) -> dict[str, Any]:
        """The POST /volumes body's members (besides the names)."""
        return {}

    # -- create -----------------------------------------------------------------------
    def handle_create(self) -> Any:
        api = self.cinder()
        backup = self.properties.get(self.backup_property)
        if backup is not None:
            restored = api.post(f"/backups/{backup}/restore",
                                {"restore": {"volume_id": None, "name": None}})
            ident = str(restored["restore"]["volume_id"])
            self.resource_id_set(ident)
            api.put(f"/volumes/{ident}", {"volume": self.names()})
            return ident
        body = self.create_body()
        mark = attempt_tag(self.attempt.token) if self.attempt.token else None
        if mark is not None:
            body["metadata"] = {**body["metadata"], ATTEMPT_METADATA_KEY: mark}
        found = None
        if self.attempt.retry:
            found = (self._marked_before(api, mark) if mark is not None
                     else self._made_before(api, body))
        if found is None:
            hints = body.pop("OS-SCH-HNT:scheduler_hints", None)
            request: dict[str, Any] = {"volume": body}
            if hints:
                request["OS-SCH-HNT:scheduler_hints"] = hints
            found = api.post("/volumes", request)["volume"]
            acted(self, "create")
        self.resource_id_set(str(found["id"]))
        return str(found["id"])

    def create_body(self) -> dict[str, Any]:
        """cinderclient's create body: every member present, None where unset."""
        args = self.create_arguments()
        body: dict[str, Any] = {
            "size": args.pop("size", None), "consistencygroup_id": None,
            "snapshot_id": args.pop("snapshot_id", None), **self.names(),
            "volume_type": args.pop("volume_type", None),
            "availability_zone": args.pop("availability_zone", None),
            "metadata": args.pop("metadata", None) or {},
            "imageRef": args.pop("imageRef", None),
            "source_volid": args.pop("source_volid", None), "backup_id": None}
        hints = args.pop("scheduler_hints", None)
        if hints:
            body["OS-SCH-HNT:scheduler_hints"] = hints
        return body

    def _made_before(self, api: CinderApi, body: dict[str, Any]) -> dict[str, Any] | None:
        name = body.get("name")
        if not name or name != self.physical_resource_name():
            return None
        matches = api.listing("/volumes", "volumes", name=str(name))
        return matches[0] if len(matches) == 1 else None

    def look(self, purpose: str) -> Look:
        """The volume as the engine's batched waits last saw it (``waiting``)."""
        return look(self, purpose, CINDER_VOLUMES, str(self.resource_id),
                    lambda: self.cinder().volume_or_none(str(self.resource_id)),
                    every=POLL_SECS, until_gone=purpose == "delete")

    def done_looking(self, purpose: str) -> None:
        done_waiting(self, purpose, CINDER_VOLUMES, str(self.resource_id))

    def _marked_before(self, api: CinderApi, mark: str) -> dict[str, Any] | None:
        """The volume an earlier try of this create made, by its mark."""
        matches = api.listing("/volumes/detail", "volumes",
                              metadata=json.dumps({ATTEMPT_METADATA_KEY: mark}))
        return matches[0] if len(matches) == 1 else None

    def check_create_complete(self, data: Any) -> CheckResult:
        seen = self.look("create")
        if seen.pending:
            return CheckAgain(seen.after)
        volume = seen.record or self.cinder().volume(str(self.resource_id))
        status = str(volume.get("status"))
        if status == "available":
            self.created = volume
            self.done_looking("create")
            return True
        if status in self.creating_statuses:
            return CheckAgain(seen.after)
        if status == "error":
            raise ResourceInError(status)
        raise ResourceUnknownStatus(status, result="Volume create failed")

    def resume_data(self, action: str) -> Any:
        if action == "DELETE":
            return Deleting()
        return None

    # -- check ------------------------------------------------------------------------
    def handle_check(self) -> None:
        status = self.cinder().volume(str(self.resource_id)).get("status")
        check_conditions("status", ["available", "in-use"], status)

    # -- delete -----------------------------------------------------------------------
    def handle_delete(self) -> Any:
        if self.resource_id is None:
            return Deleting(delete_called=True, delete_done=True)
        return Deleting()

    def handle_snapshot_delete(self, state: tuple[str, str]) -> Any:
        """``deletion_policy: Snapshot``: a backup first, unless the volume's create or
        update failed."""
        backup = state not in (("CREATE", "FAILED"), ("UPDATE", "FAILED"))
        return Deleting(backup_called=not backup, backup_done=not backup)

    def check_delete_complete(self, data: Any) -> CheckResult:
        state = data if isinstance(data, Deleting) else Deleting()
        api = self.cinder()
        if not state.backup_called:
            state.backup_id = self._create_backup(api)
            state.backup_called = True
            state.backup_done = state.backup_id is None
            return False
        if not state.backup_done:
            state.backup_done = self._backup_done(api, str(state.backup_id))
            return False
        if not state.delete_called:
            state.delete_done = self._delete_volume(api)
            state.delete_called = True
            return False
        if not state.delete_done:
            seen = self.look("delete")
            if seen.pending:
                return CheckAgain(seen.after)
            if seen.record is None:
                state.delete_done = True
                self.done_looking("delete")
                return True
            status = str(seen.record.get("status"))
            if status.lower() == "error_deleting":
                raise ResourceInError(status, "delete")
            return CheckAgain(seen.after)
        return True

    def _create_backup(self, api: CinderApi) -> str | None:
        try:
            made = api.post("/backups", {"backup": {
                "volume_id": str(self.resource_id), "container": None, "name": None,
                "description": None, "incremental": False, "force": False,
                "snapshot_id": None}})
        except Exception as exc:
            if is_not_found(exc):
                return None
            raise
        return str(made["backup"]["id"])

    @staticmethod
    def _backup_done(api: CinderApi, backup: str) -> bool:
        status = str(api.backup(backup).get("status"))
        if status == "creating":
            return False
        if status == "available":
            return True
        raise ResourceUnknownStatus(status, result="Volume backup failed")

    def _delete_volume(self, api: CinderApi) -> bool:
        """Ask for the delete; True when the volume is already gone.

        Asked at once: only when Cinder refuses (400, a volume not available) is the
        volume read, for Heat's "Volume in use", or a delete already under way."""
        try:
            return not api.delete(f"/volumes/{self.resource_id}")
        except Exception as exc:
            if getattr(exc, "status", None) != 400:
                raise
            found = api.volume_or_none(str(self.resource_id))
            if found is None:
                return True
            if found.get("status") == "in-use":
                raise Error("Volume in use") from exc
            if found.get("status") == "deleting":
                return False
            raise

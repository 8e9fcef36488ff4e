"""Which slow steps an OS::Cinder::Volume update takes, decided from the change and the
volume as Cinder shows it (pure: no cloud).

Heat changes the name, description, metadata and type at once; the rest are
steps run one after another, each waited for::

    detach      the volume's attachment, when a step below needs the volume free
    restore     backup_id changed: restore that backup into this volume
    extend      size grew (shrinking: "Shrinking volume is not supported.")
    read_only   read_only changed: set Cinder's flag
    attach      the same attachment again (server and device) after a detach

A restore and a read-only change need the volume detached; so does an
extend, unless Cinder takes an extend of an attached volume (microversion
3.42, which Heat asks for when the cloud offers it). Only the first
attachment counts, as in Heat.

Heat's own loop ends early in two combinations (a restore with no extend
skips a read-only change and the reattach; an extend skips a read-only change
on a detached volume); here every planned step runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hotplate.resources.openstack.cinder.errors import NotSupported

__all__ = ["MICROVERSION_EXTEND_INUSE", "Attachment", "UpdatePlan", "plan_update"]

MICROVERSION_EXTEND_INUSE = "3.42"


@dataclass(frozen=True, slots=True)
class Attachment:
    """Where the volume is attached: the server, Nova's id of the attachment, the
    device (given again on reattach)."""

    server: str
    attachment: str
    device: str | None


@dataclass(frozen=True, slots=True)
class UpdatePlan:
    restore: str | None = None
    """The backup to restore into the volume."""
    extend: int | None = None
    """The new size."""
    access: bool = False
    """Whether the read-only flag is set (to ``read_only``; None sets nothing)."""
    read_only: bool | None = None
    reattach: Attachment | None = None
    """Detach from here before the steps, attach here again after them."""

    @property
    def slow(self) -> bool:
        return (self.restore is not None or self.extend is not None or self.access
                or self.reattach is not None)


def first_attachment(volume: Mapping[str, Any]) -> Attachment | None:
    attachments = volume.get("attachments") or []
    if not attachments:
        return None
    first = attachments[0]
    return Attachment(str(first.get("server_id")), str(first.get("id")),
                      first.get("device") or None)


def plan_update(prop_diff: Mapping[str, Any], volume: Mapping[str, Any], *,
                extend_in_use: bool) -> UpdatePlan:
    """The slow steps for ``prop_diff`` on ``volume`` (Cinder's view of it).

    Raises:
        NotSupported: the new size is smaller than the volume.
    """
    needs_free = False
    restore = extend = None
    access = "read_only" in prop_diff
    if access:
        needs_free = True
    if "backup_id" in prop_diff:
        restore = prop_diff["backup_id"]
        needs_free = True
    if "size" in prop_diff:
        new, current = prop_diff["size"], int(volume.get("size") or 0)
        if new is not None and new < current:
            raise NotSupported("Shrinking volume")
        if new is not None and new > current:
            extend = int(new)
            needs_free = needs_free or not extend_in_use
    return UpdatePlan(restore=restore, extend=extend, access=access,
                      read_only=prop_diff.get("read_only"),
                      reattach=first_attachment(volume) if needs_free else None)

"""Attaching a volume to a server and detaching it, step by step, as Heat does.

Nova attaches (``POST /servers/<id>/os-volume_attachments``), Cinder tells when
it is done; a detach is asked of Nova and is done when both Cinder and Nova
say so (Nova may still hold the attachment for a moment after Cinder marks the
volume available, and a reattach at once would fail)::

    Attaching   ask Nova ── refused with 409? ask again at the next check
                volume attaching / reserved / available: not yet
                volume in-use: done; anything else: ResourceUnknownStatus
                ("Volume attachment failed - Unknown status error due to ...")
    Detaching   ask Nova (409: again later; 404 / 400: nothing to detach)
                Cinder: the volume gone, or no longer on this server, or
                available / deleting: done; in-use / detaching / reserved: not yet;
                else ResourceUnknownStatus ("Volume detachment failed ...")
                Nova: the attachment gone (404): done

A retried create (its engine died, perhaps after Nova took the attach) looks
first: the volume already attached to the server is what the first try made
(``attached_before``). Nova keeps no mark on an attachment, but a template attaches
one volume to one server once, so the pair names it; asking again would be
refused ("volume ... already attached", a 400) and fail the create.

Each step is a small record the resource keeps between checks; ``advance``
does the next call and says whether the whole step is done. A Nova failure
other than these reads as Heat's: ``Failed to attach volume <v> to server <s> -
<novaclient's text>``, ``Could not detach attachment <a> from server <s>.``
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hotplate.resources.base import CheckAgain, CheckResult
from hotplate.resources.openstack.cinder.api import CinderApi
from hotplate.resources.openstack.cinder.errors import Error, ResourceUnknownStatus
from hotplate.resources.openstack.cloud_errors import is_conflict, is_not_found
from hotplate.resources.openstack.nova.api import NovaApi
from hotplate.resources.openstack.waiting import Look

Watch = Callable[[], Look]
"""The volume through the engine's batched waits (``waiting.look`` for it)."""

__all__ = ["Attaching", "Detaching", "Watch", "attach", "attached", "attached_as_shown",
           "attached_before", "cinder_detached", "detach", "detached_as_shown",
           "nova_detached"]


def _attachment_path(server: str, attachment: str | None = None) -> str:
    path = f"/servers/{server}/os-volume_attachments"
    return f"{path}/{attachment}" if attachment else path


def attach(nova: NovaApi, server: str, volume: str, device: str | None) -> str | None:
    """Ask Nova to attach; the attachment's id (the volume's), or None when Nova refused
    with a conflict (asked again later, as Heat does)."""
    body: dict[str, Any] = {"volumeId": volume}
    if device:
        body["device"] = device
    try:
        made = nova.post(_attachment_path(server), {"volumeAttachment": body})
    except Exception as exc:
        if is_conflict(exc):
            return None
        if getattr(exc, "status", None) is not None:
            raise Error(f"Failed to attach volume {volume} to server {server} - {exc}"
                        ) from exc
        raise
    return str(((made or {}).get("volumeAttachment") or {}).get("id") or volume)


def attached_before(nova: NovaApi, server: str, volume: str) -> str | None:
    """The attachment of ``volume`` to ``server`` that Nova holds (an earlier try's),
    as its id (the volume's), or None when there is none."""
    try:
        found = nova.get(_attachment_path(server, volume))
    except Exception as exc:
        if is_not_found(exc):
            return None
        raise
    return str(((found or {}).get("volumeAttachment") or {}).get("id") or volume)


def detach(nova: NovaApi, server: str, attachment: str) -> bool:
    """Ask Nova to detach; False when it refused with a conflict (ask again later).
    Nothing to detach (404, 400) counts as done."""
    try:
        nova.delete(_attachment_path(server, attachment))
    except Exception as exc:
        if is_conflict(exc):
            return False
        if getattr(exc, "status", None) not in (404, 400):
            raise Error(f"Could not detach attachment {attachment} from server {server}."
                        ) from exc
    return True


def nova_detached(nova: NovaApi, server: str, attachment: str) -> bool:
    """Whether Nova no longer lists the attachment on the server."""
    try:
        nova.get(_attachment_path(server, attachment))
    except Exception as exc:
        if is_not_found(exc):
            return True
        raise
    return False


def cinder_detached(cinder: CinderApi, volume: str, server: str | None = None) -> bool:
    """Heat's check_detach_volume_complete (Cinder's side)."""
    return detached_as_shown(cinder.volume_or_none(volume), server)


def detached_as_shown(found: Mapping[str, Any] | None, server: str | None = None) -> bool:
    """Heat's check_detach_volume_complete of the volume as Cinder shows it (None: gone)."""
    if found is None:
        return True
    servers = [a["server_id"] for a in found.get("attachments") or [] if "server_id" in a]
    if server and server not in servers:
        return True
    status = str(found.get("status"))
    if status in ("in-use", "detaching", "reserved"):
        return False
    if status not in ("available", "deleting"):
        raise ResourceUnknownStatus(status, result="Volume detachment failed")
    return True


def attached(cinder: CinderApi, volume: str) -> bool:
    """Heat's check_attach_volume_complete."""
    return attached_as_shown(cinder.volume(volume))


def attached_as_shown(found: Mapping[str, Any]) -> bool:
    """Heat's check_attach_volume_complete of the volume as Cinder shows it."""
    status = str(found.get("status"))
    if status in ("available", "attaching", "reserved"):
        return False
    if status != "in-use":
        raise ResourceUnknownStatus(status, result="Volume attachment failed")
    return True


@dataclass
class Attaching:
    """An attach in progress: ``called`` holds the attachment id once Nova took it."""

    server: str
    volume: str
    device: str | None
    called: str | None = None
    done: bool = False

    def advance(self, nova: NovaApi, cinder: CinderApi, watch: Watch | None = None,
                ) -> CheckResult:
        """One call further; True once the volume is attached. With ``watch``, Cinder's
        side is read through the batched waits (``CheckAgain`` until their next tick)."""
        if self.called is None:
            self.called = attach(nova, self.server, self.volume, self.device)
            return False
        if not self.done and watch is None:
            self.done = attached(cinder, self.volume)
        elif not self.done and watch is not None:
            seen = watch()
            if seen.pending:
                return CheckAgain(seen.after)
            self.done = attached_as_shown(seen.record or cinder.volume(self.volume))
            if not self.done:
                return CheckAgain(seen.after)
        return self.done


@dataclass
class Detaching:
    """A detach in progress (``attachment``: Nova's id of it, the volume's).

    Done when Cinder has let the volume go and, with ``nova_done`` False at the start,
    Nova has forgotten the attachment too (Heat waits for both). A delete starts with
    ``nova_done``: nothing after it needs Nova's record gone (the volume is Cinder's to
    delete or attach again once it is available; Nova drops the record a moment later,
    or with the server), and it costs a GET per attachment. An update, which may attach
    the volume to the same server again, waits for both.
    """

    server: str
    volume: str
    attachment: str
    called: bool = False
    cinder_done: bool = False
    nova_done: bool = False

    def advance(self, nova: NovaApi, cinder: CinderApi, watch: Watch | None = None,
                ) -> CheckResult:
        """One call further; True once both Cinder and Nova see it detached. With
        ``watch``, Cinder's side is read through the batched waits."""
        if not self.called:
            self.called = detach(nova, self.server, self.attachment)
            return False
        if not self.cinder_done and watch is None:
            self.cinder_done = cinder_detached(cinder, self.volume, self.server)
            return False
        if not self.cinder_done and watch is not None:
            seen = watch()
            if seen.pending:
                return CheckAgain(seen.after)
            self.cinder_done = detached_as_shown(seen.record, self.server)
            return False if self.cinder_done else CheckAgain(seen.after)
        if not self.nova_done:
            self.nova_done = nova_detached(nova, self.server, self.attachment)
        return self.nova_done

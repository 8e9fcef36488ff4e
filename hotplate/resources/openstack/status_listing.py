"""The words a batched wait is spoken in: what a tick asks a service, what it learns,
and what a waiting check is told.

A plugin waiting on a cloud object (a server building, a volume being deleted)
does not ask the cloud itself; it registers the object's id with the engine's
status board (``hotplate.cloud.status_board``, reached as ``cloud.board``) and
reads what the board last heard. Per service, project and tick, the board asks
the service once (a ``StatusLister``), for every object waited on there::

    ListPlan   what a tick asks: changes since a cloud timestamp, ids to answer
               exactly (present or gone), ids to look at one by one
    Listing    what it learned: records, ids known gone, the newest timestamp seen
    Sighting   what a check is told: the record (or that it is gone) as of a tick
               that started after it registered, and when the next tick is due

The listers themselves (one per service) are in ``status_lists``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

__all__ = ["MARGIN", "ListPlan", "Listing", "Sighting", "StatusLister", "changed_at",
           "cloud_time", "ids_of", "wake_key_of"]

MARGIN = timedelta(seconds=5)
"""How far before the newest change seen the next changes list starts: changes committed
out of order, and timestamps in whole seconds, are not missed."""


def cloud_time(text: Any) -> datetime | None:
    """A service's timestamp (``2026-12-05T15:52:44Z``, Cinder's naive
    ``2026-12-05T15:52:44.000000``) as an aware UTC time; None if unreadable."""
    if not text:
        return None
    try:
        parsed = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def changed_at(record: Mapping[str, Any]) -> datetime | None:
    """When the cloud last changed the object (Nova's ``updated``, else ``updated_at``;
    a Cinder volume never updated yet has only its ``created_at``)."""
    return cloud_time(record.get("updated") or record.get("updated_at")
                      or record.get("created_at"))


@dataclass(frozen=True, slots=True)
class ListPlan:
    """What one tick asks of one service for one project."""

    since: datetime | None
    """Changes since this cloud timestamp; None: the board has no watermark yet."""
    exact: frozenset[str] = frozenset()
    """Ids to answer exactly: each either listed or known gone (delete waits)."""
    probe: frozenset[str] = frozenset()
    """Ids waited on for several ticks and never listed: looked at one by one."""
    watched: frozenset[str] = frozenset()
    """Every id waited on (a service with no changes filter lists these)."""


@dataclass(frozen=True, slots=True)
class Listing:
    """What one tick learned from a service."""

    records: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Each object listed, by id, as the service's own document."""
    gone: frozenset[str] = frozenset()
    """Ids the service says are deleted, or that an exact list did not hold."""
    newest: datetime | None = None
    """The newest change time the service reported (its own clock): the next watermark
    is derived from it, never from the engine's clock."""


@dataclass(frozen=True, slots=True)
class Sighting:
    """What the board can tell one waiting check."""

    record: Mapping[str, Any] | None
    """The object as of a tick that started after the check registered; None when there
    is no such news yet (or the object is gone)."""
    gone: bool
    """The object is deleted (Nova's DELETED) or no longer exists."""
    after: float
    """Seconds until the next tick: a check not done answers ``CheckAgain(after)``."""

    @property
    def news(self) -> bool:
        return self.gone or self.record is not None


class StatusLister(Protocol):
    """How one service answers a tick: the board calls ``list`` once per tick and key."""

    service: str
    """The board's name for the service and kind (``nova-servers``)."""

    def endpoint(self, cloud: Any) -> str:
        """The service's endpoint for ``cloud`` (part of the board's key)."""

    def list(self, cloud: Any, plan: ListPlan) -> Listing:
        """One tick's calls. Raises the cloud's errors; the board treats any as no news."""


def wake_key_of(service: str, ident: str) -> str:
    """What a check waiting on ``ident`` through the board parks on (its plugin's
    ``wake_key``): the tick that has news of it wakes it by that name."""
    return f"cloud-wait:{service}:{ident}"


def ids_of(records: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """Records by their ``id``."""
    return {str(record["id"]): record for record in records if record.get("id")}

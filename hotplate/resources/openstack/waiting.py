"""A plugin's wait on one cloud object, through the engine's status board.

A check asks ``look`` instead of GETting its object: the first look registers
the object with the board (``cloud.board``, one per engine), later ones read
what the board's last tick heard, and a tick's one list call answers every
object waited on in the project. The check answers ``CheckAgain(look.after)``
while ``look.pending``, so it comes back with the next tick::

    look.pending          no news yet (nothing since the check's own action)
    look.record           the object as the cloud has it now
    neither               gone (Nova's DELETED, absent from an exact list, 404)

Where the board cannot serve (a cloud without credentials or project, a cloud
object with no board, lists failing tick after tick) the check's own ``fetch``
answers, as before. The ticket
of a wait is kept on the plugin, which stays in memory between checks, and so
is what it waits on (``waiting_on``, its ``wake_key``): where the board pushes
news, a tick that has news of the object wakes the parked check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hotplate.resources.openstack.status_listing import StatusLister, wake_key_of

__all__ = ["Look", "acted", "done_waiting", "look"]

_TICKETS = "_board_tickets"
_ACTED = "_board_acted"


@dataclass(frozen=True, slots=True)
class Look:
    record: Mapping[str, Any] | None
    pending: bool
    after: float


def _tickets(plugin: Any) -> dict[str, int]:
    found: dict[str, int] | None = getattr(plugin, _TICKETS, None)
    if found is None:
        found = {}
        setattr(plugin, _TICKETS, found)
    return found


def acted(plugin: Any, purpose: str) -> None:
    """The plugin has just asked the cloud to make or change the object it will wait on
    for ``purpose``: the wait is patient (the board lists the change when it comes,
    rather than looking at the object by itself early). A check resumed elsewhere
    (another engine, a new plugin) has no such mark, and is probed as before."""
    found: set[str] | None = getattr(plugin, _ACTED, None)
    if found is None:
        found = set()
        setattr(plugin, _ACTED, found)
    found.add(purpose)


def look(plugin: Any, purpose: str, lister: StatusLister, ident: str,
         fetch: Callable[[], Mapping[str, Any] | None], *, every: float,
         until_gone: bool = False) -> Look:
    """The object ``ident`` for the wait ``purpose`` (``create``, ``delete``...), through
    the board; ``fetch`` (the object, None when gone) where the board cannot serve, with
    ``every`` seconds between looks then."""
    cloud = plugin.cloud
    board = getattr(cloud, "board", None)
    tickets = _tickets(plugin)
    key = f"{purpose}:{ident}"
    if board is not None and key not in tickets:
        ticket = board.watch(cloud, lister, ident, until_gone=until_gone,
                             patient=purpose in getattr(plugin, _ACTED, ()))
        if ticket is not None:
            tickets[key] = ticket
    seen = None
    if board is not None and key in tickets:
        seen = board.look(cloud, lister, ident, tickets[key])
    if seen is None:
        plugin.waiting_on = None
        return Look(fetch(), False, every)
    plugin.waiting_on = wake_key_of(lister.service, ident)
    if seen.gone:
        return Look(None, False, seen.after)
    return Look(seen.record, seen.record is None, seen.after)


def done_waiting(plugin: Any, purpose: str, lister: StatusLister, ident: str) -> None:
    """The wait ``purpose`` is over: the board stops asking about ``ident`` for it."""
    if _tickets(plugin).pop(f"{purpose}:{ident}", None) is None:
        return
    if plugin.waiting_on == wake_key_of(lister.service, ident):
        plugin.waiting_on = None
    board = getattr(plugin.cloud, "board", None)
    if board is not None:
        board.forget(plugin.cloud, lister, ident)

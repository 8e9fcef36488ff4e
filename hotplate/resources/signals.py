"""What a signal handler may answer besides a result, and the ports a scaling signal uses.

``handle_signal(details)`` returns a result for the SIGNAL event's text
(``Signal: <result>``), or raises. Two more answers, both Heat's:

- raise ``NoActionRequired``: the signal is ignored on purpose (a group in
  cooldown, or already scaling). Heat writes no event for it, only a log
  line, and the caller of the signal API sees nothing: it had its answer
  before the handler ran.
- return a ``SignalWork``: the handler started something that finishes
  later (a group resizing its child stack). The signal call returns at
  once, as Heat's does; the engine polls ``check`` in the background, then
  calls ``finish`` (with the error, if it failed) and writes the SIGNAL
  event only after a success, when Heat's handler would have returned.

A scaling policy reaches its group, and the group its own metadata, through
the engine's context (``RowMetadata``, ``Peers``): the plugin still sees
no stack and no database.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, cast

from hotplate.resources.base import Resource

__all__ = ["NoActionRequired", "Peers", "RowMetadata", "SignalWork", "peers", "row_metadata",
           "signal_id", "signal_wake_key"]

SIGNAL_ID_KEYS: tuple[str, ...] = ("id",)
"""Where a signal's details carry its id, unless the plugin names its own keys
(``signal_id_keys``): the engine applies a signal of a given id once."""


def signal_id(plugin: type[Resource], details: Any) -> str | None:
    """The sender's id of a signal (its first ``signal_id_keys`` present), else None."""
    if not isinstance(details, Mapping):
        return None
    for key in getattr(plugin, "signal_id_keys", SIGNAL_ID_KEYS):
        value = details.get(key)
        if value is not None and not isinstance(value, Mapping | list):
            return str(value)
    return None


def signal_wake_key(stack_id: str) -> str:
    """What a plugin waiting for signals to its stack parks on (its ``wake_key``):
    the engine re-checks it as soon as one is applied."""
    return f"signal:{stack_id}"


class NoActionRequired(Exception):
    """A signal ignored on purpose; Heat's text."""

    def __init__(self, resource: str = "Unknown", reason: str = "") -> None:
        super().__init__(f"The resource {resource} could not perform scaling action: {reason}")


@dataclass(frozen=True)
class SignalWork:
    """The rest of a signal's work, which the engine finishes in the background."""

    check: Callable[[], bool]
    """Polled until True; raising ends the work as failed."""
    finish: Callable[[BaseException | None], None]
    """Called once at the end, with the error if ``check`` raised or timed out."""


class RowMetadata(Protocol):
    """The resource's own metadata, as the engine keeps it on its row."""

    def metadata_get(self) -> dict[str, Any]: ...

    def metadata_update(self, change: Callable[[dict[str, Any], str], Mapping[str, Any]],
                        *, force: bool = False) -> dict[str, Any] | None: ...

    def clear_stored_attributes(self) -> None: ...


class Peers(Protocol):
    def resource_by_reference(self, reference: str) -> Resource | None: ...


def row_metadata(resource: Resource) -> RowMetadata:
    """The resource's metadata port; the engine's context provides it."""
    if not callable(getattr(resource.ctx, "metadata_update", None)):
        raise RuntimeError("this engine context keeps no resource metadata")
    return cast(RowMetadata, resource.ctx)


def peers(resource: Resource) -> Peers:
    """The other resources of the resource's stack, by reference."""
    if not callable(getattr(resource.ctx, "resource_by_reference", None)):
        raise RuntimeError("this engine context cannot look up other resources")
    return cast(Peers, resource.ctx)

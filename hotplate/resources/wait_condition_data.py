"""Wait condition signals, as values: how one merges into a handle's metadata, and
what a wait condition decides from that metadata (Heat's rules, no I/O).

A handle's metadata maps each signal's id to what it said::

    {"1": {"data": "ok", "reason": "Signal 1 received", "status": "SUCCESS"},
     "web-0": {"data": null, "reason": "booted", "status": "FAILURE"}}

HOT handles use the keys ``data, reason, status, id``; CFN handles ``Data,
Reason, Status, UniqueId``. A HOT signal may leave any key out: the status
defaults to SUCCESS, the id to the signal's number (one more than the
signals already merged, counted inside the compare-and-swap, so two
signals without ids never take one number), the reason to "Signal <n>
received". A CFN signal must give all four. A signal whose id is merged
already overwrites it, as Heat's merge does; the engine never applies one id
twice, so that only happens when a signal's number equals an id given
earlier.

A wait condition with ``count`` waits while fewer than ``count`` signals
are merged; any FAILURE fails it (the failure reasons joined by ``;``), and
its timeout fails it with "<n> of <count> received".
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

__all__ = [
    "CFN_KEYS",
    "HOT_KEYS",
    "FAILURE",
    "SUCCESS",
    "InvalidSignal",
    "SignalKeys",
    "Waiting",
    "data_attribute",
    "failure_text",
    "merge_signal",
    "normalise_hot_signal",
    "reasons",
    "signal_reason",
    "timeout_text",
    "wait_state",
]

SUCCESS, FAILURE = "SUCCESS", "FAILURE"
STATUSES = (FAILURE, SUCCESS)


@dataclass(frozen=True, slots=True)
class SignalKeys:
    """The four keys of a handle's signals (Heat's METADATA_KEYS)."""

    data: str
    reason: str
    status: str
    unique_id: str

    @property
    def all(self) -> frozenset[str]:
        return frozenset((self.data, self.reason, self.status, self.unique_id))


HOT_KEYS = SignalKeys("data", "reason", "status", "id")
CFN_KEYS = SignalKeys("Data", "Reason", "Status", "UniqueId")


class InvalidSignal(ValueError):
    """A signal not in the handle's format; Heat's text."""

    def __init__(self) -> None:
        super().__init__("Metadata format invalid")


def normalise_hot_signal(details: Any, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """A HOT handle's signal with Heat's defaults, numbered after ``metadata``'s."""
    number = len(metadata) + 1
    signal = dict(details) if isinstance(details, Mapping) and details else {}
    signal.setdefault(HOT_KEYS.reason, f"Signal {number} received")
    signal.setdefault(HOT_KEYS.data, None)
    signal.setdefault(HOT_KEYS.unique_id, number)
    signal.setdefault(HOT_KEYS.status, SUCCESS)
    return signal


def merge_signal(keys: SignalKeys, signal: Any, metadata: Mapping[str, Any]
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
    """``metadata`` with ``signal`` merged under its id, and the signal as merged.

    Raises:
        InvalidSignal: not exactly the four keys, or a status other than
            SUCCESS / FAILURE.
    """
    if (not isinstance(signal, Mapping) or frozenset(signal) != keys.all
            or signal[keys.status] not in STATUSES):
        raise InvalidSignal()
    entry = {key: value for key, value in signal.items() if key != keys.unique_id}
    merged = dict(metadata)
    merged[str(signal[keys.unique_id])] = entry
    return merged, dict(signal)


def signal_reason(keys: SignalKeys, signal: Mapping[str, Any]) -> str:
    """The SIGNAL event's text (after "Signal: "), as Heat writes it."""
    return f"status:{signal[keys.status]} reason:{signal[keys.reason]}"


def _entries(metadata: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [entry for entry in metadata.values() if isinstance(entry, Mapping)]


def reasons(keys: SignalKeys, metadata: Mapping[str, Any], status: str) -> list[str]:
    """The reasons of the merged signals of ``status``, in the order merged."""
    return [str(entry.get(keys.reason)) for entry in _entries(metadata)
            if entry.get(keys.status) == status]


class Waiting(StrEnum):
    WAITING = "waiting"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    TIMED_OUT = "timed_out"


def wait_state(keys: SignalKeys, metadata: Mapping[str, Any], count: int,
               started_at: datetime, timeout_secs: float, now: datetime) -> Waiting:
    """What a wait condition's check decides, in Heat's order: timeout, then any
    failure, then enough successes."""
    if now - started_at > timedelta(seconds=timeout_secs):
        return Waiting.TIMED_OUT
    statuses = [entry.get(keys.status) for entry in _entries(metadata)]
    if any(status != SUCCESS for status in statuses):
        return Waiting.FAILED
    return Waiting.SUCCEEDED if len(statuses) >= count else Waiting.WAITING


def timeout_text(keys: SignalKeys, metadata: Mapping[str, Any], count: int) -> str:
    """Heat's WaitConditionTimeout text: ``1 of 2 received - <reasons>``."""
    received = reasons(keys, metadata, SUCCESS)
    text = f"{len(received)} of {count} received"
    return f"{text} - {';'.join(received)}" if received else text


def failure_text(keys: SignalKeys, metadata: Mapping[str, Any]) -> str:
    """Heat's WaitConditionFailure text: the failure reasons joined by ``;``."""
    return ";".join(reasons(keys, metadata, FAILURE))


def data_attribute(keys: SignalKeys, metadata: Mapping[str, Any]) -> str:
    """The ``data`` attribute: ``{id: data}`` of every signal, as JSON text."""
    return json.dumps({key: entry.get(keys.data) for key, entry in metadata.items()
                       if isinstance(entry, Mapping)})

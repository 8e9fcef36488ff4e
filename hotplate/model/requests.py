"""Engine-topic writes kept by request id, so that one asked twice is done once.

A request's record moves through::

    (none) --claim--> RUNNING --answer--> ANSWERED   (its result, or the error it
                         |                            raised for its caller)
                         +--release--> (none)         (it failed unexpectedly: it may
                         |                            be asked again)
                         +--take over--> RUNNING      (its engine died before it answered:
                                                       another engine runs it again)

An ANSWERED record is what every later asking of the same request id gets,
until the retention sweep forgets it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from hotplate.model.ids import EngineId


class RequestState(StrEnum):
    RUNNING = "RUNNING"     # an engine is running it (engine_id names which)
    ANSWERED = "ANSWERED"   # done; ``answer`` is what its caller was (or would have been) told


@dataclass(frozen=True, slots=True)
class StoredRequest:
    """One engine-topic write, as the request ledger keeps it."""

    request_id: str
    method: str
    fingerprint: str
    """SHA-256 of the method, project and arguments: the same request id with another
    fingerprint is a different request reusing an id, refused."""
    engine_id: EngineId
    state: RequestState
    answer: Any
    """``{"result": value}`` or ``{"failure": envelope}`` (rpc/codec.py), once ANSWERED."""
    created_at: datetime
    updated_at: datetime | None = None

"""The request ledger, a role of the Store (``hotplate.ports.Store``; db/requests.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from hotplate.model.ids import EngineId
from hotplate.model.requests import StoredRequest


class RequestStorage(Protocol):
    """Engine-topic writes by request id: claimed by one engine, answered once."""

    def claim_request(self, request_id: str, method: str, fingerprint: str,
                      engine_id: EngineId) -> StoredRequest | None:
        """None if ``engine_id`` now runs the request, else the request as stored."""
        ...

    def get_request(self, request_id: str) -> StoredRequest | None: ...

    def answer_request(self, request_id: str, engine_id: EngineId, answer: Any) -> bool: ...

    def release_request(self, request_id: str, engine_id: EngineId) -> bool: ...

    def take_over_request(self, request_id: str, dead: EngineId, live: EngineId) -> bool: ...

    def forget_requests(self, created_before: datetime, limit: int = 1000) -> int: ...

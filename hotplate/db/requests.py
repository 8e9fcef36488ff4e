"""The request ledger: engine-topic writes kept by request id, answered once.

``claim_request`` inserts a RUNNING row; the primary key lets exactly one
engine win a request id, and the loser reads what the winner stored. The
winner writes its answer (``answer_request``) or, when the request failed in
a way that leaves it safe to ask again, removes its claim
(``release_request``). Both are compare-and-swaps on (engine_id, RUNNING), so
an engine whose claim was taken over (``take_over_request``: it was taken
for dead) can no longer answer or release it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from hotplate.db import schema as s
from hotplate.db.base import StoreBase
from hotplate.model.ids import EngineId
from hotplate.model.requests import RequestState, StoredRequest

_req = s.engine_request


def _to_request(row: Any) -> StoredRequest:
    return StoredRequest(request_id=str(row.request_id), method=str(row.method),
                         fingerprint=str(row.fingerprint), engine_id=EngineId(row.engine_id),
                         state=RequestState(row.state), answer=row.answer,
                         created_at=row.created_at, updated_at=row.updated_at)


class RequestStore(StoreBase):
    def claim_request(self, request_id: str, method: str, fingerprint: str,
                      engine_id: EngineId) -> StoredRequest | None:
        """Claim ``request_id`` for ``engine_id``: None if this claim won, else the
        request as stored by whoever asked first."""
        row = {"request_id": request_id, "method": method, "fingerprint": fingerprint,
               "engine_id": engine_id, "state": RequestState.RUNNING, "answer": None,
               "created_at": self._now(), "updated_at": None}
        for _ in range(3):  # the stored one may be forgotten between the two statements
            try:
                self._tx.write(lambda conn: conn.execute(insert(_req).values(row)))
                return None
            except IntegrityError:
                found = self.get_request(request_id)
                if found is not None:
                    return found
        raise RuntimeError(f"request {request_id}: neither claimed nor found")

    def get_request(self, request_id: str) -> StoredRequest | None:
        query = select(_req).where(_req.c.request_id == request_id)
        found = self._tx.read(lambda conn: conn.execute(query).first(), single_statement=True)
        return _to_request(found) if found is not None else None

    def answer_request(self, request_id: str, engine_id: EngineId, answer: Any) -> bool:
        """Store the answer of a request ``engine_id`` runs; False if its claim is gone."""
        statement = update(_req).where(
            _req.c.request_id == request_id, _req.c.engine_id == engine_id,
            _req.c.state == RequestState.RUNNING,
        ).values(state=RequestState.ANSWERED, answer=answer, updated_at=self._now())
        return self._changed(statement)

    def release_request(self, request_id: str, engine_id: EngineId) -> bool:
        """Forget ``engine_id``'s claim, so that the request may be asked again."""
        statement = delete(_req).where(
            _req.c.request_id == request_id, _req.c.engine_id == engine_id,
            _req.c.state == RequestState.RUNNING)
        return self._changed(statement)

    def take_over_request(self, request_id: str, dead: EngineId, live: EngineId) -> bool:
        """Move a dead engine's claim to ``live``; False if someone else moved it first,
        or it was answered meanwhile."""
        statement = update(_req).where(
            _req.c.request_id == request_id, _req.c.engine_id == dead,
            _req.c.state == RequestState.RUNNING,
        ).values(engine_id=live, updated_at=self._now())
        return self._changed(statement)

    def forget_requests(self, created_before: datetime, limit: int = 1000) -> int:
        """Forget up to ``limit`` requests made before ``created_before`` (the retention)."""
        def run(conn: Connection) -> int:
            ids = conn.execute(select(_req.c.request_id)
                               .where(_req.c.created_at < created_before)
                               .limit(limit)).scalars().all()
            if not ids:
                return 0
            return int(conn.execute(delete(_req).where(_req.c.request_id.in_(ids))).rowcount)

        return self._tx.write(run)

    def _changed(self, statement: Any) -> bool:
        return bool(self._tx.write(lambda conn: conn.execute(statement).rowcount) == 1)

"""The request ledger: engine-topic writes by request id (db/requests.py).

One row per request id, inserted when an engine starts the request (the
insert is the claim: the primary key lets one engine win), updated with the
answer when it is done, and forgotten by the sweep after the retention time.
"""

from __future__ import annotations

from sqlalchemy import Column, Index, String, Table

from hotplate.db.schema_common import MYSQL_TABLE_ARGS, metadata, timestamps
from hotplate.db.types import JsonText

engine_request = Table(
    "engine_request",
    metadata,
    Column("request_id", String(255), primary_key=True),
    Column("method", String(64), nullable=False),
    Column("fingerprint", String(64), nullable=False),
    Column("engine_id", String(36), nullable=False),
    Column("state", String(16), nullable=False),
    Column("answer", JsonText()),
    *timestamps(),
    Index("ix_engine_request_created_at", "created_at"),
    **MYSQL_TABLE_ARGS,
)

"""What every table module shares: the one ``MetaData`` and MariaDB's table options."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Column, MetaData

from hotplate.db.types import UtcDateTime

metadata = MetaData()

MYSQL_TABLE_ARGS: dict[str, Any] = {
    "mysql_engine": "InnoDB",
    "mysql_charset": "utf8mb4",
    # Binary collation: names compare case-sensitively, as on PostgreSQL and SQLite.
    "mysql_collate": "utf8mb4_bin",
}


def timestamps() -> list[Column[Any]]:
    return [
        Column("created_at", UtcDateTime(), nullable=False),
        Column("updated_at", UtcDateTime()),
    ]

"""Column types that behave the same on SQLite, PostgreSQL and MariaDB.

- ``JsonText``: JSON stored as text (LONGTEXT on MySQL/MariaDB, whose TEXT
  stops at 64 KiB). Text rather than native JSON types so the three backends
  store byte-identical documents and no backend reorders keys.
- ``UtcDateTime``: a naive DATETIME holding UTC (microseconds on MariaDB,
  whose DATETIME otherwise drops them). Values go in as aware datetimes and
  come back aware, whatever the driver gives (SQLite's is always naive).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, Dialect, Text
from sqlalchemy.dialects import mysql
from sqlalchemy.types import TypeDecorator, TypeEngine


class JsonText(TypeDecorator[Any]):
    """Any JSON-serialisable value, stored as its text; None stays SQL NULL."""

    impl = Text
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name in ("mysql", "mariadb"):
            return mysql.LONGTEXT()
        return Text()

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        if value is None:
            return None
        return json.dumps(value, separators=(",", ":"), sort_keys=False)

    def process_result_value(self, value: Any, dialect: Dialect) -> Any:
        if value is None:
            return None
        return json.loads(value)


class UtcDateTime(TypeDecorator[datetime]):
    """An aware datetime, stored as naive UTC."""

    impl = DateTime
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name in ("mysql", "mariadb"):
            return mysql.DATETIME(fsp=6)
        return DateTime()

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: the store takes aware UTC datetimes")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if isinstance(value, str):  # a value written by hand into SQLite
            value = datetime.fromisoformat(value)
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)  # type: ignore[no-any-return]
        return value.astimezone(UTC)  # type: ignore[no-any-return]

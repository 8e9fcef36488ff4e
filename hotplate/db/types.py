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
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import DateTime, Dialect, Text
from sqlalchemy.dialects import mysql
from sqlalchemy.types import TypeDecorator, TypeEngine

_LONG_NUMBER = re.compile(r"\d{19}")


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
        return _read_json(value)

    def result_processor(self, dialect: Dialect, coltype: object) -> Callable[[Any], Any] | None:
        """``_read_json`` itself where the driver gives text as it is (every backend
        here): no wrapper call around it for each value a listing reads."""
        impl = self.load_dialect_impl(dialect)
        if impl.result_processor(dialect, coltype) is not None:
            return super().result_processor(dialect, coltype)
        return _read_json


def _read_json(value: Any) -> Any:
    """Read by orjson (several times faster), except what it would read otherwise
    than the standard library: a number of 19 digits or more (orjson makes a
    float of an integer outside 64 bits) and what it refuses (NaN, infinities)."""
    if value is None:
        return None
    if _LONG_NUMBER.search(value) is None:
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            pass
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

    def bind_processor(self, dialect: Dialect) -> Callable[[Any], Any] | None:
        """On SQLite, the aware datetime straight to the text SQLAlchemy's DATETIME
        stores (``YYYY-MM-DD HH:MM:SS.ffffff``): one C call instead of a conversion
        and a format of seven fields, on every timestamp the hot path writes."""
        if dialect.name != "sqlite":
            return super().bind_processor(dialect)

        def process(value: datetime | None) -> str | None:
            if value is None:
                return None
            if value.tzinfo is not UTC:
                if value.tzinfo is None:
                    raise ValueError(f"naive datetime {value!r}: the store takes aware UTC "
                                     "datetimes")
                value = value.astimezone(UTC)
            return value.replace(tzinfo=None).isoformat(" ", "microseconds")

        return process

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        return _utc(value)

    def result_processor(self, dialect: Dialect, coltype: object) -> Callable[[Any], Any] | None:
        """On SQLite, the stored text read by ``_utc`` alone (``fromisoformat``, one C
        call) instead of SQLAlchemy's parse of it and then ours: a listing of 1,000
        resources reads 2,000 timestamps."""
        if dialect.name != "sqlite":
            return super().result_processor(dialect, coltype)
        return _utc


def _utc(value: Any) -> datetime | None:
    """An aware UTC datetime from what a driver gave: a naive one (UTC), an aware
    one, or SQLite's text (or a value written into it by hand)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)  # type: ignore[no-any-return]
    return value.astimezone(UTC)  # type: ignore[no-any-return]

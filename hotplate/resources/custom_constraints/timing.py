"""Date, time and text checks of the ``iso_8601``, ``expiration``, ``timezone``,
``cron_expression`` and ``json_string`` custom constraints.

Each returns None for a valid value, else the reason Heat gives (``""`` when
Heat gives none). Dates are read as Heat reads them (the ``iso8601``
library's grammar: ``2020``, ``2020-01``, ``20200101T000000Z``,
``2020-01-01 12:00:00.5+02:00`` ...; no zone means UTC). Cron expressions
follow croniter's grammar for what templates use: 5, 6 (seconds) or 7 (year)
fields of ``*``, ``?``, numbers, names of months and weekdays, ranges, lists
and steps, and the ``@hourly``-style aliases.
"""

from __future__ import annotations

import json
import re
import zoneinfo
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

__all__ = ["check_cron", "check_expiration", "check_iso8601", "check_json_string",
           "check_timezone", "parse_iso8601"]

_ISO8601 = re.compile(
    r"""
    (?P<year>[0-9]{4})
    (
        (
            (-(?P<monthdash>[0-9]{1,2}))
            | (?P<month>[0-9]{2})(?!$)
        )
        (
            (
                (-(?P<daydash>[0-9]{1,2}))
                | (?P<day>[0-9]{2})
            )
            (
                (?P<separator>[ T])
                (?P<hour>[0-9]{2})
                (:?(?P<minute>[0-9]{2}))?
                (:?(?P<second>[0-9]{1,2})([.,](?P<second_fraction>[0-9]+))?)?
                (?P<timezone>Z|((?P<tz_sign>[-+])(?P<tz_hour>[0-9]{2}):?(?P<tz_minute>[0-9]{2})?))?
            )?
        )?
    )?
    $
    """,
    re.VERBOSE,
)


def parse_iso8601(text: str) -> datetime:
    """An aware datetime (UTC when no zone is given), as Heat's ``parse_isotime`` reads.

    Raises:
        ValueError: ``Unable to parse date string '...'`` or what the date lacks.
    """
    found = _ISO8601.match(text)
    if not found:
        raise ValueError(f"Unable to parse date string {text!r}")
    parts = {k: v for k, v in found.groupdict().items() if v is not None}
    zone: timezone = UTC
    if parts.get("timezone", "Z") != "Z":
        hours, minutes = int(parts["tz_hour"]), int(parts.get("tz_minute", 0))
        offset = timedelta(hours=hours, minutes=minutes)
        zone = timezone(-offset if parts["tz_sign"] == "-" else offset)
    fraction = Decimal(f"0.{parts.get('second_fraction', 0)}") * Decimal(1000000)
    return datetime(
        int(parts["year"]), int(parts.get("month", parts.get("monthdash", 1))),
        int(parts.get("day", parts.get("daydash", 1))), int(parts.get("hour", 0)),
        int(parts.get("minute", 0)), int(parts.get("second", 0)), int(fraction), tzinfo=zone)


def check_iso8601(value: Any) -> str | None:
    try:
        parse_iso8601(value)
    except (ValueError, TypeError, OverflowError):
        return ""
    return None


def check_expiration(value: Any, now: datetime) -> str | None:
    """A date still to come; ``now`` is the engine's clock (aware, or naive UTC)."""
    if not value:
        return None
    try:
        expires = parse_iso8601(value.strip())
    except (ValueError, TypeError, AttributeError, OverflowError) as exc:
        return f"Expiration {value} is invalid: {exc}"
    current = now if now.tzinfo is not None else now.replace(tzinfo=UTC)
    if expires > current:
        return None
    return f"Expiration {value} is invalid: Expiration time is out of date."


def check_timezone(value: Any) -> str | None:
    if not value:
        return None
    try:
        zoneinfo.ZoneInfo(value)
    except Exception as exc:  # ZoneInfo raises several kinds for a bad key
        return f"Invalid timezone: {exc}"
    return None


def check_json_string(value: Any) -> str | None:
    if not value:
        return None
    try:
        json.loads(value)
    except json.JSONDecodeError as exc:
        return f"JSON string {value} is invalid: {exc}"
    return None


# -- cron -----------------------------------------------------------------------------
_CRON_ALIASES = {"@midnight", "@hourly", "@daily", "@weekly", "@monthly", "@yearly",
                 "@annually"}
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_FIELD_RANGES = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 7), (0, 59), (1970, 2099))
"""minute, hour, day of month, month, day of week, then seconds and year (croniter's
order when six or seven fields are given: the sixth is seconds)."""
_DAY_OF_MONTH, _MONTH, _DAY_OF_WEEK = 2, 3, 4


class _CronError(ValueError):
    pass


def _cron_value(token: str, index: int, expression: str) -> int:
    names = _MONTHS if index == _MONTH else _WEEKDAYS if index == _DAY_OF_WEEK else ()
    if token.lower() in names:
        return names.index(token.lower()) + (1 if index == _MONTH else 0)
    if not token.isdigit():
        raise _CronError(f"[{expression}] is not acceptable")
    low, high = _FIELD_RANGES[index]
    number = int(token)
    if not low <= number <= high:
        raise _CronError(f"[{expression}] is not acceptable, out of range")
    return number


def _cron_field(field: str, index: int, expression: str) -> None:
    for item in field.split(","):
        base, _, step = item.partition("/")
        if step and (not step.isdigit() or int(step) == 0):
            raise _CronError(f"[{expression}] is not acceptable")
        if base in ("*", "?") or (index == _DAY_OF_MONTH and base in ("L", "l")):
            continue
        first, dash, last = base.partition("-")
        if index == _DAY_OF_WEEK and "#" in first and not dash:
            day, _, nth = first.partition("#")
            _cron_value(day, index, expression)
            if not nth.isdigit() or not 1 <= int(nth) <= 5:
                raise _CronError(f"[{expression}] is not acceptable")
            continue
        _cron_value(first, index, expression)
        if dash:
            _cron_value(last, index, expression)


def check_cron(value: Any) -> str | None:
    if not value:
        return None
    try:
        if not isinstance(value, str):
            raise _CronError(f"[{value}] is not acceptable")
        text = value.strip()
        if text.lower() in _CRON_ALIASES:
            return None
        fields = text.split()
        if len(fields) not in (5, 6, 7):
            raise _CronError("Exactly 5, 6 or 7 columns has to be specified for iterator "
                             "expression.")
        for index, field in enumerate(fields):
            _cron_field(field, index, text)
    except _CronError as exc:
        return f"Invalid CRON expression: {exc}"
    return None

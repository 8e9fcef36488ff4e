"""Parameter value coercion, with the rules and messages of Heat and oslo.utils.

Heat converts numbers with ``int`` then ``float`` and booleans with
oslo's strict ``bool_from_string``; the messages users see come from those
calls, so they are reproduced here rather than reworded.
"""

from __future__ import annotations

import numbers
from typing import Any

TRUE_STRINGS = ("1", "t", "true", "on", "y", "yes")
FALSE_STRINGS = ("0", "f", "false", "off", "n", "no")

NUMBER = "number"
STRING = "string"
BOOLEAN = "boolean"
LIST = "comma_delimited_list"
JSON = "json"
TYPES = (STRING, NUMBER, JSON, LIST, BOOLEAN)


def str_to_num(value: Any) -> Any:
    """A number from a number or its text: int if it reads as one, else float.

    Raises ValueError (or TypeError) with Python's own message otherwise.
    """
    if isinstance(value, numbers.Number):
        return value
    try:
        return int(value)
    except ValueError:
        return float(value)


def bool_from_string(value: Any) -> bool:
    """oslo.utils' strict reading: 'true', 'yes', 'on', '1', ... (any case)."""
    if isinstance(value, bool):
        return value
    text = value if isinstance(value, str) else str(value)
    lowered = text.strip().lower()
    if lowered in TRUE_STRINGS:
        return True
    if lowered in FALSE_STRINGS:
        return False
    acceptable = ", ".join(f"'{s}'" for s in sorted(TRUE_STRINGS + FALSE_STRINGS))
    raise ValueError(f"Unrecognized value '{text}', acceptable values are: {acceptable}")


def to_schema_type(value: Any, param_type: str) -> Any:
    """``value`` in the parameter type's own form (numbers, text, booleans)."""
    try:
        if param_type == NUMBER:
            return str_to_num(value)
        if param_type == STRING:
            return str(value)
        if param_type == BOOLEAN:
            return bool_from_string(str(value))
    except ValueError:
        raise ValueError(
            f'Value "{value}" is invalid for data type "{param_type}".'
        ) from None
    return value

"""Turn whatever came in (YAML, JSON, a caller's mapping) into plain, bounded JSON data.

Everything downstream assumes dicts with string keys, lists, and JSON
scalars, and walks them recursively. This one pass makes that true:

* a private copy, so the caller can't change a parsed template afterwards;
* JSON-safe: keys become text the way ``json.dumps`` writes them, tuples
  become lists, dates become ISO text, and anything else (bytes, sets, NaN)
  is refused with its path;
* bounded: YAML aliases share one object, so a few lines can stand for a
  billion nodes ("billion laughs"). Copying counts every node it writes and
  stops past a budget; nesting deeper than ``MAX_DEPTH`` (which also catches
  self-referencing aliases) is refused before any recursive code sees it.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.template.paths import Path, index_path, key_path

MAX_DEPTH = 100
"""Deepest nesting of mappings and lists accepted (real templates stay near 20)."""

MAX_NODES = 2_000_000
"""Most values a template may expand to, whatever its source."""

_SCALARS = (str, int, bool, type(None))
_PLAIN = frozenset(_SCALARS)  # exact types, so subclasses still go through _child


def text_budget(source_length: int) -> int:
    """The node budget for a text: without aliases a node costs at least one character.

    Sixteen times the length leaves room for honest anchor reuse while an
    alias bomb is cut off after a few thousand nodes.
    """
    return min(MAX_NODES, 16 * source_length + 10_000)


def normalize(data: Mapping[Any, Any], *, budget: int = MAX_NODES) -> dict[str, Any]:
    """A JSON-safe private copy of ``data`` (see the module docstring).

    Raises:
        StackValidationFailed: a value is not JSON-compatible, the document is
            nested too deeply, or it expands past ``budget`` values.
    """
    root: dict[str, Any] = {}
    counter = _Counter(budget)
    # Work list of (source container, destination container, path, depth).
    stack: list[tuple[Any, Any, Path, int]] = [(data, root, (), 1)]
    while stack:
        src, dst, path, depth = stack.pop()
        counter.add(len(src))
        # Paths are built only for containers: scalars are most values and
        # take the first branch.
        if isinstance(dst, dict):
            for key, value in src.items():
                name = key if type(key) is str else _key_text(key, path)
                if type(value) in _PLAIN:
                    dst[name] = value
                else:
                    dst[name] = _child(value, key_path(path, name), depth, stack)
        else:
            for i, value in enumerate(src):
                if type(value) in _PLAIN:
                    dst.append(value)
                else:
                    dst.append(_child(value, index_path(path, i), depth, stack))
    return root


class _Counter:
    __slots__ = ("budget", "used")

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0

    def add(self, count: int) -> None:
        self.used += count
        if self.used > self.budget:
            raise StackValidationFailed(
                f"The template expands to more than {self.budget} values "
                "(YAML aliases are expanded when counting)"
            )


def _child(value: Any, path: Path, depth: int, stack: list[tuple[Any, Any, Path, int]]) -> Any:
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise StackValidationFailed(f"{value} is not a valid JSON number", path)
        return value
    if isinstance(value, Mapping):
        dst: Any = {}
    elif isinstance(value, list | tuple):
        dst = []
    elif isinstance(value, datetime.date):
        return value.isoformat()
    else:
        raise StackValidationFailed(
            f"Values of type {type(value).__name__} are not allowed in a template", path
        )
    if depth >= MAX_DEPTH:
        raise StackValidationFailed(
            f"The template is nested more than {MAX_DEPTH} levels deep", path
        )
    stack.append((value, dst, path, depth + 1))
    return dst


def _key_text(key: Any, path: Path) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return {None: "null", True: "true", False: "false"}[key]
    if isinstance(key, int | float) and not (isinstance(key, float) and not math.isfinite(key)):
        return repr(key)
    if isinstance(key, datetime.date):
        return key.isoformat()
    raise StackValidationFailed(
        f"Keys of type {type(key).__name__} are not allowed in a template", path
    )


def copy_data(value: Any) -> Any:
    """A deep copy of normalized data (dicts, lists, scalars) without copy.deepcopy's cost."""
    if isinstance(value, dict):
        return {k: copy_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_data(v) for v in value]
    return value

"""Where a node of a template's text sits: the line and column an error path points at.

Errors name a path into the parsed data (``StackValidationFailed.path``,
e.g. ``("resources", "web", "properties", "image")``). When the template
arrived as text, the same path can be followed through the YAML node tree
(JSON text is YAML too), whose nodes remember where they start. Composing
builds nodes without constructing values or expanding aliases, so this
costs one pass over the text and is only done when there is an error to
word.

Path steps are mapping keys and list indices. Heat folds indices into the
step before them (``"networks[0]"``); property paths carry them as ints.
Both are understood. A key is matched literally first, so a key that merely
looks like ``name[0]`` still resolves to itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

_Loader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_FOLDED = re.compile(r"^(.*?)((?:\[\d+\])+)$")
_INDEX = re.compile(r"\[(\d+)\]")


@dataclass(frozen=True, slots=True)
class Position:
    """Where the deepest node found on a path starts (1-based, as editors count).

    ``matched`` counts the path steps found in the text; ``complete`` is
    True when every step was. A shorter match names the nearest enclosing
    node (a value built by a function has no nodes of its own).
    """

    line: int
    column: int
    matched: int
    complete: bool


def locate(text: str, path: Sequence[str | int]) -> Position | None:
    """The position of the node ``path`` names in ``text``.

    Returns None when the path is empty, the text is not one YAML
    document, or not even the first step is in it.
    """
    if not path:
        return None
    try:
        node: Any = yaml.compose(text, Loader=_Loader)
    except (yaml.YAMLError, RecursionError, ValueError):
        return None
    mark = None
    matched = 0
    for step in path:
        found = _step(node, step)
        if found is None:
            break
        mark, node = found
        matched += 1
    if mark is None:
        return None
    return Position(mark.line + 1, mark.column + 1, matched, matched == len(path))


def _step(node: Any, step: str | int) -> tuple[Any, Any] | None:
    """(mark of where the step is written, node it leads to), or None."""
    if isinstance(step, int) or (isinstance(step, str) and step.isdigit()):
        found = _item(node, int(step))
        if found is not None:
            return found
    if isinstance(step, int):
        return None
    found = _entry(node, step)
    if found is not None:
        return found
    folded = _FOLDED.match(step)
    if folded is None:
        return None
    key, indices = folded.groups()
    if key:
        found = _entry(node, key)
        if found is None:
            return None
        node = found[1]
    for index in _INDEX.findall(indices):
        found = _item(node, int(index))
        if found is None:
            return None
        node = found[1]
    return found


def _entry(node: Any, key: str) -> tuple[Any, Any] | None:
    """The mapping entry ``key``: its key's mark and its value (the last one wins, as
    when YAML is loaded)."""
    if not isinstance(node, yaml.MappingNode):
        return None
    for key_node, value_node in reversed(node.value):
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return key_node.start_mark, value_node
    return None


def _item(node: Any, index: int) -> tuple[Any, Any] | None:
    if not isinstance(node, yaml.SequenceNode) or not 0 <= index < len(node.value):
        return None
    item = node.value[index]
    return item.start_mark, item

"""Functions over maps, lists and text: map_merge, map_replace, list_concat(_unique),
filter, contains, str_split, digest. Messages are Heat's (``heat/engine/hot/functions.py``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from hotplate.template.functions.base import Node, Static
from hotplate.template.functions.whole import WholeArgs

DIGEST_ALGORITHMS = frozenset(hashlib.algorithms_available)
"""Heat's list: whatever hashlib offers here (it varies with OpenSSL)."""
_ALGORITHMS_TEXT = "{" + ", ".join(repr(name) for name in sorted(DIGEST_ALGORITHMS)) + "}"
"""Written as Heat writes the set, in a stable order (Heat's varies from run to run)."""


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str)


class MapMerge(WholeArgs):
    """``map_merge: [map, ...]``: later maps win; null items count as empty maps."""

    __slots__ = ()

    def _usage(self) -> str:
        return (
            f'Incorrect arguments to "{self.fn_name}" should be: '
            f'"{self.fn_name}" : [ {{ "key1": "val1" }}, {{ "key2": "val2" }} ]'
        )

    def compute(self, args: Any) -> Any:
        if not isinstance(args, Sequence):
            self.fail(self._usage())
        merged: dict[str, Any] = {}
        for item in args:
            if item is None:
                continue
            if not isinstance(item, Mapping):
                self.fail(
                    "Incorrect arguments: Items to merge must be maps. "
                    f"{repr(item)[:200]} is type {type(item)} instead of a dict"
                )
            merged.update(item)
        return merged


class MapReplace(WholeArgs):
    """``map_replace: [map, {keys: {old: new}, values: {old: new}}]``."""

    __slots__ = ()

    def _example(self) -> str:
        return (
            f'"{self.fn_name}" : [ {{ "key1": "val1" }}, '
            '{"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]'
        )

    def _usage(self) -> str:
        return f'Incorrect arguments to "{self.fn_name}" should be: {self._example()}'

    def _pair(self, args: Any) -> tuple[Mapping[Any, Any], Mapping[Any, Any]]:
        """The two maps, refused in Heat's order: it pops them off the front one by one."""
        if isinstance(args, Mapping):
            self.fail(str(KeyError(0)))  # a map has no item 0 to pop
        if not isinstance(args, list) or not args:
            self.fail(self._usage())
        source = self._map(args[0])
        if len(args) < 2:
            self.fail(self._usage())
        replacements = self._map(args[1])
        if len(args) > 2:
            self.fail(self._usage())
        return source, replacements

    def _map(self, value: Any) -> Mapping[Any, Any]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            self.fail(
                f'Incorrect arguments: to "{self.fn_name}", arguments must be a list of maps. '
                f"Example:  {self._example()}"
            )
        return value

    def compute(self, args: Any) -> Any:
        source, replacements = self._pair(args)
        if any(key not in ("keys", "values") for key in replacements):
            self.fail(self._usage())
        new_keys = self._map(replacements.get("keys", {}))
        new_values = self._map(replacements.get("values", {}))
        result: dict[Any, Any] = {}
        for key, value in source.items():
            new_key = new_keys.get(key)
            if new_key is None:
                new_key = key
            elif new_key in source and new_key != key:
                self.fail(f"key replacement {new_key} collides with a key in the input map")
            elif new_key in result:
                self.fail(f"key replacement {new_key} collides with a key in the output map")
            hashable = not isinstance(value, dict | list)
            result[new_key] = new_values.get(value, value) if hashable else value
        return result


class ListConcat(WholeArgs):
    """``list_concat: [list, ...]``: one list of every item, in order."""

    __slots__ = ()
    unique = False

    def compute(self, args: Any) -> Any:
        if not _is_list(args):
            self.fail(
                f'Incorrect arguments to "{self.fn_name}" should be: "{self.fn_name}" : '
                "[ [ <value 1>, <value 2> ], [ <value 3>, <value 4> ] ]"
            )
        items: list[Any] = []
        for part in args:
            if part is None:
                continue
            if not _is_list(part):
                self.fail(
                    "Incorrect arguments: Items to concat must be lists. "
                    f"{json.dumps(args)} contains an item that is not a list: {json.dumps(part)}"
                )
            items.extend(part)
        return _first_of_each(items) if self.unique else items


def _first_of_each(items: list[Any]) -> list[Any]:
    """Each value once, where it first occurs (Heat 27's ``list_concat_unique``)."""
    result: list[Any] = []
    for item in items:
        if item not in result:  # equality, not hashing: items may be maps or lists
            result.append(item)
    return result


class ListConcatUnique(ListConcat):
    """``list_concat_unique``: as ``list_concat``, each value kept where it first occurs."""

    __slots__ = ()
    unique = True


class Filter(WholeArgs):
    """``filter: [values, list]``: the list without the values."""

    __slots__ = ()

    def check(self, args: Node) -> None:
        items = args.as_list()
        if items is None:
            self.fail(f'Argument to "{self.fn_name}" must be a list')
        if len(items) != 2:
            self.fail(
                f'"{self.fn_name}" expected 2 arguments of the form [values, sequence] '
                f"but got {len(items)} arguments instead"
            )

    def compute(self, args: Any) -> Any:
        values, sequence = args
        if not sequence:
            return sequence
        if not isinstance(sequence, list):
            self.fail(f'"{self.fn_name}" only works with lists')
        if not values:
            return sequence
        if not isinstance(values, list):
            self.fail(f'"{self.fn_name}" filters a list of values')
        return [item for item in sequence if item not in values]


class Contains(WholeArgs):
    """``contains: [value, sequence]``: whether the value is in the sequence."""

    __slots__ = ()

    def check(self, args: Node) -> None:
        items = args.as_list()
        if not items:
            self.fail(
                f'Incorrect arguments to "{self.fn_name}" should be: '
                f'"{self.fn_name}" : [ "value1", [ "value1", "value2"]]'
            )
        if len(items) != 2:
            self.fail(
                f'Arguments to "{self.fn_name}" must be of the form: [value1, [value1, value2]]'
            )

    def compute(self, args: Any) -> Any:
        value, sequence = args
        if not isinstance(sequence, Sequence):
            self.fail(f'Second argument to "{self.fn_name}" should be a sequence.')
        try:
            return value in sequence
        except TypeError as exc:  # text contains only text; Heat says it in Python's words
            self.fail(str(exc))


class StrSplit(WholeArgs):
    """``str_split: [delimiter, text]`` or ``[delimiter, text, index]``."""

    __slots__ = ()

    def _example(self) -> str:
        return f'"{self.fn_name}" : [ ",", "apples,pears", <index>]'

    def check(self, args: Node) -> None:
        text = isinstance(args, Static) and isinstance(args.value, str)
        if args.as_mapping() is not None or text:
            self.fail(f'Incorrect arguments to "{self.fn_name}" should be: {self._example()}')

    def compute(self, args: Any) -> Any:
        if isinstance(args, Mapping):
            self.fail(str(KeyError(0)))  # Heat pops item 0 off its argument: a map has none
        if not isinstance(args, list) or len(args) < 2:
            self.fail(f'Incorrect arguments to "{self.fn_name}" should be: {self._example()}')
        delimiter, text = args[0], args[1]
        if text is None:
            return None
        if not isinstance(text, str):
            self.fail(f"'{type(text).__name__}' object has no attribute 'split'")
        try:
            parts = text.split(delimiter)
        except (TypeError, ValueError) as exc:  # not text, or empty: Python's words, as Heat's
            self.fail(str(exc))
        if len(args) < 3:
            return parts
        try:
            index = int(args[2])
        except ValueError:
            self.fail(f'Incorrect index to "{self.fn_name}" should be: {self._example()}')
        except TypeError as exc:
            self.fail(str(exc))
        if not -len(parts) <= index < len(parts):
            self.fail(
                f'Incorrect index to "{self.fn_name}" should be between 0 and {len(parts) - 1}'
            )
        return parts[index]


class Digest(WholeArgs):
    """``digest: [algorithm, value]``: the hex digest of the value's Latin-1 bytes.

    Latin-1, as Heat encodes: a digest must match the one Heat computed for the
    same template. Text outside Latin-1 is refused (Heat fails on it too).
    """

    __slots__ = ()

    def compute(self, args: Any) -> Any:
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            self.fail(f'Argument to function "{self.fn_name}" must be a list of strings')
        if len(args) != 2:
            self.fail(f'Function "{self.fn_name}" usage: ["<algorithm>", "<value>"]')
        algorithm, text = args
        if algorithm.lower() not in DIGEST_ALGORITHMS:
            self.fail(f"Algorithm must be one of {_ALGORITHMS_TEXT}")
        # Heat hashes under the name as written, so some capitalised names fail in
        # hashlib's words, as text outside Latin-1 and a shake digest's missing length do.
        try:
            return hashlib.new(algorithm, text.encode("latin-1")).hexdigest()
        except (ValueError, TypeError) as exc:
            self.fail(str(exc))

"""Functions over maps, lists and text: map_merge, map_replace, list_concat(_unique),
filter, contains, str_split, digest. Messages are Heat's (``heat/engine/hot/functions.py``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from hotplate.template.functions.base import Node, Static
from hotplate.template.functions.whole import WholeArgs

DIGEST_ALGORITHMS = frozenset(
    name for name in hashlib.algorithms_available if not name.startswith("shake"))
"""Heat's list: whatever hashlib offers (less the variable-length shake digests,
whose hex digest needs a length Heat never gives)."""
_NAMED_ALGORITHMS = ", ".join(sorted(
    name for name in hashlib.algorithms_guaranteed if not name.startswith("shake")))
"""The ones every platform has, for the error message (the rest vary with OpenSSL)."""


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
                self.fail("Incorrect arguments: Items to merge must be maps.")
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
        if not isinstance(args, list) or len(args) != 2:
            self.fail(self._usage())
        source, replacements = self._map(args[0]), self._map(args[1])
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
                self.fail("Incorrect arguments: Items to concat must be lists.")
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
        except TypeError as exc:  # text contains only text
            self.fail(f'Incorrect arguments to "{self.fn_name}": {exc}')


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
        if not isinstance(args, list) or len(args) < 2:
            self.fail(f'Incorrect arguments to "{self.fn_name}" should be: {self._example()}')
        delimiter, text = args[0], args[1]
        if text is None:
            return None
        if not isinstance(text, str) or not isinstance(delimiter, str) or not delimiter:
            self.fail(f'Incorrect arguments to "{self.fn_name}" should be: {self._example()}')
        parts = text.split(delimiter)
        if len(args) < 3:
            return parts
        try:
            index = int(args[2])
        except (TypeError, ValueError):
            self.fail(f'Incorrect index to "{self.fn_name}" should be: {self._example()}')
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
        algorithm = args[0].lower()
        if algorithm not in DIGEST_ALGORITHMS:
            self.fail(f"Algorithm must be one of {_NAMED_ALGORITHMS}")
        try:
            data = args[1].encode("latin-1")
        except UnicodeEncodeError as exc:
            self.fail(f'The value to "{self.fn_name}" must be Latin-1 text: {exc}')
        return hashlib.new(algorithm, data).hexdigest()

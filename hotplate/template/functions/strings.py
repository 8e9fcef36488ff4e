"""String building: str_replace and list_join, in their per-version flavours.

Heat changed both in HOT 2015-10-15: ``str_replace`` began JSON-encoding
list and map values, and ``list_join`` began taking several lists and
JSON-encoding non-string items. The older classes keep the older rules,
because a template's meaning must not change under it. Messages are Heat's.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from hotplate.model.errors import StackValidationFailed
from hotplate.template.context import ResolveContext
from hotplate.template.functions.base import (
    Function,
    Node,
    ParseScope,
    Static,
    fail_at,
    fold,
    key_error_text,
)
from hotplate.template.paths import Path


class Replace(Function):
    """``str_replace: {template: ..., params: {key: value}}`` (HOT up to 2015-04-30).

    Replacement follows Heat exactly: keys are applied longest first (ties in
    lexical order); the template is split on a key and each piece is handled
    by the remaining keys, so inserted values are never scanned again.
    """

    __slots__ = ("params", "template")
    pure = True
    strict: ClassVar[bool] = False

    def __init__(self, fn_name: str, path: Path, template: Node, params: Node) -> None:
        super().__init__(fn_name, path)
        self.template = template
        self.params = params

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        entries = args.as_mapping()
        if entries is None:
            fail_at(path, f'Arguments to "{fn_name}" must be a map')
        if "params" not in entries or "template" not in entries:
            fail_at(path, key_error_text(
                f'"{fn_name}" syntax should be {fn_name}:\n'
                "              template: This is var1 template var2\n"
                "              params:\n"
                "                var1: a\n"
                "                var2: string"))
        params = entries["params"]
        if params.as_mapping() is None and not isinstance(params, Function):
            fail_at(path, f'"{fn_name}" parameters must be a mapping')
        return fold(cls(fn_name, path, entries["template"], params))

    def children(self) -> tuple[Node, ...]:
        return (self.template, self.params)

    def resolve(self, ctx: ResolveContext) -> Any:
        template = self.template.resolve(ctx)
        mapping = self.params.resolve(ctx)
        if not isinstance(template, str):
            self.fail(f'"{self.fn_name}" template must be a string')
        if not isinstance(mapping, Mapping):
            self.fail(f'"{self.fn_name}" params must be a map')
        keys = sorted(sorted(mapping), key=len, reverse=True)
        values = {key: self.replacement(mapping[key], key) for key in keys}
        if "" in values:  # sorted last; Heat's text.split("") refuses it once it is reached
            self.fail("empty separator")
        used: set[str] = set()
        result = _substitute(template, [k for k in keys if k in template], values, used)
        if self.strict and len(used) < len(keys):
            missing = ",".join(k for k in keys if k not in used)
            self.fail(f"The following params were not found in the template: {missing}")
        return result

    def replacement(self, value: Any, param: str) -> str:
        """The text a parameter value becomes."""
        if value is None:
            return ""
        if not isinstance(value, str | int | float):
            self.fail(
                f'"{self.fn_name}" params must be strings or numbers, param {param} is not valid'
            )
        return str(value)


class ReplaceJson(Replace):
    """``str_replace`` from HOT 2015-10-15: lists and maps are substituted as JSON."""

    __slots__ = ()

    def replacement(self, value: Any, param: str) -> str:
        if value is None:
            return ""
        if isinstance(value, str | int | float):
            return str(value)
        if isinstance(value, Mapping | Sequence):
            return json.dumps(value, sort_keys=True)
        self.fail(f'"{self.fn_name}" params must be strings, numbers, list or map.')


class ReplaceStrict(ReplaceJson):
    """``str_replace_strict`` (HOT 2017-02-24): every param must occur in the template."""

    __slots__ = ()
    strict = True


class ReplaceVeryStrict(ReplaceStrict):
    """``str_replace_vstrict`` (HOT 2017-09-01): no param may be null or empty either."""

    __slots__ = ()

    def replacement(self, value: Any, param: str) -> str:
        empty = value is None or (isinstance(value, str | Mapping | Sequence) and not value)
        if empty:
            self.fail(
                f"{self.fn_name} has an undefined or empty value for param {param}, "
                "must be a defined non-empty value"
            )
        return super().replacement(value, param)


def _substitute(
    template: str, keys: list[str], values: Mapping[str, str], used: set[str]
) -> str:
    """Heat's recursive split-and-join, done iteratively over text segments."""
    # Each segment is (is_value, text); inserted values are never split again.
    segments: list[tuple[bool, str]] = [(False, template)]
    for key in keys:
        value = values[key]
        split: list[tuple[bool, str]] = []
        for is_value, piece in segments:
            if is_value or key not in piece:
                split.append((is_value, piece))
                continue
            parts = piece.split(key)
            used.add(key)
            for i, part in enumerate(parts):
                if i:
                    split.append((True, value))
                split.append((False, part))
        segments = split
    return "".join(piece for _, piece in segments)


class Join(Function):
    """``list_join: [delimiter, [item, ...]]`` (HOT up to 2015-04-30)."""

    __slots__ = ("delimiter", "lists")
    pure = True
    example_suffix = ""

    def __init__(self, fn_name: str, path: Path, delimiter: Node, lists: tuple[Node, ...]) -> None:
        super().__init__(fn_name, path)
        self.delimiter = delimiter
        self.lists = lists

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        items = args.as_list()
        if items is None or not cls.arity_ok(len(items)):
            example = f'"{fn_name}" : [ " ", [ "str1", "str2"]{cls.example_suffix}]'
            fail_at(path, f'Incorrect arguments to "{fn_name}" should be: {example}')
        return fold(cls(fn_name, path, items[0], tuple(items[1:])))

    @staticmethod
    def arity_ok(count: int) -> bool:
        return count == 2

    def children(self) -> tuple[Node, ...]:
        return (self.delimiter, *self.lists)

    def resolve(self, ctx: ResolveContext) -> Any:
        strings = self.lists[0].resolve(ctx)
        if strings is None:
            strings = []
        if isinstance(strings, str) or not isinstance(strings, Sequence):
            self.fail(f'"{self.fn_name}" must operate on a list')
        return self._delimiter(ctx).join(self.item_text(s) for s in strings)

    def _delimiter(self, ctx: ResolveContext) -> str:
        delimiter = self.delimiter.resolve(ctx)
        if not isinstance(delimiter, str):
            self.fail(f'"{self.fn_name}" delimiter must be a string')
        return delimiter

    def item_text(self, item: Any) -> str:
        if item is None:
            return ""
        if not isinstance(item, str):
            self.fail(f"Items to join must be strings not {repr(item)[:200]}")
        return item


class JoinMultiple(Join):
    """``list_join`` from HOT 2015-10-15: several lists; lists and maps join as JSON."""

    __slots__ = ()
    example_suffix = " ..."

    @staticmethod
    def arity_ok(count: int) -> bool:
        return count >= 2

    def resolve(self, ctx: ResolveContext) -> Any:
        strings: list[Any] = []
        for node in self.lists:
            joined = node.resolve(ctx)
            if not joined:
                continue
            if isinstance(joined, str) or not isinstance(joined, Sequence):
                self.fail(f'"{self.fn_name}" must operate on a list')
            strings.extend(joined)
        return self._delimiter(ctx).join(self.item_text(s) for s in strings)

    def item_text(self, item: Any) -> str:
        if item is None:
            return ""
        if isinstance(item, str):
            return item
        if isinstance(item, Mapping | Sequence):
            return json.dumps(item, sort_keys=True)
        self.fail(f"Items to join must be string, map or list not {repr(item)[:200]}")


class GetFile(Function):
    """``get_file: key``: the content stored under ``key`` in the template's files.

    A literal key's content is read once, when parsed; a key that is not
    text, or has no content, fails when resolved, as in Heat.
    """

    __slots__ = ("files", "key")

    def __init__(self, fn_name: str, path: Path, key: Node, files: Mapping[str, Any]) -> None:
        super().__init__(fn_name, path)
        self.key = key
        self.files = files

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        node = cls(fn_name, path, args, scope.files)
        if isinstance(args, Static):
            with contextlib.suppress(StackValidationFailed):
                return Static(node.resolve_key(args.value))
        return node

    def children(self) -> tuple[Node, ...]:
        return (self.key,)

    def resolve(self, ctx: ResolveContext) -> Any:
        return self.resolve_key(self.key.resolve(ctx))

    def resolve_key(self, key: Any) -> Any:
        if not isinstance(key, str):
            self.fail(f'Argument to "{self.fn_name}" must be a string')
        content = self.files.get(key)
        if content is None:
            self.fail(
                f'No content found in the "files" section for {self.fn_name} path: {key}'
            )
        return content

"""CFN's data functions: Fn::Select, Fn::Split, Fn::Replace, Fn::Base64, Fn::MemberListToMap.

CFN templates and HOT 2013-05-23 share them (HOT dropped all but
``Fn::Select`` in 2014-10-16, and that one in 2015-10-15). ``Fn::Join`` is
``list_join``'s older form (``strings.Join``). Semantics and messages are
Heat's (``heat/engine/cfn/functions.py``), quirks included: ``Fn::Select``
answers "" for what it cannot find, reads JSON text as a collection, and
``Fn::Base64`` returns its text unencoded (Heat takes user data as text).
All are pure: literal calls are computed when the template is parsed.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hotplate.template.context import ResolveContext
from hotplate.template.functions.base import Function, Node, ParseScope, Static, fail_at, fold
from hotplate.template.functions.strings import Replace
from hotplate.template.functions.whole import WholeArgs
from hotplate.template.paths import Path


class Select(WholeArgs):
    """``Fn::Select: [index, list_or_map]``: one item, or "" when there is none."""

    __slots__ = ()

    def check(self, args: Node) -> None:
        items = args.as_list()
        if items is None or len(items) != 2:
            self.fail(f'Arguments to "{self.fn_name}" must be of the form [index, collection]')

    def compute(self, args: Any) -> Any:
        index, collection = args
        if collection == "":
            return ""  # what other functions answer while a value is not known yet
        if isinstance(collection, str):
            try:
                collection = json.loads(collection)
            except ValueError as exc:
                self.fail(f'"{self.fn_name}": {exc}')
        if isinstance(collection, Mapping):
            if not isinstance(index, str):
                self.fail(f'Index to "{self.fn_name}" must be a string')
            return collection.get(index, "")
        with contextlib.suppress(ValueError, TypeError):
            index = int(index)
        if isinstance(collection, Sequence) and not isinstance(collection, str):
            if not isinstance(index, int):
                self.fail(f'Index to "{self.fn_name}" must be an integer')
            try:
                return collection[index]
            except IndexError:
                return ""
        if collection is None:
            return ""
        self.fail(f"Arguments to {self.fn_name} not fully resolved")


class Split(WholeArgs):
    """``Fn::Split: [delimiter, text]``: the text's pieces."""

    __slots__ = ()

    def _usage(self) -> str:
        example = f'"{self.fn_name}" : [ ",", "str1,str2"]]'
        return f'Incorrect arguments to "{self.fn_name}" should be: {example}'

    def check(self, args: Node) -> None:
        if isinstance(args, Static) and isinstance(args.value, int | float | None):
            self.fail(f"cannot unpack non-iterable {type(args.value).__name__} object")
        items = args.as_list()
        if items is None or len(items) != 2:
            self.fail(self._usage())

    def resolve(self, ctx: ResolveContext) -> Any:
        return self.compute([None, self._items()[1].resolve(ctx)])  # the text alone

    def compute(self, args: Any) -> Any:
        return self._split(self._items()[0], args[1])

    def _items(self) -> list[Node]:
        return self.args.as_list() or []  # two items: ``check`` saw to it

    def _split(self, delimiter: Node, text: Any) -> Any:
        # Heat reads the delimiter unresolved (only literal text will do) and
        # only once the text is resolved.
        if not isinstance(delimiter, Static) or not isinstance(delimiter.value, str):
            self.fail(f"Delimiter for {self.fn_name} must be string")
        if not isinstance(text, str):
            self.fail(f"String to split must be string; got {type(text)}")
        try:
            return text.split(delimiter.value)
        except ValueError as exc:  # an empty delimiter, in Python's words as in Heat's
            self.fail(str(exc))


class CfnReplace(Replace):
    """``Fn::Replace: [{placeholder: value}, template]``: str_replace, arguments as a list."""

    __slots__ = ()

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        items = args.as_list()
        if items is None or len(items) != 2:
            example = (
                f'{{"{fn_name}": [ {{"$var1": "foo", "%var2%": "bar"}}, "$var1 is %var2%"]}}'
            )
            fail_at(path, f'Incorrect arguments to "{fn_name}" should be: {example}')
        params, template = items
        if params.as_mapping() is None and not isinstance(params, Function):
            fail_at(path, f'"{fn_name}" parameters must be a mapping')
        return fold(cls(fn_name, path, template, params))


class Base64(WholeArgs):
    """``Fn::Base64: text``: the text itself (Heat takes user data unencoded)."""

    __slots__ = ()

    def compute(self, args: Any) -> Any:
        if not isinstance(args, str):
            self.fail(f'"{self.fn_name}" argument must be a string')
        return args


# Heat's usage hint, laid out as Heat prints it.
_MEMBER_LIST_EXAMPLE = """
            {'Fn::MemberListToMap': ['Name', 'Value',
                                     ['.member.0.Name=key',
                                      '.member.0.Value=door']]}
            """
_MEMBER = re.compile(r"\.member\.([0-9]+)\.(.*)")


class MemberListToMap(WholeArgs):
    """``Fn::MemberListToMap: [key_name, value_name, ['.member.N.<name>=<text>', ...]]``.

    The AWS query encoding of a list of pairs: entries with the same N form
    one member; each member with both names gives ``{key: value}``.
    """

    __slots__ = ()

    def check(self, args: Node) -> None:
        items = args.as_list()
        if items is None or len(items) != 3:
            self.fail(f'Wrong Arguments try: "{_MEMBER_LIST_EXAMPLE}"')
        for node, role in ((items[0], "Key"), (items[1], "Value")):
            if not isinstance(node, Static) or not isinstance(node.value, str):
                self.fail(f"{self.fn_name} {role} Name must be a string")

    def compute(self, args: Any) -> Any:
        key_name, value_name, members = args
        if not isinstance(members, Iterable):
            self.fail("Member list must be a list")
        fields: dict[str, str] = {}
        for i, item in enumerate(members):
            if not isinstance(item, str):
                self.fail("Member list items must be strings")
            name, sep, text = item.partition("=")
            if not sep:
                self.fail(f"dictionary update sequence element #{i} has length 1; 2 is required")
            fields[name] = text
        return _pairs(fields, key_name, value_name)


def _pairs(fields: Mapping[str, str], key_name: str, value_name: str) -> dict[str, str]:
    """Group ``.member.N.<name>`` fields by N (in N's order); pair each group's key and value."""
    members: dict[int, dict[str, str]] = {}
    for name, text in fields.items():
        match = _MEMBER.match(name)
        if match:
            members.setdefault(int(match.group(1)), {})[match.group(2)] = text
    result: dict[str, str] = {}
    for index in sorted(members):
        member = members[index]
        if key_name in member and value_name in member:
            result[member[key_name]] = member[value_name]
    return result

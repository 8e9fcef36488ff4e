"""``repeat`` and ``make_url``: functions whose arguments are maps with named keys.

``repeat`` grew by version (Heat's ``Repeat``, ``RepeatWithMap``,
``RepeatWithNestedLoop``): lists only until 2016-10-14, maps' keys too from
then, and ``permutations`` from 2017-09-01.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar
from urllib import parse as urlparse

from hotplate.template.context import ResolveContext
from hotplate.template.functions.base import Function, Node, Static, key_error_text
from hotplate.template.functions.whole import WholeArgs

_REPEAT_EXAMPLE = (
    "repeat:\n"
    "              template: This is %var%\n"
    "              for_each:\n"
    "                %var%: ['a', 'b', 'c']"
)


class Repeat(WholeArgs):
    """``repeat: {template: body, for_each: {var: list}}`` (HOT 2015-04-30).

    Checked in Heat's three phases: the keys when parsed, ``for_each``
    being a map when validated, the loops and the substitution when
    resolved, where Python's own errors (``str.replace``, unpacking) are
    what Heat reports.
    """

    __slots__ = ()
    allow_maps: ClassVar[bool] = False
    allow_permutations: ClassVar[bool] = False

    def check(self, args: Node) -> None:
        entries = args.as_mapping()
        if entries is None:
            self.fail(f'Arguments to "{self.fn_name}" must be a map')
        if "for_each" not in entries or "template" not in entries:
            self.fail(key_error_text(f'"repeat" syntax should be {_REPEAT_EXAMPLE}'))
        if self.allow_permutations and "permutations" in entries:
            node = entries["permutations"]  # read unresolved: a call is not a boolean
            self._permutations(node.value if isinstance(node, Static) else node)

    def _permutations(self, value: Any) -> bool:
        if not isinstance(value, bool):
            self.fail(f'"permutations" should be boolean type for {self.fn_name} function.')
        return value

    def _entries(self) -> dict[str, Node]:
        return self.args.as_mapping() or {}  # a map: ``check`` refused anything else

    def _nested(self) -> bool:
        node = self._entries().get("permutations")
        return not (self.allow_permutations and isinstance(node, Static) and node.value is False)

    def validate(self, scope: Any) -> None:
        for_each = self._entries()["for_each"]
        if not isinstance(for_each, Function) and for_each.as_mapping() is None:
            self.fail(f'The "for_each" argument to "{self.fn_name}" must contain a map')

    def resolve(self, ctx: ResolveContext) -> Any:
        entries = self._entries()  # for_each first: its errors come before the body's
        keys, values = self._loops(entries["for_each"].resolve(ctx))
        return self._expand(keys, values, entries["template"].resolve(ctx))

    def compute(self, args: Any) -> Any:
        keys, values = self._loops(args["for_each"])
        return self._expand(keys, values, args["template"])

    def _loops(self, for_each: Any) -> tuple[list[str], list[Any]]:
        """The loop variables and their values, as Heat unpacks ``for_each.items()``."""
        if not isinstance(for_each, Mapping):
            self.fail(f"'{type(for_each).__name__}' object has no attribute 'items'")
        if not for_each:
            self.fail("not enough values to unpack (expected 2, got 0)")
        nested = self._nested()
        values: list[Any] = []
        lengths: set[int] = set()
        for value in for_each.values():
            if value is None:
                values.append([])
                continue
            self._check_loop(value, nested)
            lengths.add(len(value))
            values.append(value)
        if not nested and len(lengths) > 1:
            self.fail(
                f"For {self.fn_name}, the length of for_each values should be equal "
                "if no nested loop."
            )
        return list(for_each), values

    def _check_loop(self, value: Any, nested: bool) -> None:
        maps = self.allow_maps and nested  # zipped loops need an order: lists only
        loops = isinstance(value, Sequence) or (maps and isinstance(value, Mapping))
        if isinstance(value, str) or not loops:
            kinds = "lists or maps" if maps else "lists"
            self.fail(f'The values of the "for_each" argument to "{self.fn_name}" must be {kinds}')

    def _expand(self, keys: list[str], values: list[Any], body: Any) -> list[Any]:
        combos = itertools.product(*values) if self._nested() else zip(*values, strict=False)
        try:
            return [_replace(body, keys, combo) for combo in combos]
        except TypeError as exc:  # str.replace of a value that is not text, as in Heat
            self.fail(str(exc))


class RepeatWithMap(Repeat):
    """``repeat`` from HOT 2016-10-14: a map's keys may be iterated too."""

    __slots__ = ()
    allow_maps = True


class RepeatWithNestedLoop(RepeatWithMap):
    """``repeat`` from HOT 2017-09-01: ``permutations: false`` zips the lists instead."""

    __slots__ = ()
    allow_permutations = True


def _replace(body: Any, keys: list[str], values: Sequence[Any]) -> Any:
    if isinstance(body, str):
        for key, value in zip(keys, values, strict=True):
            body = body.replace(key, value)
        return body
    if isinstance(body, list):
        return [_replace(item, keys, values) for item in body]
    if isinstance(body, dict):
        return {_replace(k, keys, values): _replace(v, keys, values) for k, v in body.items()}
    return body


_URL_KEYS = ("scheme", "username", "password", "host", "port", "path", "query", "fragment")


class MakeURL(WholeArgs):
    """``make_url: {scheme, username, password, host, port, path, query, fragment}``."""

    __slots__ = ()

    def validate(self, scope: Any) -> None:
        """Heat's checks before a create: a literal map, known keys, literal values' types."""
        entries = self.args.as_mapping()
        if entries is None:  # a call is refused too: Heat checks the arguments unresolved
            self.fail(f'The arguments to "{self.fn_name}" must be a map')
        invalid = [key for key in entries if key not in _URL_KEYS]
        if invalid:
            self.fail(f'Invalid arguments to "{self.fn_name}": {", ".join(invalid)}')
        self._check_args({key: _unresolved(node) for key, node in entries.items()})

    def _check_args(self, args: Mapping[str, Any]) -> None:
        for key in _URL_KEYS:
            if key not in args:
                continue
            value = args[key]
            if isinstance(value, Function):  # known once resolved, checked then
                if key == "query":
                    return
                continue
            if key == "query":
                if not isinstance(value, Mapping):
                    self.fail(f'The "{key}" argument to "{self.fn_name}" must be a map')
                return  # as Heat: nothing after "query" is checked
            if key == "port":
                self._check_port(value, args)
            elif not isinstance(value, str):
                self.fail(f'The "{key}" argument to "{self.fn_name}" must be a string')

    def _check_port(self, port: Any, args: Mapping[str, Any]) -> None:
        if not isinstance(port, int):
            try:
                port = int(port)
            except ValueError:
                self.fail(
                    f'Invalid URL port "{port}" for {self.fn_name} called with {dict(args)}'
                )
            except TypeError as exc:  # Heat lets int()'s own complaint through
                self.fail(str(exc))
        if not 0 < port <= 65535:
            self.fail(f"Invalid URL port {port:d}, must be in range 1-65535")

    def compute(self, args: Any) -> Any:
        if not isinstance(args, Mapping):
            self.fail(f'The arguments to "{self.fn_name}" must be a map')
        self._check_args(args)
        scheme = args.get("scheme", "")
        if ":" in scheme:
            self.fail("URL \"scheme\" should not contain ':'")
        try:
            path = urlparse.quote(args.get("path", ""))
            query = urlparse.urlencode(args.get("query", {})).replace("%2F", "/")
            fragment = urlparse.quote(args.get("fragment", ""))
            return urlparse.urlunsplit((scheme, _netloc(args), path, query, fragment))
        except (TypeError, UnicodeEncodeError) as exc:
            # What urllib says, as in Heat: of a value after "query", which nothing
            # checks, or of lone surrogates, which have no UTF-8 form.
            self.fail(str(exc))


def _unresolved(node: Node) -> Any:
    """An argument as Heat's validate sees it: data, a call, or a container holding calls
    (standing in as an empty one of its kind: only its kind is checked)."""
    if isinstance(node, Static | Function):
        return node.value if isinstance(node, Static) else node
    return {} if node.as_mapping() is not None else []


def _netloc(args: Mapping[str, Any]) -> str:
    parts: list[str] = []
    username = urlparse.quote(args.get("username", ""), safe="")
    password = urlparse.quote(args.get("password", ""), safe="")
    if username or password:
        parts.append(username)
        if password:
            parts += [":", password]
        parts.append("@")
    host = args.get("host", "")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    host = urlparse.quote(host, safe=":")
    parts.append(f"[{host}]" if ":" in host else host)
    port = args.get("port", "")
    if port:
        parts += [":", str(port)]
    return "".join(parts)

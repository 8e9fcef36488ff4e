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

from hotplate.template.functions.base import Function, Node, Static
from hotplate.template.functions.whole import WholeArgs

_REPEAT_EXAMPLE = (
    "repeat:\n"
    "              template: This is %var%\n"
    "              for_each:\n"
    "                %var%: ['a', 'b', 'c']"
)


class Repeat(WholeArgs):
    """``repeat: {template: body, for_each: {var: list}}`` (HOT 2015-04-30)."""

    __slots__ = ()
    allow_maps: ClassVar[bool] = False
    allow_permutations: ClassVar[bool] = False

    def check(self, args: Node) -> None:
        entries = args.as_mapping()
        if entries is None:
            self.fail(f'Arguments to "{self.fn_name}" must be a map')
        if "for_each" not in entries or "template" not in entries:
            self.fail(f'"repeat" syntax should be {_REPEAT_EXAMPLE}')
        for_each = entries["for_each"]
        if not isinstance(for_each, Function) and for_each.as_mapping() is None:
            self.fail(f'The "for_each" argument to "{self.fn_name}" must contain a map')
        permutations = entries.get("permutations")
        if self.allow_permutations and isinstance(permutations, Static):
            self._permutations(permutations.value)

    def _permutations(self, value: Any) -> bool:
        if not isinstance(value, bool):
            self.fail(f'"permutations" should be boolean type for {self.fn_name} function.')
        return value

    def compute(self, args: Any) -> Any:
        for_each = args["for_each"]
        if not isinstance(for_each, Mapping):
            self.fail(f'The "for_each" argument to "{self.fn_name}" must contain a map')
        nested = True
        if self.allow_permutations:
            nested = self._permutations(args.get("permutations", True))
        keys = list(for_each)
        values = [self._values(for_each[key], nested) for key in keys]
        lengths = {len(v) for v, given in zip(values, for_each.values(), strict=True) if given}
        if not nested and len(lengths) > 1:
            self.fail(
                f"For {self.fn_name}, the length of for_each values should be equal "
                "if no nested loop."
            )
        combos = itertools.product(*values) if nested else zip(*values, strict=False)
        body = args["template"]
        if _has_text(body):
            for key, items in zip(keys, values, strict=True):
                odd = next((item for item in items if not isinstance(item, str)), None)
                if odd is not None:  # Heat's str.replace refuses them, so do we
                    self.fail(f'The values of the "for_each" argument to "{self.fn_name}" '
                              f'must be strings to replace "{key}" in text, not {odd!r}')
        return [_replace(body, keys, list(combo)) for combo in combos]

    def _values(self, value: Any, nested: bool) -> list[Any]:
        if value is None:
            return []
        maps = self.allow_maps and nested
        if isinstance(value, str) or not (
            isinstance(value, Sequence) or (maps and isinstance(value, Mapping))
        ):
            kinds = "lists or maps" if maps else "lists"
            self.fail(f'The values of the "for_each" argument to "{self.fn_name}" must be {kinds}')
        return list(value)


class RepeatWithMap(Repeat):
    """``repeat`` from HOT 2016-10-14: a map's keys may be iterated too."""

    __slots__ = ()
    allow_maps = True


class RepeatWithNestedLoop(RepeatWithMap):
    """``repeat`` from HOT 2017-09-01: ``permutations: false`` zips the lists instead."""

    __slots__ = ()
    allow_permutations = True


def _has_text(body: Any) -> bool:
    if isinstance(body, str):
        return True
    if isinstance(body, list):
        return any(_has_text(item) for item in body)
    if isinstance(body, dict):
        return any(_has_text(k) or _has_text(v) for k, v in body.items())
    return False


def _replace(body: Any, keys: list[str], values: list[Any]) -> Any:
    if isinstance(body, str):
        for key, value in zip(keys, values, strict=True):
            body = body.replace(key, value if isinstance(value, str) else str(value))
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

    def check(self, args: Node) -> None:
        entries = args.as_mapping()
        if entries is None:
            if isinstance(args, Function):
                return
            self.fail(f'The arguments to "{self.fn_name}" must be a map')
        invalid = [key for key in entries if key not in _URL_KEYS]
        if invalid:
            self.fail(f'Invalid arguments to "{self.fn_name}": {", ".join(invalid)}')
        literal = {k: n.value for k, n in entries.items() if isinstance(n, Static)}
        self._check_args(literal)

    def _check_args(self, args: Mapping[str, Any]) -> None:
        for key in _URL_KEYS:
            if key not in args:
                continue
            value = args[key]
            if key == "query":
                if not isinstance(value, Mapping):
                    self.fail(f'The "{key}" argument to "{self.fn_name}" must be a map')
                return  # as Heat: nothing after "query" is checked
            if key == "port":
                self._check_port(value, args)
            elif not isinstance(value, str):
                self.fail(f'The "{key}" argument to "{self.fn_name}" must be a string')

    def _check_port(self, port: Any, args: Mapping[str, Any]) -> None:
        if not isinstance(port, int) or isinstance(port, bool):
            try:
                port = int(port)
            except (TypeError, ValueError):
                self.fail(
                    f'Invalid URL port "{port}" for {self.fn_name} called with {dict(args)}'
                )
        if not 0 < port <= 65535:
            self.fail(f"Invalid URL port {port}, must be in range 1-65535")

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
        except UnicodeEncodeError as exc:  # lone surrogates have no UTF-8 form
            self.fail(f'The arguments to "{self.fn_name}" cannot be URL-encoded: {exc}')


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

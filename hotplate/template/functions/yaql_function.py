"""``yaql``: a YAQL expression evaluated over ``data`` (HOT 2016-10-14).

Bounded as Heat bounds it (iterator and memory limits given to the engine),
plus a limit on the expression's length. The parser is built on first use
and shared: YAQL's parsed expressions are immutable.
"""

from __future__ import annotations

import collections.abc  # noqa: F401  (yaql 3 reads collections.abc without importing it)
from collections.abc import Mapping
from functools import cache
from typing import Any

import yaql  # type: ignore[import-untyped]
from yaql.language import exceptions as yaql_errors  # type: ignore[import-untyped]

from hotplate.template.functions.base import Function, Node, Static, key_error_text
from hotplate.template.functions.whole import WholeArgs

MAX_EXPRESSION_LENGTH = 2048
LIMIT_ITERATORS = 200
"""Most items a YAQL collection may hold (Heat's ``[yaql] limit_iterators``)."""
MEMORY_QUOTA = 10_000
"""Most bytes a YAQL value may take (Heat's ``[yaql] memory_quota``)."""

_EXAMPLE = (
    "{name}:\n"
    "              expression: $.data.var1.sum()\n"
    "              data:\n"
    "                var1: [3, 2, 1]"
)


@cache
def _engine() -> tuple[Any, Any]:
    options = {"yaql.limitIterators": LIMIT_ITERATORS, "yaql.memoryQuota": MEMORY_QUOTA}
    return yaql.YaqlFactory().create(options), yaql.create_context()


class Yaql(WholeArgs):
    """``yaql: {expression: text, data: value}``."""

    __slots__ = ()

    def check(self, args: Node) -> None:
        entries = args.as_mapping()
        if entries is None:
            self.fail(f'Arguments to "{self.fn_name}" must be a map.')
        if "expression" not in entries or set(entries) - {"expression", "data"}:
            example = _EXAMPLE.format(name=self.fn_name)
            self.fail(key_error_text(f'"{self.fn_name}" syntax should be {example}'))

    def validate(self, scope: Any) -> None:
        """Heat parses a literal expression before a create (a computed one when resolved)."""
        expression = (self.args.as_mapping() or {})["expression"]
        if not isinstance(expression, Function):  # a container holding calls is no text
            self._parse(expression.value if isinstance(expression, Static) else expression)

    def _parse(self, expression: Any) -> Any:
        if not isinstance(expression, str):
            self.fail(f'The "expression" argument to {self.fn_name} must contain a string.')
        if len(expression) > MAX_EXPRESSION_LENGTH:
            self.fail(
                f'The "expression" argument to {self.fn_name} is longer than '
                f"{MAX_EXPRESSION_LENGTH} characters."
            )
        parser, _ = _engine()
        try:
            return parser(expression)
        except yaql_errors.YaqlException as error:
            self.fail(f"Bad expression {error}.")

    def compute(self, args: Any) -> Any:
        statement = self._parse(args["expression"])
        _, context = _engine()
        try:
            data = {"data": args.get("data", {})}
            result = statement.evaluate(data, context.create_child_context())
        except (
            yaql_errors.YaqlException, TypeError, ValueError, KeyError, IndexError,
            ArithmeticError, AttributeError,
        ) as error:
            self.fail(str(error))  # what the expression raised, as Heat passes it on
        return _plain(result)


def _plain(value: Any) -> Any:
    """YAQL's frozen containers as plain JSON data."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    return value

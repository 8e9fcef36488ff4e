"""Functions that read the world: get_param, get_resource, get_attr.

Messages follow Heat's (``heat/engine/hot/functions.py``) so that users and
tools see the same text. Resource names must be literal text: dependencies
are fixed when the template is parsed, before any value is known.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import reduce
from typing import Any, ClassVar

from hotplate.model.errors import StackValidationFailed, UserParameterMissing
from hotplate.template.context import ResolveContext
from hotplate.template.document import copy_data
from hotplate.template.errors import InvalidTemplateReference, with_path
from hotplate.template.functions.base import Function, Node, ParseScope, Static
from hotplate.template.paths import Path, reference_key

ALL_ATTRIBUTES = "*"
"""The attribute name ``get_attr: [name]`` asks for: a mapping of every attribute."""


def check_reference(name: str, path: Path, scope: ParseScope) -> None:
    """Refuse a reference to a resource the template does not define."""
    if name not in scope.resources:
        raise InvalidTemplateReference(name, reference_key(path), path)


class GetParam(Function):
    """``get_param: name`` or ``get_param: [name, key_or_index, ...]``."""

    __slots__ = ("args", "components", "name")

    def __init__(self, fn_name: str, path: Path, args: Node) -> None:
        super().__init__(fn_name, path)
        self.args = args
        self.name: str | None = None  # set when the whole argument is literal
        self.components: list[Any] = []

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        node = cls(fn_name, path, args)
        name: str | None = None
        if isinstance(args, Static):
            node.name, node.components = node._split(args.value)
            name = node.name
        else:
            items = args.as_list()
            if items and isinstance(items[0], Static):
                name = node._check_name(items[0].value)
        if name is not None and name not in scope.parameters:
            raise with_path(UserParameterMissing(name), path)
        return node

    def _check_name(self, name: Any) -> str:
        if not isinstance(name, str):
            self.fail(f'Parameter name in "{self.fn_name}" must be string')
        return name

    def _split(self, args: Any) -> tuple[str, list[Any]]:
        if not args:
            self.fail(f'Function "{self.fn_name}" must have arguments')
        if isinstance(args, str):
            return args, []
        if isinstance(args, list):
            return self._check_name(args[0]), args[1:]
        self.fail(f'Argument to "{self.fn_name}" must be string or list')

    def children(self) -> tuple[Node, ...]:
        return (self.args,)

    def resolve(self, ctx: ResolveContext) -> Any:
        if self.name is not None:
            name, components = self.name, self.components
        else:
            name, components = self._split(self.args.resolve(ctx))
        try:
            value = ctx.parameter(name)
        except KeyError:
            raise with_path(UserParameterMissing(name), self.path) from None
        if components:
            try:
                value = reduce(self._step, components, value)
            except (KeyError, IndexError, TypeError):
                # Heat answers an empty string for any path that does not lead anywhere.
                return ""
        return copy_data(value)

    @staticmethod
    def _step(collection: Any, key: Any) -> Any:
        if not isinstance(collection, Mapping | Sequence) or not isinstance(key, str | int):
            raise TypeError(key)
        if isinstance(collection, Sequence) and isinstance(key, str):
            try:
                key = int(key)
            except ValueError:
                raise TypeError(key) from None
        return collection[key]


class GetResource(Function):
    """``get_resource: name``: the resource's reference id."""

    __slots__ = ("enabled", "target")

    def __init__(self, fn_name: str, path: Path, target: str, enabled: bool) -> None:
        super().__init__(fn_name, path)
        self.target = target
        self.enabled = enabled

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        target = args.value if isinstance(args, Static) else None
        if not isinstance(target, str):
            raise StackValidationFailed(f'Argument to "{fn_name}" must be a string', path)
        check_reference(target, path, scope)
        return cls(fn_name, path, target, target in scope.enabled)

    def resources_needed(self) -> Iterable[str]:
        return (self.target,) if self.enabled else ()

    def resolve(self, ctx: ResolveContext) -> Any:
        return ctx.resource_reference(self.target) if self.enabled else None


class GetAttr(Function):
    """``get_attr: [resource, attribute, key_or_index, ...]`` (HOT up to 2015-04-30)."""

    __slots__ = ("attribute", "components", "enabled", "target")
    allow_all: ClassVar[bool] = False

    def __init__(
        self, fn_name: str, path: Path, target: str, attribute: str, components: tuple[Node, ...]
    ) -> None:
        super().__init__(fn_name, path)
        self.target = target
        self.attribute = attribute
        self.components = components
        self.enabled = True

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        items = cls._items(fn_name, args, path)
        target = cls._literal(items[0], f'Resource name in "{fn_name}" must be a string', path)
        check_reference(target, path, scope)
        if len(items) == 1:
            attribute = ALL_ATTRIBUTES
        else:
            attribute = cls._literal(
                items[1], f'Attribute name in "{fn_name}" must be a string', path
            )
        node = cls(fn_name, path, target, attribute, tuple(items[2:]))
        node.enabled = target in scope.enabled
        return node

    @classmethod
    def _items(cls, fn_name: str, args: Node, path: Path) -> list[Node]:
        if cls.allow_all and isinstance(args, Static) and not args.value:
            raise StackValidationFailed(
                f'Arguments to "{fn_name}" can be of the next forms: '
                "[resource_name] or [resource_name, attribute, (path), ...]",
                path,
            )
        items = args.as_list()
        if items is None:
            raise StackValidationFailed(f'Argument to "{fn_name}" must be a list', path)
        if len(items) < (1 if cls.allow_all else 2):
            raise StackValidationFailed(
                f'Arguments to "{fn_name}" must be of the form '
                "[resource_name, attribute, (path), ...]",
                path,
            )
        return items

    @staticmethod
    def _literal(node: Node, message: str, path: Path) -> str:
        value = node.value if isinstance(node, Static) else None
        if not isinstance(value, str):
            raise StackValidationFailed(message, path)
        return value

    def children(self) -> tuple[Node, ...]:
        return self.components

    def resources_needed(self) -> Iterable[str]:
        return (self.target,) if self.enabled else ()

    def attributes_read(self) -> Iterable[tuple[str, str]]:
        return ((self.target, self.attribute),) if self.enabled else ()

    def resolve(self, ctx: ResolveContext) -> Any:
        if not self.enabled:
            return None
        if self.components:
            keys = [node.resolve(ctx) for node in self.components]
            by_path = getattr(ctx, "resource_attribute_path", None)
            if by_path is not None:  # some types resolve a path themselves (groups)
                found, value = by_path(self.target, self.attribute, tuple(keys))
                if found:
                    return copy_data(value)
        value = ctx.resource_attribute(self.target, self.attribute)
        if value is not None and self.components:
            try:
                value = reduce(_select, keys, value)
            except (KeyError, IndexError, TypeError):
                return None
        # A copy: the caller may change what it gets, the context's data must not.
        return copy_data(value)


class GetAttrAll(GetAttr):
    """``get_attr`` from HOT 2015-10-15: ``[resource]`` alone reads every attribute."""

    __slots__ = ()
    allow_all = True


def _select(collection: Any, key: Any) -> Any:
    """One step of an attribute path; Heat answers None for any step that fails."""
    if not isinstance(collection, Mapping | Sequence):
        raise TypeError("Can't traverse attribute path")
    if not isinstance(key, str | int):
        raise TypeError("Path components in attributes must be strings")
    value: Any = collection
    return value[key]

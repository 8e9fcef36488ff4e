"""Functions that read the world: get_param, get_resource, get_attr.

Messages follow Heat's (``heat/engine/hot/functions.py``) so that users and
tools see the same text, and so does their timing: a parameter name is
looked up when resolving, a resource name is checked when the template is
validated (``template.validation``), never when parsing. Resource names
must be literal text: dependencies are fixed when the template is parsed,
before any value is known.
"""

from __future__ import annotations

import contextlib
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


UNKNOWN = "unknown"
"""Where Heat says a reference is when resolving or validating a call ("(in unknown)")."""


def unknown_reference(name: str, path: Path) -> InvalidTemplateReference:
    """A reference to a resource that is not there (or left out by its condition)."""
    return InvalidTemplateReference(name, UNKNOWN, path)


def dependency_error(name: str, path: Path) -> InvalidTemplateReference:
    """A resource's reference to a resource the template does not define, as a
    create's validation words it (``(in web.Properties.image)``)."""
    return InvalidTemplateReference(name, reference_key(path), path)


class ResourceRead(Function):
    """A call that reads a resource named literally (``target``)."""

    __slots__ = ("declared", "enabled", "target")

    def __init__(self, fn_name: str, path: Path, target: str) -> None:
        super().__init__(fn_name, path)
        self.target = target
        self.declared = True
        self.enabled = True

    def bind(self, scope: ParseScope) -> None:
        self.declared = self.target in scope.resources
        self.enabled = self.target in scope.enabled

    def resources_needed(self) -> Iterable[str]:
        return (self.target,) if self.enabled else ()

    def check_enabled(self) -> None:
        """Heat finds the resource in the stack, and the stack has only enabled ones."""
        if not self.enabled:
            raise unknown_reference(self.target, self.path)


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
        if isinstance(args, Static):
            with contextlib.suppress(StackValidationFailed):  # Heat says so when resolving
                node.name, node.components = node._split(args.value)
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


class GetResource(ResourceRead):
    """``get_resource: name``: the resource's reference id."""

    __slots__ = ()

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        target = args.value if isinstance(args, Static) else None
        if not isinstance(target, str):
            raise StackValidationFailed(f'Argument to "{fn_name}" must be a string', path)
        node = cls(fn_name, path, target)
        node.bind(scope)
        return node

    def resolve(self, ctx: ResolveContext) -> Any:
        self.check_enabled()
        return ctx.resource_reference(self.target)


class GetAttr(ResourceRead):
    """``get_attr: [resource, attribute, key_or_index, ...]`` (HOT up to 2015-04-30)."""

    __slots__ = ("attribute", "components")
    allow_all: ClassVar[bool] = False

    def __init__(
        self, fn_name: str, path: Path, target: str, attribute: str, components: tuple[Node, ...]
    ) -> None:
        super().__init__(fn_name, path, target)
        self.attribute = attribute
        self.components = components

    @classmethod
    def build(cls, fn_name: str, args: Node, path: Path, scope: ParseScope) -> Node:
        items = cls._items(fn_name, args, path)
        target = cls._literal(items[0], f'Resource name in "{fn_name}" must be a string', path)
        if len(items) == 1:
            attribute = ALL_ATTRIBUTES
        else:
            attribute = cls._literal(
                items[1], f'Attribute name in "{fn_name}" must be a string', path
            )
        node = cls(fn_name, path, target, attribute, tuple(items[2:]))
        node.bind(scope)
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

    def attributes_read(self) -> Iterable[tuple[str, str]]:
        return ((self.target, self.attribute),) if self.enabled else ()

    def validate(self, scope: Any) -> None:
        """The resource is in the stack and its type has the attribute (Heat's validate)."""
        self.check_enabled()
        names = scope.attributes.get(self.target)
        if self.attribute != ALL_ATTRIBUTES and names is not None and (
                self.attribute not in names):
            raise StackValidationFailed(
                f"The Referenced Attribute ({self.target} {self.attribute}) is incorrect.")

    def resolve(self, ctx: ResolveContext) -> Any:
        self.check_enabled()
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

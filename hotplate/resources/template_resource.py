"""Template resources: a resource type that is a template, run as a nested stack.

``type: server.yaml`` in a template, or ``My::Server: server.yaml`` in an
environment's ``resource_registry``, makes a resource whose properties are the
template's parameters and whose attributes are its outputs (plus
``OS::stack_id``). Each such template gets its own class, built here from the
parsed template, so validation, the update diff and the resource-type schema
work exactly as for a built-in type.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from hotplate.resources.attributes import Attribute
from hotplate.resources.base import select_path
from hotplate.resources.properties import Schema
from hotplate.resources.stack_resource import StackResource
from hotplate.template import Template

__all__ = ["STACK_ID_OUTPUT", "TemplateResource", "template_resource_class"]

STACK_ID_OUTPUT = "OS::stack_id"
NESTED_PREFIX = "resource."

_PROPERTY_TYPES = {
    "string": Schema.STRING,
    "number": Schema.NUMBER,
    "comma_delimited_list": Schema.LIST,
    "json": Schema.MAP,
    "boolean": Schema.BOOLEAN,
}


class TemplateResource(StackResource):
    """A resource implemented by a nested stack of the template it is named after.

    The resource's properties are passed to the nested stack as its
    parameters; the nested stack's outputs are the resource's attributes.
    """

    metadata_follows_template: ClassVar[bool] = True
    """A signal to another resource of the stack resolves this one's metadata again
    (Heat's ``metadata_update``): it may read what the signal changed."""
    template_name: ClassVar[str] = ""
    template_source: ClassVar[Mapping[str, Any] | str] = ""
    output_names: ClassVar[frozenset[str]] = frozenset()

    def child_template(self) -> Mapping[str, Any] | str:
        return self.template_source

    def child_parameters(self) -> dict[str, Any]:
        """The child's parameters: the properties that have a value, and only those.

        An unset property is left out, so the child's own default applies, or
        the parent's ``parameter_defaults`` the child inherits (Heat's
        ``child_params``). A list is passed as a comma-delimited string; a
        list of maps in Heat's ``.member.<i>.<key>=<value>`` form.
        """
        params: dict[str, Any] = {}
        for name, schema in self.properties_schema.items():
            value = self.properties.get(name)
            if value is None:
                continue
            if schema.type is Schema.LIST and isinstance(value, list):
                value = _delimited(value)
            params[name] = value
        return params

    def handle_adopt(self, entry: Mapping[str, Any]) -> Any:
        """Adopt the template's stack from ``entry``'s resources (Heat's handle_adopt)."""
        return self.adopt_child(entry)

    def get_reference_id(self) -> str:
        if self.resource_id is None:
            return self.name
        if STACK_ID_OUTPUT in self.output_names:
            value = self.child_outputs().get(STACK_ID_OUTPUT)
            if value is not None:
                return str(value)
        return (f"arn:openstack:heat::{self.ctx.project_id}:stacks/"
                f"{self.physical_resource_name()}/{self.resource_id}")

    path_attributes = True

    def get_attribute(self, name: str) -> Any:
        """An output, or ``resource.<name>[.<attr>]``: a resource of the nested stack."""
        if name.startswith(NESTED_PREFIX):
            return self._nested_attribute(name, ())
        return super().get_attribute(name)

    def get_attribute_path(self, name: str, path: tuple[Any, ...]) -> Any:
        if name.startswith(NESTED_PREFIX):
            return self._nested_attribute(name, path)
        return super().get_attribute_path(name, path)

    def _nested_attribute(self, name: str, path: tuple[Any, ...]) -> Any:
        """``[resource.r, a, ...]`` or ``resource.r.a``: attribute ``a`` of the child's ``r``;
        ``resource.r`` alone: its reference."""
        if self.resource_id is None:
            return None
        _, member, *rest = name.split(".", 2)
        wanted = [*rest, *path]
        stacks = self._stacks()
        if not wanted:
            found = [m for m in stacks.members(str(self.resource_id)) if m.name == member]
            return found[0].reference_id if found else None
        value = stacks.member_attribute(str(self.resource_id), member, str(wanted[0]))
        return select_path(value, tuple(wanted[1:]))

    def _resolve_attribute(self, name: str) -> Any:
        if name == STACK_ID_OUTPUT and name not in self.output_names:
            return self.resource_id
        return self.child_outputs().get(name)

    def _show_resource(self) -> Any:
        return self.child_outputs()


def template_resource_class(template_name: str, template: Template,
                            source: Mapping[str, Any] | str, *,
                            defaulted: Collection[str] = ()) -> type[TemplateResource]:
    """A TemplateResource subclass whose schemas mirror ``template``'s parameters and outputs.

    As in Heat, the properties have no defaults (an unset one is not passed,
    so the child's own default applies); a parameter without a default is a
    required property unless it is among ``defaulted``, the parameters the
    environment's ``parameter_defaults`` give a value.
    """
    properties = {
        name: Schema(
            _PROPERTY_TYPES.get(param.type, Schema.ANY),
            description=param.description or "",
            required=not (param.has_default or name in defaulted),
            update_allowed=True,
        )
        for name, param in template.parameters.items()
    }
    attributes = {name: Attribute(getattr(output, "description", None) or "")
                  for name, output in template.outputs.items()}
    attributes.setdefault(STACK_ID_OUTPUT, Attribute("The nested stack's id."))
    return type("TemplateResource", (TemplateResource,), {
        "__doc__": TemplateResource.__doc__,
        "template_name": template_name,
        "template_source": source,
        "output_names": frozenset(template.outputs),
        "properties_schema": properties,
        "attributes_schema": attributes,
    })


def _delimited(items: list[Any]) -> str:
    """A list property as its comma_delimited_list parameter (an empty list is '')."""
    if items and isinstance(items[0], Mapping):
        return ",".join(f".member.{index}.{key}={value}"
                        for index, item in enumerate(items) for key, value in item.items())
    return ",".join(_list_item(item) for item in items)


def _list_item(item: Any) -> str:
    if item is None:  # an attribute not yet known: Heat passes an empty item
        return ""
    return item if isinstance(item, str) else str(item)

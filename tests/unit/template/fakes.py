"""A ResolveContext over plain dicts, and a small template builder."""

from __future__ import annotations

from typing import Any

from hotplate.template import Template, parse_template
from hotplate.template.validation import validate_functions


class FakeContext:
    def __init__(
        self,
        params: dict[str, Any] | None = None,
        refs: dict[str, str] | None = None,
        attrs: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        self.params = params or {}
        self.refs = refs or {}
        self.attrs = attrs or {}
        self.attribute_reads: list[tuple[str, str]] = []

    def parameter(self, name: str) -> Any:
        return self.params[name]

    def resource_reference(self, name: str) -> str | None:
        return self.refs.get(name)

    def resource_attribute(self, name: str, attribute: str) -> Any:
        self.attribute_reads.append((name, attribute))
        return self.attrs.get(name, {}).get(attribute)


def template_with(
    properties: Any,
    *,
    version: str = "2021-04-16",
    parameters: dict[str, Any] | None = None,
    others: tuple[str, ...] = ("db",),
    files: dict[str, str] | None = None,
) -> Template:
    """A template whose resource ``web`` has ``properties``; ``others`` exist too.

    Parsed and validated (``validate_functions``), as before a create.
    """
    resources: dict[str, Any] = {name: {"type": "OS::Heat::None"} for name in others}
    resources["web"] = {"type": "OS::Heat::None", "properties": properties}
    data: dict[str, Any] = {"heat_template_version": version, "resources": resources}
    if parameters is not None:
        data["parameters"] = parameters
    template = parse_template(data, files=files)
    validate_functions(template)
    return template


def resolve_web(properties: Any, ctx: FakeContext | None = None, **kwargs: Any) -> Any:
    template = template_with(properties, **kwargs)
    return template.resources["web"].resolve_properties(ctx or FakeContext())

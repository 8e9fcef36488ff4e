"""Small templates the scenarios share."""

from __future__ import annotations

from typing import Any

VERSION = "2021-04-16"


def tmpl(resources: dict[str, Any], outputs: dict[str, Any] | None = None,
         parameters: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"heat_template_version": VERSION, "resources": resources}
    if outputs:
        body["outputs"] = outputs
    if parameters:
        body["parameters"] = parameters
    return body


def res(value: str = "v", depends_on: Any = None, **props: Any) -> dict[str, Any]:
    res: dict[str, Any] = {"type": "OS::Heat::TestResource",
                           "properties": {"value": value, **props}}
    if depends_on:
        res["depends_on"] = depends_on
    return res


def chain(n: int, value: str = "v") -> dict[str, Any]:
    resources = {f"r{i}": res(value, depends_on=f"r{i - 1}" if i else None)
                 for i in range(n)}
    return tmpl(resources)


def app_stack(value: str = "hello", extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """A three-tier shape with get_attr and get_resource edges."""
    resources: dict[str, Any] = {
        "db": res(value),
        "app": {"type": "OS::Heat::TestResource",
                "properties": {"value": {"str_replace": {
                    "template": "app(DB)", "params": {"DB": {"get_attr": ["db", "output"]}}}}}},
        "web": {"type": "OS::Heat::TestResource",
                "properties": {"value": {"list_join": ["-", [
                    {"get_attr": ["app", "output"]}, {"get_resource": "db"}]]}}},
    }
    resources.update(extra or {})
    return tmpl(resources, outputs={"web": {"value": {"get_attr": ["web", "output"]}}})

"""Timing, not a test: parse, graph and resolve a 5,000-resource template.

Run: ``.venv/bin/python -m tests.unit.template.bench_large_template``
Each resource reads two attributes of earlier resources through get_attr
and builds a name with str_replace.
"""

from __future__ import annotations

import json
import time
from typing import Any

import yaml

from hotplate.template import parse_template, resolve_parameters
from tests.unit.template.fakes import FakeContext

COUNT = 5000


def build(count: int = COUNT) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    for i in range(count):
        a, b = f"r{max(i - 1, 0)}", f"r{i // 2}"
        properties: dict[str, Any] = {"size": {"get_param": "size"}}
        if i:
            properties.update(
                {
                    "ip": {"get_attr": [a, "ip"]},
                    "first": {"get_attr": [b, "addrs", "net", 0]},
                    "name": {
                        "str_replace": {
                            "template": "node-$i-$ip.$domain",
                            "params": {
                                "$i": i,
                                "$ip": {"get_attr": [a, "ip"]},
                                "$domain": {"get_param": "domain"},
                            },
                        }
                    },
                }
            )
        resources[f"r{i}"] = {"type": "OS::Heat::TestResource", "properties": properties}
    return {
        "heat_template_version": "2021-04-16",
        "parameters": {
            "size": {"type": "number", "default": 1},
            "domain": {"type": "string", "default": "example.org"},
        },
        "resources": resources,
    }


def timed(label: str, fn: Any) -> Any:
    start = time.perf_counter()
    result = fn()
    print(f"{label:<40} {time.perf_counter() - start:7.3f} s")
    return result


def main() -> None:
    data = build()
    text = yaml.safe_dump(data, sort_keys=False)
    size = len(json.dumps(data)) / 1e6
    print(f"{COUNT} resources, YAML {len(text) / 1e6:.1f} MB, JSON {size:.1f} MB")
    timed("parse from YAML text", lambda: parse_template(text))
    template = timed("parse from mapping", lambda: parse_template(data))
    graph = timed("dependencies()", template.dependencies)
    timed("toposort", graph.toposort)
    params = timed("resolve_parameters", lambda: resolve_parameters(template, {}))
    attrs = {"ip": "10.0.0.1", "addrs": {"net": ["10.0.0.1"]}}
    ctx = FakeContext(params=params, attrs={name: attrs for name in template.resources})

    def resolve_all() -> None:
        for definition in template.resources.values():
            definition.resolve_properties(ctx)

    timed("resolve all properties", resolve_all)
    start = time.perf_counter()
    parse = parse_template(data)
    parse.dependencies()
    for definition in parse.resources.values():
        definition.resolve_properties(ctx)
    print(f"{'total: parse + dependencies + resolve':<40} {time.perf_counter() - start:7.3f} s")


if __name__ == "__main__":
    main()

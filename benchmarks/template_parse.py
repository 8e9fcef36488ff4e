"""Time the template layer on templates of N resources; check one resource's cost stays flat.

Each resource reads two attributes of earlier resources with get_attr (one
with a path) and builds a name with str_replace from an attribute and a
parameter. Phases, per size: parse from YAML text, parse from a mapping,
the dependency graph, its toposort, parameters, and resolving every
resource's properties. Then resolving a single resource's properties
again and again: the engine does that once per resource per traversal,
so its cost must not grow with the template (the per-resource time at the
largest size is compared with the one at 1,000 resources, or the smallest
size). Prints a table and optionally writes JSON:

    python benchmarks/template_parse.py [--sizes 100,1000,5000] [--repeat 3] [--json PATH]

The exit status is 1 if resolving one resource is not flat (over 1.5x).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hotplate.template import ALL_ATTRIBUTES, parse_template, resolve_parameters

FLAT_RATIO = 1.5
ATTRIBUTES = {"ip": "10.0.0.1", "addrs": {"net": ["10.0.0.1", "10.0.0.2"]}}


def build(count: int) -> dict[str, Any]:
    """A template of ``count`` resources, each reading two earlier ones."""
    resources: dict[str, Any] = {}
    for i in range(count):
        a, b = f"r{max(i - 1, 0)}", f"r{i // 2}"
        properties: dict[str, Any] = {"size": {"get_param": "size"}}
        if i:
            properties.update({
                "ip": {"get_attr": [a, "ip"]},
                "first": {"get_attr": [b, "addrs", "net", 0]},
                "name": {"str_replace": {
                    "template": "node-$i-$ip.$domain",
                    "params": {"$i": i, "$ip": {"get_attr": [a, "ip"]},
                               "$domain": {"get_param": "domain"}},
                }},
            })
        resources[f"r{i}"] = {"type": "OS::Heat::TestResource", "properties": properties}
    return {
        "heat_template_version": "2021-04-16",
        "parameters": {"size": {"type": "number", "default": 1},
                       "domain": {"type": "string", "default": "example.org"}},
        "resources": resources,
    }


class Finished:
    """Every resource has finished and reports the same attributes."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params

    def parameter(self, name: str) -> Any:
        return self.params[name]

    def resource_reference(self, name: str) -> str | None:
        return f"{name}-id"

    def resource_attribute(self, name: str, attribute: str) -> Any:
        return dict(ATTRIBUTES) if attribute == ALL_ATTRIBUTES else ATTRIBUTES.get(attribute)


def best_of(repeat: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    """The fastest of ``repeat`` runs (the machine is shared), and the last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def one_resource_us(template: Any, ctx: Finished, calls: int = 2000) -> float:
    """Mean microseconds to resolve the middle resource's properties."""
    definition = template.resources[f"r{len(template.resources) // 2}"]
    start = time.perf_counter()
    for _ in range(calls):
        definition.resolve_properties(ctx)
    return (time.perf_counter() - start) / calls * 1e6


def run_size(count: int, repeat: int) -> dict[str, Any]:
    data = build(count)
    text = yaml.safe_dump(data, sort_keys=False)
    parse_text_s, _ = best_of(repeat, lambda: parse_template(text))
    parse_data_s, template = best_of(repeat, lambda: parse_template(data))
    graph_s, graph = best_of(repeat, template.dependencies)
    toposort_s, _ = best_of(repeat, graph.toposort)
    params_s, params = best_of(repeat, lambda: resolve_parameters(template, {}))
    ctx = Finished(params)
    resolve_s, _ = best_of(repeat, lambda: [d.resolve_properties(ctx)
                                            for d in template.resources.values()])
    one_us = min(one_resource_us(template, ctx) for _ in range(repeat))
    return {
        "resources": count,
        "yaml_mb": round(len(text) / 1e6, 2),
        "parse_text_s": round(parse_text_s, 4),
        "parse_data_s": round(parse_data_s, 4),
        "dependencies_s": round(graph_s, 4),
        "toposort_s": round(toposort_s, 4),
        "parameters_s": round(params_s, 5),
        "resolve_all_s": round(resolve_s, 4),
        "resolve_per_resource_us": round(resolve_s / count * 1e6, 1),
        "one_resource_us": round(one_us, 1),
        "total_s": round(parse_data_s + graph_s + toposort_s + params_s + resolve_s, 4),
    }


def print_table(rows: list[dict[str, Any]]) -> None:
    headers = list(rows[0])
    widths = [max(len(h), *(len(str(r[h])) for r in rows)) for h in headers]
    print("  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True)))
    for r in rows:
        print("  ".join(str(r[h]).rjust(w) for h, w in zip(headers, widths, strict=True)))


def flatness(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One resource's resolve time at the largest size against 1,000 (or the smallest)."""
    by_size = {r["resources"]: r for r in rows}
    base = by_size.get(1000) or rows[0]
    largest = max(rows, key=lambda r: r["resources"])
    ratio = largest["one_resource_us"] / base["one_resource_us"]
    return {"base_resources": base["resources"], "largest_resources": largest["resources"],
            "one_resource_ratio": round(ratio, 2), "flat": ratio <= FLAT_RATIO}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,1000,5000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args(argv)
    rows = []
    for count in (int(s) for s in args.sizes.split(",")):
        rows.append(run_size(count, args.repeat))
        print_table(rows[-1:])
        sys.stdout.flush()
    print()
    print_table(rows)
    flat = flatness(rows)
    print(f"\nresolving one resource: {flat['one_resource_ratio']}x at "
          f"{flat['largest_resources']} resources vs {flat['base_resources']} "
          f"({'flat' if flat['flat'] else 'NOT FLAT'}, limit {FLAT_RATIO}x)")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps({"rows": rows, "flatness": flat}, indent=2))
    return 0 if flat["flat"] else 1


if __name__ == "__main__":
    sys.exit(main())

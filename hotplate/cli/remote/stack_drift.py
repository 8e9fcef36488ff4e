"""``stack drift STACK``: where the stack's resources differ from its template.

Not one of ``openstack stack``'s commands: it reads hotplate's own route
(``GET .../drift``). The table has a line per differing property, and a line
for each resource that is in sync, not checked, gone or unreadable; ``-f json``
and ``-f yaml`` print the API's document as it is. A resource whose live state
could not be read is named on stderr and the exit status is 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import Any

from hotplate.cli.remote.commands import Subparsers, command, emit, emit_listing, open_client
from hotplate.cli.remote.output import Listing, add_output_options, render_document

COLUMNS = ["Resource", "Type", "Status", "Property", "Expected", "Actual"]


def drift(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        report = client.drift(client.find_stack(args.stack))
    if args.format in ("json", "yaml"):
        emit(render_document(report, args.format))
    else:
        emit_listing(args, Listing(list(COLUMNS), rows(report)))
    unreadable = [r for r in report.get("resources", []) if r.get("drift_status") == "UNKNOWN"]
    for resource in unreadable:
        print(f"ERROR: {resource.get('drift_status_reason')}", file=sys.stderr)
    return 1 if unreadable else 0


def rows(report: Mapping[str, Any]) -> list[list[Any]]:
    """A line per difference, in the resources' order, and one per resource without any."""
    by_resource: dict[str, list[Mapping[str, Any]]] = {}
    for difference in report.get("differences", []):
        by_resource.setdefault(str(difference.get("resource")), []).append(difference)
    lines: list[list[Any]] = []
    for resource in report.get("resources", []):
        name = str(resource.get("resource_name"))
        kind, status = resource.get("resource_type"), resource.get("drift_status")
        differences = by_resource.get(name, [])
        lines += [[name, kind, status, d.get("property"), d.get("expected"), d.get("actual")]
                  for d in differences]
        if not differences:
            lines.append([name, kind, status, "", "", ""])
    return lines


def register(stack: Subparsers) -> None:
    p = command(stack, "drift", drift, "Show where a stack's resources differ from its "
                                       "template, property by property (their live state).")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    add_output_options(p)

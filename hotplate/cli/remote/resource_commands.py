"""``stack resource list | show | metadata | signal | mark unhealthy``.

``resource list`` shows resource_name, physical_resource_id, resource_type,
resource_status and updated_time, plus stack_name with ``--nested-depth``
or ``--long``, as openstackclient does.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from hotplate.cli.remote.commands import (
    Subparsers,
    command,
    emit,
    emit_listing,
    emit_record,
    group,
    open_client,
)
from hotplate.cli.remote.errors import ApiError, CommandError
from hotplate.cli.remote.events_text import stack_name_of
from hotplate.cli.remote.output import Listing, Record, add_output_options, render_document
from hotplate.cli.remote.template_files import parse_parameters, read_url, to_url

LIST_COLUMNS = ["resource_name", "physical_resource_id", "resource_type", "resource_status",
                "updated_time"]


def _not_found(exc: ApiError, message: str) -> CommandError:
    return CommandError(message) if exc.missing else exc


def resource_list(args: argparse.Namespace) -> int:
    params: list[tuple[str, Any]] = []
    for key, value in parse_parameters(args.filter).items():
        params += [(key, v) for v in (value if isinstance(value, list) else [value])]
    if args.nested_depth:
        params.append(("nested_depth", args.nested_depth))
    if args.long:
        params.append(("with_detail", "True"))
    with open_client(args) as client:
        resources = client.resources(client.find_stack(args.stack), params)
    columns = list(LIST_COLUMNS)
    if args.nested_depth or args.long:
        columns.append("stack_name")
        resources = [{**r, "stack_name": stack_name_of(r)} for r in resources]
    emit_listing(args, Listing.of(columns, resources))
    return 0


def resource_show(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        ref = client.find_stack(args.stack)
        try:
            resource = client.resource(ref, args.resource, with_attr=args.with_attr or ())
        except ApiError as exc:
            raise _not_found(exc, f"Stack or resource not found: {args.stack} "
                                  f"{args.resource}")
    emit_record(args, Record.of(resource))
    return 0


def resource_metadata(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        ref = client.find_stack(args.stack)
        try:
            metadata = client.resource_metadata(ref, args.resource)
        except ApiError as exc:
            raise _not_found(exc, f"Stack {args.stack} or resource {args.resource} not found.")
    emit(render_document(metadata, args.format))
    return 0


def signal_data(args: argparse.Namespace) -> dict[str, Any] | None:
    """The JSON object from ``--data`` or ``--data-file``; None sends no data."""
    if args.data and args.data_file:
        raise CommandError("Should only specify one of data or data-file")
    text = read_url(to_url(args.data_file)) if args.data_file else args.data
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CommandError(f"Data should be in JSON format: {exc}")
    if not isinstance(data, dict):
        raise CommandError("Data should be a JSON dict")
    return data


def resource_signal(args: argparse.Namespace) -> int:
    data = signal_data(args)
    with open_client(args) as client:
        ref = client.find_stack(args.stack)
        try:
            client.signal(ref, args.resource, data)
        except ApiError as exc:
            raise _not_found(exc, f"Stack {args.stack} or resource {args.resource} not found.")
    return 0


def mark_unhealthy(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        ref = client.find_stack(args.stack)
        try:
            client.mark_unhealthy(ref, args.resource, not args.reset, args.reason)
        except ApiError as exc:
            raise _not_found(exc, f"Stack or resource not found: {args.stack} "
                                  f"{args.resource}")
    return 0


def register(stack: Subparsers) -> None:
    resources = group(stack, "resource", "Stack resources.")
    p = command(resources, "list", resource_list, "List a stack's resources.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    p.add_argument("--long", action="store_true", help="more detail on each resource")
    p.add_argument("-n", "--nested-depth", metavar="DEPTH", type=int,
                   help="depth of nested stacks whose resources to list too")
    p.add_argument("--filter", metavar="KEY=VALUE", action="append",
                   help="filter on name, status, type, action, id or physical_resource_id; "
                        "can be repeated")
    add_output_options(p)

    p = command(resources, "show", resource_show, "Show a stack resource.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    p.add_argument("resource", metavar="RESOURCE", help="name of the resource")
    p.add_argument("--with-attr", metavar="ATTRIBUTE", action="append",
                   help="an attribute to show; can be repeated")
    add_output_options(p)

    p = command(resources, "metadata", resource_metadata, "Show a resource's metadata.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    p.add_argument("resource", metavar="RESOURCE", help="name of the resource")
    p.add_argument("-f", "--format", choices=("json", "yaml"), default="json",
                   help="the output format (default: json)")

    p = command(resources, "signal", resource_signal, "Signal a resource, with data or not.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    p.add_argument("resource", metavar="RESOURCE", help="name of the resource")
    p.add_argument("--data", metavar="JSON", help="JSON data for the signal handler")
    p.add_argument("--data-file", metavar="FILE", help="a file with the JSON data")

    mark = group(resources, "mark", "Mark a resource.")
    p = command(mark, "unhealthy", mark_unhealthy, "Mark a resource unhealthy (or healthy).")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    p.add_argument("resource", metavar="RESOURCE", help="name of the resource")
    p.add_argument("reason", metavar="REASON", nargs="?", default="",
                   help="why its state changes")
    p.add_argument("--reset", action="store_true", help="mark the resource healthy again")

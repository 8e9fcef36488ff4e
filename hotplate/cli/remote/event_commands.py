"""``stack event list | show``; ``event list --follow`` tails a stack's events.

Events print as heatclient's log lines by default (``-f log``); as a table
their columns are resource_name, id, resource_status,
resource_status_reason, event_time, physical_resource_id (stack_name with
``--nested-depth``) and logical_resource_id.
"""

from __future__ import annotations

import argparse
import signal
import threading
import time
from typing import TYPE_CHECKING, Any

from hotplate.cli.remote.commands import (
    DEFAULT_POLL,
    Subparsers,
    command,
    emit,
    emit_listing,
    emit_record,
    group,
    open_client,
)
from hotplate.cli.remote.errors import CommandError
from hotplate.cli.remote.events_text import EventNames, log_lines, stack_name_of
from hotplate.cli.remote.output import FORMATS, Listing, Record, add_output_options, sort_items
from hotplate.cli.remote.stack_ref import StackRef
from hotplate.cli.remote.template_files import parse_parameters

if TYPE_CHECKING:
    from hotplate.cli.remote.client import HeatClient

TABLE_COLUMNS = ["resource_name", "id", "resource_status", "resource_status_reason",
                 "event_time", "physical_resource_id", "logical_resource_id"]


def event_query(args: argparse.Namespace) -> tuple[list[tuple[str, Any]], str | None]:
    """The query for ``event list`` and the client-side sort it implies."""
    query: list[tuple[str, Any]] = []
    for key, value in parse_parameters(args.filter).items():
        query += [(key, v) for v in (value if isinstance(value, list) else [value])]
    sort_dir = "asc"
    sorts: list[str] = []
    for spec in args.sort or ():
        key, _, direction = spec.partition(":")
        sorts.append(f"{key or 'event_time'}:{direction}" if direction else key)
        if key:
            query.append(("sort_keys", key))
    if args.sort and ":" in args.sort[0]:
        sort_dir = args.sort[0].split(":", 1)[1] or "asc"
    query.append(("sort_dir", sort_dir))
    if args.nested_depth:
        query.append(("nested_depth", args.nested_depth))
    return query, ",".join(sorts) or None


def _fetch(client: HeatClient, ref: StackRef, args: argparse.Namespace,
           query: list[tuple[str, Any]], marker: str | None,
           limit: int | None) -> list[dict[str, Any]]:
    params = list(query)
    if marker:
        params.append(("marker", marker))
    if limit:
        params.append(("limit", limit))
    return client.events(ref, params, resource=args.resource)


def follow(client: HeatClient, ref: StackRef, args: argparse.Namespace,
           query: list[tuple[str, Any]]) -> int:
    """Print new events as they come, until Ctrl-C (or ``--follow-timeout``).

    Ctrl-C only asks the loop to stop: an interrupt raised in the middle of a
    request could leave the HTTP client's connection pool locked, and the command
    would then hang closing it.
    """
    names = EventNames()
    marker = args.marker
    deadline = time.monotonic() + args.follow_timeout if args.follow_timeout else None
    stop = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        while not stop.is_set() and (deadline is None or time.monotonic() < deadline):
            events = _fetch(client, ref, args, query, marker, None)
            if events and not stop.is_set():
                marker = str(events[-1]["id"])
                emit(log_lines(events, names))
            stop.wait(args.poll)
    finally:
        signal.signal(signal.SIGINT, previous)
    return 0


def event_list(args: argparse.Namespace) -> int:
    if args.resource and args.nested_depth:
        raise CommandError("--nested-depth cannot be specified with --resource")
    if args.follow and args.format != "log":
        raise CommandError("--follow can only be specified with --format log")
    query, sort_spec = event_query(args)
    with open_client(args) as client:
        ref = client.find_stack(args.stack)
        if args.follow:
            return follow(client, ref, args, query)
        events = _fetch(client, ref, args, query, args.marker, args.limit)
    events = sort_items(events, sort_spec)
    if args.format == "log":
        emit(log_lines(events))
        return 0
    columns = list(TABLE_COLUMNS)
    if args.nested_depth:
        columns.insert(-1, "stack_name")
        events = [{**e, "stack_name": stack_name_of(e)} for e in events]
    emit_listing(args, Listing.of(columns, events))
    return 0


def event_show(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        event = client.event(client.find_stack(args.stack), args.resource, args.event)
    if args.format == "table":
        event["links"] = "\n".join(f"{link.get('href', '')} ({link.get('rel', '')})"
                                   for link in event.get("links") or ())
    emit_record(args, Record.of(event, list(event)))
    return 0


def register(stack: Subparsers) -> None:
    events = group(stack, "event", "Stack events.")
    p = command(events, "list", event_list, "List a stack's events.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    p.add_argument("--resource", metavar="RESOURCE",
                   help="only this resource's events (not with --nested-depth)")
    p.add_argument("--filter", metavar="KEY=VALUE", action="append",
                   help="filter on resource_status, resource_action, resource_name or "
                        "resource_type; can be repeated")
    p.add_argument("--limit", metavar="N", type=int, help="the number of events to return")
    p.add_argument("--marker", metavar="ID", help="start after the event with this ID")
    p.add_argument("--nested-depth", metavar="DEPTH", type=int,
                   help="depth of nested stacks whose events to list too")
    p.add_argument("--sort", metavar="KEY[:DIRECTION]", action="append",
                   help="sort by a key and direction (asc, desc); can be repeated")
    p.add_argument("--follow", action="store_true",
                   help="keep printing new events until interrupted (Ctrl-C)")
    p.add_argument("--poll", metavar="SECONDS", type=float, default=DEFAULT_POLL,
                   help=f"seconds between checks with --follow (default: {DEFAULT_POLL:g})")
    p.add_argument("--follow-timeout", type=float, help=argparse.SUPPRESS)
    add_output_options(p, default="log", formats=("log", *FORMATS))

    p = command(events, "show", event_show, "Show an event's details.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    p.add_argument("resource", metavar="RESOURCE", help="the resource the event is about")
    p.add_argument("event", metavar="EVENT", help="ID of the event")
    add_output_options(p)

"""``stack snapshot create | list | show | restore | delete``, as openstackclient has them.

A snapshot is taken in the background (the stack goes SNAPSHOT_IN_PROGRESS);
``create --wait`` follows it until the snapshot is COMPLETE or FAILED, and
``restore --wait`` follows the stack's RESTORE like any other action, so a script
can chain them without polling by hand.
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

from hotplate.cli.remote.commands import (
    Subparsers,
    add_wait_options,
    command,
    emit_listing,
    emit_record,
    group,
    open_client,
    progress_stream,
)
from hotplate.cli.remote.errors import CommandError
from hotplate.cli.remote.output import Listing, Record, add_output_options
from hotplate.cli.remote.waiting import newest_event_id, wait_for_stack

if TYPE_CHECKING:
    from hotplate.cli.remote.client import HeatClient
    from hotplate.cli.remote.stack_ref import StackRef

COLUMNS = ["ID", "Name", "Status", "Status Reason", "Creation Time"]
FIELDS = ["id", "name", "status", "status_reason", "creation_time", "data"]


def _path(ref: StackRef, snapshot_id: str | None = None) -> str:
    return ref.path + "/snapshots" + (f"/{snapshot_id}" if snapshot_id else "")


def _snapshot(client: HeatClient, ref: StackRef, snapshot_id: str) -> dict[str, Any]:
    return dict(client.call("GET", _path(ref, snapshot_id))["snapshot"])


def create(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        ref = client.find_stack(args.stack)
        body = {"name": args.name} if args.name else {}
        made = dict(client.call("POST", _path(ref), body=body))
        if args.wait:
            made = _settled(client, ref, str(made["id"]), args.poll)
            if made.get("status") == "FAILED":
                raise CommandError(f"Snapshot {made['id']} of stack {ref.name} FAILED: "
                                   f"{made.get('status_reason') or ''}".rstrip(": "))
    emit_record(args, Record.of(made, FIELDS))
    return 0


def _settled(client: HeatClient, ref: StackRef, snapshot_id: str, poll: float,
             ) -> dict[str, Any]:
    while True:
        found = _snapshot(client, ref, snapshot_id)
        if found.get("status") != "IN_PROGRESS":
            return found
        time.sleep(poll)


def list_snapshots(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        found = client.call("GET", _path(client.find_stack(args.stack)))["snapshots"]
    emit_listing(args, Listing.of(COLUMNS, found))
    return 0


def show(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        found = _snapshot(client, client.find_stack(args.stack), args.snapshot)
    emit_record(args, Record.of(found, FIELDS))
    return 0


def restore(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        ref = client.find_stack(args.stack)
        marker = newest_event_id(client, ref) if args.wait else None
        client.request("POST", _path(ref, args.snapshot) + "/restore")
        if args.wait:
            outcome = wait_for_stack(client, ref, progress_stream(args), action="RESTORE",
                                     marker=marker, poll=args.poll)
            if outcome.failed:
                raise CommandError(f"Stack {ref.name} {outcome.status}"
                                   + (f": {outcome.reason}" if outcome.reason else ""))
    return 0


def delete(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        ref = client.find_stack(args.stack)
        for snapshot_id in args.snapshot:
            client.request("DELETE", _path(ref, snapshot_id))
    return 0


def register(stack: Subparsers) -> None:
    snapshots = group(stack, "snapshot", "Stack snapshots.")
    p = command(snapshots, "create", create, "Take a snapshot of a stack.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    p.add_argument("--name", help="the snapshot's name")
    add_wait_options(p, "snapshot")
    add_output_options(p)
    p = command(snapshots, "list", list_snapshots, "List a stack's snapshots.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    add_output_options(p)
    p = command(snapshots, "show", show, "Show a snapshot, its data included.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    p.add_argument("snapshot", metavar="SNAPSHOT", help="ID of the snapshot")
    add_output_options(p, default="yaml")
    p = command(snapshots, "restore", restore, "Restore a stack to one of its snapshots.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    p.add_argument("snapshot", metavar="SNAPSHOT", help="ID of the snapshot")
    add_wait_options(p, "restore")
    p = command(snapshots, "delete", delete, "Delete snapshots of a stack.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    p.add_argument("snapshot", metavar="SNAPSHOT", nargs="+", help="ID(s) of the snapshot(s)")

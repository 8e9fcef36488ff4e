"""``stack suspend | resume | check | cancel`` and ``stack hook clear | poll``.

Actions are ``POST .../actions`` with one key; each command takes several
stacks and prints them afterwards (ID, Stack Name, Stack Status, Creation
Time, Updated Time), as openstackclient does. ``cancel`` checks the status
first, as openstackclient does: with rollback only an update can be
cancelled, ``--no-rollback`` also stops a create.

Hooks are cleared by signalling the paused resource with
``{"unset_hook": "pre-create"}``; which hook is pending is read from the
stack's events (``CREATE paused until Hook pre-create is cleared``).
"""

from __future__ import annotations

import argparse
import fnmatch
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hotplate.cli.remote.commands import (
    Subparsers,
    add_wait_options,
    command,
    emit_listing,
    group,
    open_client,
    progress_stream,
)
from hotplate.cli.remote.errors import CommandError
from hotplate.cli.remote.output import Listing, add_output_options
from hotplate.cli.remote.stack_ref import StackRef
from hotplate.cli.remote.waiting import newest_event_id, wait_for_stack

if TYPE_CHECKING:
    from hotplate.cli.remote.client import HeatClient

COLUMNS = ["ID", "Stack Name", "Stack Status", "Creation Time", "Updated Time"]
ACTIONS = {"suspend": "SUSPEND", "resume": "RESUME", "check": "CHECK"}
HOOK_EVENTS = {  # hook -> (the stack's start reason, paused reason, cleared reason)
    "pre-create": ("Stack CREATE started", "CREATE paused until Hook pre-create is cleared",
                   "Hook pre-create is cleared"),
    "pre-update": ("Stack UPDATE started", "UPDATE paused until Hook pre-update is cleared",
                   "Hook pre-update is cleared"),
    "pre-delete": ("Stack DELETE started", "DELETE paused until Hook pre-delete is cleared",
                   "Hook pre-delete is cleared"),
}


def _act(client: HeatClient, name: str, args: argparse.Namespace, action: str,
         waited_for: str | None) -> dict[str, Any]:
    """Post one action to one stack (and follow it with --wait); the stack afterwards."""
    ref = client.find_stack(name)
    marker = newest_event_id(client, ref) if args.wait else None
    client.stack_action(ref, action)
    if args.wait:
        outcome = wait_for_stack(client, ref, progress_stream(args), action=waited_for,
                                 marker=marker, poll=args.poll)
        if outcome.failed:
            raise CommandError(f"Stack {ref.name} {outcome.status}"
                               + (f": {outcome.reason}" if outcome.reason else ""))
    return client.get_stack(ref, resolve_outputs=False)


def run_action(args: argparse.Namespace) -> int:
    rows: list[dict[str, Any]] = []
    with open_client(args) as client:
        for name in args.stack:
            rows.append(_act(client, name, args, args.action, ACTIONS[args.action]))
    emit_listing(args, Listing.of(COLUMNS, rows))
    return 0


def cancel(args: argparse.Namespace) -> int:
    allowed: tuple[str, ...] = ("UPDATE_IN_PROGRESS",)
    action = "cancel_update"
    if args.no_rollback:
        action, allowed = "cancel_without_rollback", ("CREATE_IN_PROGRESS", *allowed)
    rows: list[dict[str, Any]] = []
    with open_client(args) as client:
        for name in args.stack:
            status = str(client.get_stack(client.find_stack(name), resolve_outputs=False)
                         .get("stack_status"))
            if status not in allowed:
                raise CommandError(f"Stack {name} with status '{status.lower()}' not in "
                                   "cancelable state")
            rows.append(_act(client, name, args, action, None))
    emit_listing(args, Listing.of(COLUMNS, rows))
    return 0


# -- hooks ----------------------------------------------------------------------------
def hook_type_from_status(client: HeatClient, ref: StackRef) -> str:
    status = str(client.get_stack(ref, resolve_outputs=False).get("stack_status"))
    if "IN_PROGRESS" not in status:
        raise CommandError(f"Stack status {status} not IN_PROGRESS")
    for action, hook in (("CREATE", "pre-create"), ("UPDATE", "pre-update"),
                         ("DELETE", "pre-delete")):
        if action in status:
            return hook
    raise CommandError(f"Unexpected stack status {status}, only create, update and delete "
                       "supported")


def _clear(client: HeatClient, ref: StackRef, stack_patterns: Sequence[str], pattern: str,
           hook: str) -> int:
    """Clear ``hook`` on matching resources, descending into matching nested stacks."""
    cleared = 0
    for res in client.resources(ref):
        name = str(res.get("resource_name"))
        if stack_patterns:
            if fnmatch.fnmatchcase(name, stack_patterns[0]):
                nested = client.resource(ref, name).get("physical_resource_id")
                if nested:
                    cleared += _clear(client, client.find_stack(str(nested)),
                                      stack_patterns[1:], pattern, hook)
        elif fnmatch.fnmatchcase(name, pattern):
            client.signal(ref, name, {"unset_hook": hook})
            cleared += 1
    return cleared


def hook_clear(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        ref = client.find_stack(args.stack)
        hook = ("pre-create" if args.pre_create else "pre-update" if args.pre_update
                else "pre-delete" if args.pre_delete else hook_type_from_status(client, ref))
        for declaration in args.hook:
            path = [p for p in declaration.split("/") if p]
            if not path:
                raise CommandError(f"invalid resource name {declaration!r}")
            if not _clear(client, ref, path[:-1], path[-1], hook):
                raise CommandError(f"No resource matches {declaration} in stack {args.stack}")
    return 0


def pending_hooks(events: Sequence[Mapping[str, Any]], stack_name: str, hook: str
                  ) -> list[Mapping[str, Any]]:
    """Events of resources paused at ``hook`` since the stack's action began, not cleared."""
    started, paused, cleared = HOOK_EVENTS[hook]
    starts = [i for i, e in enumerate(events) if e.get("resource_status_reason") == started
              and e.get("resource_name") == stack_name]
    pending: dict[str, Mapping[str, Any]] = {}
    for event in events[starts[-1] if starts else 0:]:
        name = str(event.get("resource_name"))
        if event.get("resource_status_reason") == paused:
            pending[name] = event
        elif event.get("resource_status_reason") == cleared:
            pending.pop(name, None)
    return list(pending.values())


def hook_poll(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        ref = client.find_stack(args.stack)
        hook = hook_type_from_status(client, ref)
        events = client.events(ref, {"sort_dir": "asc"})
    columns = ["Resource Name", "ID", "Resource Status Reason", "Resource Status",
               "Event Time"]
    emit_listing(args, Listing.of(columns, pending_hooks(events, ref.name, hook)))
    return 0


def register(stack: Subparsers) -> None:
    for name, what in (("suspend", "Suspend"), ("resume", "Resume"), ("check", "Check")):
        p = command(stack, name, run_action, f"{what} stack(s).")
        p.add_argument("stack", metavar="STACK", nargs="+", help="stack(s) (name or ID)")
        add_wait_options(p, name)
        add_output_options(p)
        p.set_defaults(action=name)

    p = command(stack, "cancel", cancel, "Cancel the current update (or create) of stack(s).")
    p.add_argument("stack", metavar="STACK", nargs="+", help="stack(s) (name or ID)")
    p.add_argument("--no-rollback", action="store_true", help="cancel without rollback")
    add_wait_options(p, "cancel")
    add_output_options(p)

    hooks = group(stack, "hook", "Resource hooks (breakpoints).")
    p = command(hooks, "clear", hook_clear, "Clear resource hooks on a stack.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    p.add_argument("hook", metavar="RESOURCE", nargs="+",
                   help="resources whose hook to clear (nested/resource, wildcards)")
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--pre-create", action="store_true", help="clear the pre-create hooks")
    kind.add_argument("--pre-update", action="store_true", help="clear the pre-update hooks")
    kind.add_argument("--pre-delete", action="store_true", help="clear the pre-delete hooks")
    p = command(hooks, "poll", hook_poll, "List the resources paused at a hook.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    add_output_options(p)

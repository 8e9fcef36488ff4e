"""``stack create | update | preview | adopt | delete | abandon``: commands that change stacks.

Options and request bodies follow openstackclient's heat plugin: ``-t``
template, repeatable ``-e`` environments, ``--parameter KEY=VALUE`` and
``--parameter-file KEY=FILE``, ``--tags``, ``--timeout`` (minutes),
rollback disabled unless asked for; ``update --existing`` sends a PATCH
that keeps what the request leaves out; ``update --dry-run`` prints the
update's plan (:mod:`.plan_text`). ``--wait`` follows the stack
(:mod:`.waiting`) and exits 1 if the action failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

import yaml

from hotplate.cli.remote import template_files as tf
from hotplate.cli.remote.commands import (
    Subparsers,
    add_wait_options,
    command,
    emit_record,
    open_client,
    progress_stream,
)
from hotplate.cli.remote.errors import ApiError, CommandError
from hotplate.cli.remote.output import Record, add_output_options
from hotplate.cli.remote.plan_text import plan_lines
from hotplate.cli.remote.stack_ref import StackRef
from hotplate.cli.remote.waiting import newest_event_id, wait_for_stack

if TYPE_CHECKING:
    from hotplate.cli.remote.client import HeatClient

SHORT_FIELDS = ("id", "stack_name", "description", "creation_time", "updated_time",
                "stack_status", "stack_status_reason")


# -- request bodies ----------------------------------------------------------------
def stack_fields(args: argparse.Namespace, *, hook: str) -> dict[str, Any]:
    """Template, files, environment and parameters, as heatclient puts them in a body."""
    files: dict[str, str] = {}
    template: dict[str, Any] | None = None
    if args.template:
        files, template = tf.load_template(args.template)
    elif not getattr(args, "existing", False):
        raise CommandError("Need to specify exactly one of [--template-file, --template-url "
                           "or --template-object] or --existing")
    env_files, env, env_urls = tf.load_environments(args.environment or ())
    params = tf.parse_parameters(args.parameter)
    params.update(tf.parameter_files(args.parameter_file, args.template))
    hooks = getattr(args, hook.replace("-", "_"), None)
    if hooks:
        tf.add_hooks(env, hooks, hook)
    fields: dict[str, Any] = {"parameters": params, "template": template,
                              "files": {**files, **env_files}, "environment": env}
    if env_urls:
        fields["environment_files"] = env_urls
    if args.tags:
        fields["tags"] = args.tags
    if args.timeout:
        fields["timeout_mins"] = args.timeout
    return fields


def _add_template_options(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument("-t", "--template", metavar="TEMPLATE", required=required,
                        help="path to the template")
    parser.add_argument("-e", "--environment", metavar="ENVIRONMENT", action="append",
                        help="path to an environment; can be repeated, later ones win")
    parser.add_argument("--parameter", metavar="KEY=VALUE", action="append",
                        help="a parameter value; can be repeated")
    parser.add_argument("--parameter-file", metavar="KEY=FILE", action="append",
                        help="a parameter whose value is the file's content; can be repeated")
    parser.add_argument("--tags", metavar="TAG1,TAG2...", help="tags of the stack")
    parser.add_argument("--timeout", metavar="MINUTES", type=int,
                        help="the stack's timeout in minutes")


def _show_short(client: HeatClient, ref: StackRef, args: argparse.Namespace) -> None:
    emit_record(args, Record.of(client.get_stack(ref, resolve_outputs=False), SHORT_FIELDS))


def _wait(client: HeatClient, ref: StackRef, args: argparse.Namespace, action: str,
          marker: str | None) -> str | None:
    """Follow the stack; the failure message when the action failed, else None."""
    outcome = wait_for_stack(client, ref, progress_stream(args), action=action, marker=marker,
                             poll=args.poll)
    if not outcome.failed:
        return None
    status = outcome.status or f"{action}_FAILED"
    return f"Stack {ref.name} {status}" + (f": {outcome.reason}" if outcome.reason else "")


def _finish(client: HeatClient, ref: StackRef, args: argparse.Namespace,
            failure: str | None) -> int:
    _show_short(client, ref, args)
    if failure:
        raise CommandError(failure)
    return 0


# -- create, preview ------------------------------------------------------------------
def _rollback_disabled(args: argparse.Namespace) -> bool:
    return not (args.enable_rollback or args.rollback == "enabled")


def create(args: argparse.Namespace) -> int:
    fields = stack_fields(args, hook="pre-create")
    fields = {"stack_name": args.name, "disable_rollback": _rollback_disabled(args), **fields}
    with open_client(args) as client:
        if args.dry_run:
            emit_record(args, Record.of(client.preview_stack(fields)))
            return 0
        created = client.create_stack(fields)
        ref = StackRef(args.name, str(created["id"]))
        failure = _wait(client, ref, args, "CREATE", None) if args.wait else None
        return _finish(client, ref, args, failure)


def preview(args: argparse.Namespace) -> int:
    fields = stack_fields(args, hook="pre-create")
    fields = {"stack_name": args.name, "disable_rollback": _rollback_disabled(args), **fields}
    with open_client(args) as client:
        emit_record(args, Record.of(client.preview_stack(fields)))
    return 0


# -- update ---------------------------------------------------------------------------
def update(args: argparse.Namespace) -> int:
    fields = stack_fields(args, hook="pre-update")
    if args.clear_parameter:
        fields["clear_parameters"] = list(args.clear_parameter)
    if args.rollback != "keep":
        fields["disable_rollback"] = args.rollback == "disabled"
    if args.converge:
        fields["converge"] = True
    with open_client(args) as client:
        ref = client.find_stack(args.stack)
        if args.dry_run:
            return _plan(client, ref, fields, args)
        marker = newest_event_id(client, ref) if args.wait else None
        client.update_stack(ref, fields, patch=args.existing)
        failure = _wait(client, ref, args, "UPDATE", marker) if args.wait else None
        return _finish(client, ref, args, failure)


def _plan(client: HeatClient, ref: StackRef, fields: dict[str, Any],
          args: argparse.Namespace) -> int:
    """The update's plan, resource by resource; as data (Heat's lists and the detail)
    in any format but the table."""
    body = client.preview_update(ref, fields, patch=args.existing,
                                 show_nested=args.show_nested)
    if args.format != "table":
        emit_record(args, Record.of(body, ["resource_changes", "resource_changes_detail"]))
        return 0
    print(f"Stack {ref.name}: what the update would do")
    print()
    for line in plan_lines(body.get("resource_changes_detail") or ()):
        print(line)
    return 0


# -- adopt, abandon -------------------------------------------------------------------
def adopt(args: argparse.Namespace) -> int:
    data_text = tf.read_url(tf.to_url(args.adopt_file))
    try:
        data = tf.load_yaml(data_text)
    except yaml.YAMLError as exc:
        raise CommandError(f"Error parsing adopt data {args.adopt_file}: {exc}")
    if not isinstance(data, dict):
        raise CommandError(f"Error parsing adopt data {args.adopt_file}: not a mapping")
    env_files, env, _ = tf.load_environments(args.environment or ())
    files = dict(data.get("files") or {})
    files.update(env_files)
    fields: dict[str, Any] = {
        "stack_name": args.name, "disable_rollback": not args.enable_rollback,
        "adopt_stack_data": data_text, "parameters": tf.parse_parameters(args.parameter),
        "files": files, "environment": env,
    }
    if args.timeout:
        fields["timeout_mins"] = args.timeout
    with open_client(args) as client:
        created = client.create_stack(fields)
        ref = StackRef(args.name, str(created["id"]))
        failure = _wait(client, ref, args, "ADOPT", None) if args.wait else None
        return _finish(client, ref, args, failure)


def abandon(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        document = client.abandon_stack(client.find_stack(args.stack))
    if args.output_file:
        try:
            with open(args.output_file, "w") as out:
                json.dump(document, out, indent=2)
        except OSError as exc:
            raise CommandError(str(exc))
        return 0
    emit_record(args, Record.of(document, list(document)))
    return 0


# -- delete ---------------------------------------------------------------------------
def _confirmed(args: argparse.Namespace) -> bool:
    if args.yes or not sys.stdin.isatty():
        return True
    try:
        answer = input("Are you sure you want to delete this stack(s) [y/N]? ")
    except (EOFError, KeyboardInterrupt):
        return False
    return answer.strip().lower().startswith("y")


def delete(args: argparse.Namespace) -> int:
    if not _confirmed(args):
        return 0
    failures = 0
    started: list[tuple[StackRef, str | None]] = []
    with open_client(args) as client:
        for name in args.stack:
            try:
                ref = client.find_stack(name)
                marker = newest_event_id(client, ref) if args.wait else None
                client.delete_stack(ref)
                started.append((ref, marker))
            except ApiError as exc:
                failures += 1
                print(exc.message, file=sys.stderr)
        for ref, marker in started if args.wait else ():
            failure = _wait(client, ref, args, "DELETE", marker)
            if failure:
                failures += 1
                print(failure, file=sys.stderr)
    if failures:
        raise CommandError(f"Unable to delete {failures} of the {len(args.stack)} stacks.")
    return 0


# -- the parsers ----------------------------------------------------------------------
def register(stack: Subparsers) -> None:
    p = command(stack, "create", create, "Create a stack.")
    p.add_argument("name", metavar="STACK_NAME", help="name of the stack to create")
    _add_template_options(p, required=True)
    p.add_argument("--pre-create", metavar="RESOURCE", action="append",
                   help="set a pre-create hook on a resource (nested/resource, wildcards); "
                        "can be repeated")
    _add_rollback_choice(p)
    p.add_argument("--dry-run", action="store_true",
                   help="do not create the stack, show what would be created")
    add_wait_options(p, "create")
    add_output_options(p)

    p = command(stack, "update", update, "Update a stack.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack to update")
    _add_template_options(p, required=False)
    p.add_argument("--pre-update", metavar="RESOURCE", action="append",
                   help="set a pre-update hook on a resource; can be repeated")
    p.add_argument("--rollback", choices=("enabled", "disabled", "keep"), default="keep",
                   help="rollback on update failure (default: keep the stack's setting)")
    p.add_argument("--existing", action="store_true",
                   help="re-use the stack's template, parameters and environment where "
                        "this update gives none")
    p.add_argument("--clear-parameter", metavar="PARAMETER", action="append",
                   help="drop a parameter's value so its default applies; can be repeated")
    p.add_argument("--converge", action="store_true", help="update with observe on reality")
    p.add_argument("--dry-run", action="store_true",
                   help="do not update the stack, print its plan: what would change, "
                        "resource by resource, nested stacks included")
    p.add_argument("--show-nested", action="store_true",
                   help="with --dry-run and a data format (-f json|yaml|value), Heat's "
                        "lists hold the nested stacks' resources too")
    add_wait_options(p, "update")
    add_output_options(p)

    p = command(stack, "preview", preview, "Preview a stack: what a create would make.")
    p.add_argument("name", metavar="STACK_NAME", help="name of the stack to preview")
    _add_template_options(p, required=True)
    _add_rollback_choice(p)
    add_output_options(p)

    p = command(stack, "adopt", adopt, "Adopt a stack from the data `stack abandon` wrote.")
    p.add_argument("name", metavar="STACK_NAME", help="name of the stack to adopt")
    p.add_argument("--adopt-file", metavar="FILE", required=True,
                   help="path to the adopt data (an abandon document)")
    p.add_argument("-e", "--environment", metavar="ENVIRONMENT", action="append",
                   help="path to an environment; can be repeated")
    p.add_argument("--parameter", metavar="KEY=VALUE", action="append",
                   help="a parameter value; can be repeated")
    p.add_argument("--timeout", metavar="MINUTES", type=int, help="timeout in minutes")
    p.add_argument("--enable-rollback", action="store_true",
                   help="roll back if the adoption fails")
    add_wait_options(p, "adoption")
    add_output_options(p)

    p = command(stack, "abandon", abandon,
                "Abandon a stack: forget it but keep its resources, print its data.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack to abandon")
    p.add_argument("--output-file", metavar="FILE", help="write the data to this file")
    add_output_options(p, default="json")

    p = command(stack, "delete", delete, "Delete stack(s).")
    p.add_argument("stack", metavar="STACK", nargs="+", help="stack(s) to delete (name or ID)")
    p.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    add_wait_options(p, "delete")


def _add_rollback_choice(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--enable-rollback", action="store_true",
                        help="roll back if the create fails (default: no rollback)")
    parser.add_argument("--rollback", choices=("enabled", "disabled"), default="disabled",
                        help="the same as --enable-rollback when enabled")

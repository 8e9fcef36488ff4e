"""``stack show | list``, ``stack output``, ``stack template | environment | file``: reads.

Columns and fields are those openstackclient's heat plugin prints: ``stack
list`` shows ID, Stack Name, (Project for admins), Stack Status, Creation
Time, Updated Time; ``stack show`` starts with id, stack_name, description,
times and status, then parameters, outputs, links and the rest.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
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
from hotplate.cli.remote.output import (
    Listing,
    Record,
    add_output_options,
    render_document,
    sort_items,
)
from hotplate.cli.remote.template_files import parse_parameters

SHOW_FIRST = ("id", "stack_name", "description", "creation_time", "updated_time",
              "stack_status", "stack_status_reason")
SHOW_HIDDEN = ("template_description",)
LIST_COLUMNS = ["ID", "Stack Name", "Stack Status", "Creation Time", "Updated Time"]
TAG_MODES = {"any": "tags_any", "not": "not_tags", "not-any": "not_tags_any"}


def show(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        ref = client.find_stack(args.stack)
        stack = client.get_stack(ref, resolve_outputs=not args.no_resolve_outputs)
    fields = [*SHOW_FIRST, "parameters"]
    if not args.no_resolve_outputs:
        fields.append("outputs")
    fields.append("links")
    fields += [k for k in stack if k not in fields and k not in SHOW_HIDDEN]
    emit_record(args, Record.of(stack, fields))
    return 0


# -- list -----------------------------------------------------------------------------
def list_columns(args: argparse.Namespace, stacks: Sequence[Mapping[str, Any]]) -> list[str]:
    columns = list(LIST_COLUMNS)
    if args.short:
        columns = columns[:3]
    if args.long:
        columns.insert(2, "Stack Owner")
    if args.nested:
        columns.append("Parent")
    if args.deleted:
        columns.append("Deletion Time")
    if any("project" in s for s in stacks):
        columns.insert(2, "Project")
    return columns


def list_stacks(args: argparse.Namespace) -> int:
    params: dict[str, Any] = dict(parse_parameters(args.properties))
    params.update({"marker": args.marker, "show_deleted": args.deleted,
                   "show_nested": args.nested, "show_hidden": args.hidden,
                   "global_tenant": args.all_projects or args.long})
    if args.tags:
        if args.tag_mode and args.tag_mode not in TAG_MODES:
            raise CommandError('tag mode must be one of "any", "not", "not-any"')
        params[TAG_MODES.get(args.tag_mode or "", "tags")] = args.tags
    for flag in ("show_deleted", "show_nested", "show_hidden", "global_tenant"):
        params[flag] = "True" if params[flag] else None
    with open_client(args) as client:
        stacks = client.list_stacks(params, limit=args.limit)
    stacks = sort_items(stacks, args.sort)
    emit_listing(args, Listing.of(list_columns(args, stacks), stacks))
    return 0


# -- outputs --------------------------------------------------------------------------
def output_list(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        outputs = client.outputs(client.find_stack(args.stack))
    emit_listing(args, Listing.of(["output_key", "description"], outputs))
    return 0


def output_show(args: argparse.Namespace) -> int:
    if not args.all and args.output is None:
        raise CommandError("Either <OUTPUT NAME> or --all must be specified.")
    if args.all and args.output is not None:
        raise CommandError("Cannot specify both <OUTPUT NAME> and --all.")
    with open_client(args) as client:
        ref = client.find_stack(args.stack)
        if args.all:
            outputs = client.get_stack(ref).get("outputs") or []
            emit_record(args, Record([o["output_key"] for o in outputs], list(outputs)))
            return 0
        try:
            output = client.output(ref, args.output)
        except ApiError as exc:
            if not exc.missing:
                raise
            raise CommandError(f"Stack {args.stack} or output {args.output} not found.")
    if "output_error" in output:
        raise CommandError(f"Output error: {output['output_error']}")
    emit_record(args, Record.of(output))
    return 0


# -- documents ------------------------------------------------------------------------
def template_show(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        emit(render_document(client.template(client.find_stack(args.stack)), args.format))
    return 0


def environment_show(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        env = client.environment(client.find_stack(args.stack))
    shown = {k: env[k] for k in ("parameters", "resource_registry", "parameter_defaults")
             if k in env}
    emit(render_document(shown, args.format))
    return 0


def file_list(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        files = client.files(client.find_stack(args.stack))
    emit(render_document({"files": files}, args.format))
    return 0


def _document_format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-f", "--format", choices=("yaml", "json"), default="yaml",
                        help="the output format (default: yaml)")


def register(stack: Subparsers) -> None:
    p = command(stack, "show", show, "Show a stack's details.")
    p.add_argument("stack", metavar="STACK", help="stack to display (name or ID)")
    p.add_argument("--no-resolve-outputs", action="store_true",
                   help="do not resolve the stack's outputs")
    add_output_options(p)

    p = command(stack, "list", list_stacks, "List stacks.")
    p.add_argument("--deleted", action="store_true", help="include soft-deleted stacks")
    p.add_argument("--nested", action="store_true", help="include nested stacks")
    p.add_argument("--hidden", action="store_true", help="include hidden stacks")
    p.add_argument("--property", "--filter", dest="properties", metavar="KEY=VALUE",
                   action="append", help="filter on a property (name, status, ...); "
                                         "can be repeated")
    p.add_argument("--tags", metavar="TAG1,TAG2...", help="tags to filter by")
    p.add_argument("--tag-mode", metavar="MODE",
                   help='how to combine --tags: "any", "not" or "not-any" (default: all)')
    p.add_argument("--limit", metavar="N", type=int, help="the number of stacks to return")
    p.add_argument("--marker", metavar="ID", help="start after the stack with this ID")
    p.add_argument("--sort", metavar="KEY[:DIRECTION]",
                   help="sort by these keys and directions (asc, desc), comma-separated")
    p.add_argument("--all-projects", action="store_true", help="all projects (admin only)")
    p.add_argument("--short", action="store_true", help="fewer columns")
    p.add_argument("--long", action="store_true", help="more columns (implies --all-projects)")
    add_output_options(p)

    outputs = group(stack, "output", "Stack outputs.")
    p = command(outputs, "list", output_list, "List a stack's outputs.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    add_output_options(p)
    p = command(outputs, "show", output_show, "Show a stack output, resolved.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    p.add_argument("output", metavar="OUTPUT", nargs="?", help="name of the output")
    p.add_argument("--all", action="store_true", help="show all the outputs")
    add_output_options(p)

    templates = group(stack, "template", "Stack templates.")
    p = command(templates, "show", template_show, "Show a stack's template.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    _document_format(p)

    environments = group(stack, "environment", "Stack environments.")
    p = command(environments, "show", environment_show, "Show a stack's environment.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    _document_format(p)

    files = group(stack, "file", "Files sent with a stack.")
    p = command(files, "list", file_list, "Show a stack's files map.")
    p.add_argument("stack", metavar="STACK", help="name or ID of the stack")
    _document_format(p)

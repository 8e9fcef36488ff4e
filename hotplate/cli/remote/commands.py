"""What every remote command shares: connection options, error handling, output.

A command is a function ``(args) -> int`` registered with :func:`command`,
which wraps it so that a :class:`~.errors.CommandError` prints one line,
``ERROR: <message>``, on stderr with exit status 1; Ctrl-C exits 130 and a
closed pipe exits quietly. No traceback reaches the user.

httpx is imported only when a command runs, so building the parser (and
every other ``hotplate`` command) stays fast.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from hotplate.cli.remote.errors import CommandError
from hotplate.cli.remote.output import Listing, Record, render_listing, render_record

if TYPE_CHECKING:
    from hotplate.cli.remote.client import HeatClient

Handler = Callable[[argparse.Namespace], int]
Subparsers = Any  # argparse's _SubParsersAction, which it does not export
DEFAULT_POLL = 2.0


def connection_options() -> argparse.ArgumentParser:
    """``--url``, ``--token``, ``--project``: a parent parser for every remote command."""
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("connection")
    group.add_argument("--url", help="the API, e.g. http://127.0.0.1:8004/v1/admin "
                                     "(default: $HOTPLATE_URL, then `hotplate login`'s)")
    group.add_argument("--token", help="the API token (default: $HOTPLATE_TOKEN, then "
                                       "`hotplate login`'s)")
    group.add_argument("--project", help="the project, when --url is the server's root "
                                         "(default: $HOTPLATE_PROJECT, then admin)")
    return parent


_CONNECTION = connection_options()


def guarded(handler: Handler) -> Handler:
    """Run ``handler``, turning expected failures into one line and an exit status."""

    @functools.wraps(handler)
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except CommandError as exc:
            sys.stdout.flush()
            print(f"ERROR: {exc.message}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("Interrupted.", file=sys.stderr)
            return 130
        except BrokenPipeError:
            # The reader went away (| head): stop quietly, and keep Python from
            # complaining while it flushes stdout at exit.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 1

    return run


def command(subparsers: Subparsers, name: str, handler: Handler, help_text: str,
            **kwargs: Any) -> argparse.ArgumentParser:
    """A remote subcommand: connection options included, errors handled."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name, help=help_text, description=help_text, parents=[_CONNECTION], **kwargs)
    parser.set_defaults(func=guarded(handler))
    return parser


def group(subparsers: Subparsers, name: str, help_text: str) -> Subparsers:
    """A level of subcommands (``stack``, ``stack resource``, ...)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(name, help=help_text,
                                                            description=help_text)
    return parser.add_subparsers(dest=f"{name}_command", required=True, metavar="COMMAND")


def open_client(args: argparse.Namespace) -> HeatClient:
    from hotplate.cli.remote.client import HeatClient
    from hotplate.cli.remote.settings import resolve

    return HeatClient(resolve(args.url, args.token, args.project))


def add_wait_options(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--wait", action="store_true",
                        help=f"wait until the {what} ends, showing its progress; the exit "
                             "status is 1 if it failed")
    parser.add_argument("--poll", metavar="SECONDS", type=float, default=DEFAULT_POLL,
                        help=f"seconds between checks with --wait (default: {DEFAULT_POLL:g})")


def progress_stream(args: argparse.Namespace) -> TextIO:
    """Progress shares stdout with a table, but keeps out of json, yaml and value output."""
    return sys.stdout if getattr(args, "format", "table") == "table" else sys.stderr


def emit(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def emit_listing(args: argparse.Namespace, listing: Listing) -> None:
    emit(render_listing(listing, args.format, args.columns))


def emit_record(args: argparse.Namespace, record: Record) -> None:
    emit(render_record(record, args.format, args.columns))

"""The commands that drive a hotplate (or Heat) API over HTTP: ``stack ...`` and ``login``.

They mirror ``openstack stack ...`` (python-heatclient's plugin): the same
subcommands, options, columns and request bodies, so habits carry over.
This package speaks HTTP only; it never imports the engine, the database
or the API server (an import-linter contract keeps it so).
"""

from __future__ import annotations

from hotplate.cli.remote import (
    event_commands,
    login,
    resource_commands,
    stack_actions,
    stack_drift,
    stack_read,
    stack_snapshots,
    stack_write,
)
from hotplate.cli.remote.commands import Subparsers, group

__all__ = ["add_commands"]


def add_commands(subparsers: Subparsers) -> None:
    """Add ``stack`` and ``login`` to the ``hotplate`` command's subcommands."""
    stack = group(subparsers, "stack", "Stacks on a hotplate API server (like `openstack "
                                       "stack`).")
    stack_write.register(stack)
    stack_read.register(stack)
    stack_actions.register(stack)
    stack_drift.register(stack)
    stack_snapshots.register(stack)
    event_commands.register(stack)
    resource_commands.register(stack)
    login.register(subparsers)

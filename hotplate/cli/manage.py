"""``hotplate manage`` and ``heat-manage``: Heat's management commands on hotplate's
database.

The verbs, their arguments, options and output are heat-manage's (Heat 27,
``heat/cmd/manage.py``), so scripts and tests written for heat-manage run
unchanged: ``db_sync [version]``, ``db_version``, ``purge_deleted [age] [-g
days|hours|minutes|seconds] [-p PROJECT_ID] [-b BATCH_SIZE]``,
``reset_stack_status STACK_ID``, ``migrate_convergence_1 STACK_ID``,
``migrate_properties_data``, ``update_params encrypt|decrypt [KEY]``,
``resource_data_list RESOURCE_ID``, ``service list``, ``service clean``; and one of
hotplate's own, ``import-heat`` (cli/import_heat.py), which brings a Heat database's
stacks over.

The database is the one ``hotplate serve`` and ``hotplate engine`` use with the
same configuration (``--config-file``/``--config-dir``, ``HOTPLATE_*``
variables, ``--db-url``, else SQLite under ``--data-dir``). As heat-manage
does, a failure prints ``ERROR: <why>`` and exits 1.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from hotplate.cli.common import (
    DEFAULT_DATA_DIR,
    PREVIOUS_KEY_VARIABLE,
    add_config_arguments,
    database_url,
    previous_key,
    secret_box,
    settings,
)
from hotplate.cli.import_heat import add_import_heat

GRANULARITY_SECONDS = {"days": 86400, "hours": 3600, "minutes": 60, "seconds": 1}


class ManageError(Exception):
    """What heat-manage would print after ``ERROR:``."""


def _engine(args: argparse.Namespace) -> Any:
    """An engine on the command's database, which must be at hotplate's newest schema
    (``db_sync`` migrates it)."""
    from hotplate.db import migrate
    from hotplate.db.engine import make_engine

    db_url = database_url(args)
    at, newest = migrate.current(db_url), migrate.head()
    if at != newest:
        raise ManageError(f"the database is at schema revision {at}, not {newest}: "
                          "run db_sync first")
    return make_engine(db_url, pool_size=2)


def _with_engine(args: argparse.Namespace, work: Callable[[Any], Any]) -> Any:
    engine = _engine(args)
    try:
        return work(engine)
    finally:
        engine.dispose()


def _store(engine: Any, args: argparse.Namespace) -> Any:
    from hotplate.db.store import SqlStore
    from hotplate.engine.clock import SystemClock

    return SqlStore(engine, SystemClock(), secret_box(args, make=False))


# -- verbs -------------------------------------------------------------------------------
def do_db_version(args: argparse.Namespace) -> None:
    from hotplate.db import migrate

    print(migrate.current(database_url(args)))


def do_db_sync(args: argparse.Namespace) -> None:
    from hotplate.db import migrate

    migrate.upgrade(database_url(args), args.version or "head", key=secret_box(args))


def do_purge_deleted(args: argparse.Namespace) -> None:
    from hotplate.db.purge import purge_deleted

    age = _non_negative(args.age, "age")
    batch_size = _non_negative(args.batch_size, "batch_size")
    cutoff = datetime.now(UTC) - timedelta(seconds=age * GRANULARITY_SECONDS[args.granularity])
    _with_engine(args, lambda engine: purge_deleted(
        engine, cutoff, project_id=args.project_id, batch_size=batch_size))


def _non_negative(value: str, name: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise ManageError(f"{name} should be an integer")
    if number < 0:
        raise ManageError(f"{name} should be a positive integer")
    return number


def do_reset_stack_status(args: argparse.Namespace) -> None:
    from hotplate.db.stack_reset import StackNotFound, reset_stack_status

    print("Warning: this command is potentially destructive and only intended to "
          "recover from specific crashes.")
    print("It is advised to shutdown all Heat engines beforehand.")
    print("Continue ? [y/N]")
    try:
        answer = input()
    except EOFError:
        answer = ""
    if not answer.lower().startswith("y"):
        return
    try:
        _with_engine(args, lambda engine: reset_stack_status(
            engine, args.stack_id, datetime.now(UTC)))
    except StackNotFound as exc:
        raise ManageError(str(exc))


def do_service_list(args: argparse.Namespace) -> None:
    now = datetime.now(UTC)
    services = _with_engine(args, lambda engine: _store(engine, args).list_services())
    line = "%-16s %-16s %-36s %-10s %-10s %-10s %-10s"
    print(line % ("Hostname", "Binary", "Engine_Id", "Host", "Topic", "Status", "Updated At"))
    for service in services:
        print(line % (service.hostname, service.binary, service.engine_id, service.host,
                      service.topic, "up" if service.is_up(now) else "down",
                      service.updated_at))


def do_service_clean(args: argparse.Namespace) -> None:
    _with_engine(args, lambda engine: _store(engine, args).delete_services_down(
        datetime.now(UTC)))
    print("Dead engines are removed.")


def do_resource_data_list(args: argparse.Namespace) -> None:
    from hotplate.model.ids import ResourceId

    try:
        resource_id = ResourceId(int(args.resource_id))
    except ValueError:
        raise ManageError("no resource data found")
    data = _with_engine(args, lambda engine: _store(engine, args).list_resource_data(
        resource_id))
    if not data:
        raise ManageError("no resource data found")
    for key, value in data.items():
        print(f"{key!s:<16} {value!s:<64}")


def do_update_params(args: argparse.Namespace) -> None:
    from hotplate.db.crypt import EncryptionKeyError
    from hotplate.db.rekey import EnginesRunning, update_params

    current = secret_box(args, make=False)
    if current is None:
        raise ManageError("no auth_encryption_key configured, and no key file in --data-dir")
    try:
        previous = previous_key(args, required=False)
        moved = _with_engine(args, lambda engine: update_params(
            engine, args.crypt_operation, current, previous))
    except (EncryptionKeyError, EnginesRunning) as exc:
        raise ManageError(str(exc))
    if args.verbose_update_params:
        for kind, number in sorted(moved.items()):
            print(f"{kind}: {number}")


def do_migrate_convergence_1(args: argparse.Namespace) -> None:
    from hotplate.model.errors import (
        ActionInProgress,
        ActionNotComplete,
        EntityNotFound,
        NotSupported,
    )

    try:
        _with_engine(args, lambda engine: _migrate_convergence(engine, args))
    except EntityNotFound:
        raise ManageError(f"Stack with id {args.stack_id} can not be found.")
    except (NotSupported, ActionNotComplete, ActionInProgress) as exc:
        raise ManageError(str(exc))


def _migrate_convergence(engine: Any, args: argparse.Namespace) -> None:
    from hotplate.app import template_caches
    from hotplate.db.convergence_migration import convert_to_convergence, nested_stacks
    from hotplate.engine.clock import UuidIds
    from hotplate.engine.service.convergence_migration import plan_convergence_migration
    from hotplate.model.errors import ActionInProgress
    from hotplate.model.ids import StackId

    store = _store(engine, args)
    root = store.get_stack(StackId(args.stack_id))
    nested = nested_stacks(engine, root.id) if root is not None else []
    plans = plan_convergence_migration(
        root, args.stack_id, nested, caches=template_caches(store, settings(args).engine),
        rows=store, ids=UuidIds())
    if plans and not convert_to_convergence(engine, plans):
        now = store.get_stack(StackId(args.stack_id)) or root
        assert now is not None
        raise ActionInProgress(now.name, str(now.action))


def do_migrate_properties_data(args: argparse.Namespace) -> None:
    print("This command has been deprecated and is now a no-op. "
          "It will be removed in a future release.")


# -- the parser --------------------------------------------------------------------------
def add_verbs(parser: argparse.ArgumentParser) -> None:
    """heat-manage's verbs, as subcommands of ``parser``."""
    verbs = parser.add_subparsers(dest="manage_command", required=True, title="Commands",
                                  metavar="{db_version,db_sync,purge_deleted,...}")
    verbs.add_parser("db_version", help="print the database's schema revision").set_defaults(
        manage=do_db_version)
    sync = verbs.add_parser("db_sync", help="migrate the database to the newest schema "
                                            "(or to VERSION)")
    sync.add_argument("version", nargs="?")
    sync.set_defaults(manage=do_db_sync)
    _add_purge(verbs)
    reset = verbs.add_parser("reset_stack_status",
                             help="set a stack stuck IN_PROGRESS (and its nested stacks) to "
                                  "FAILED; engines stopped")
    reset.add_argument("stack_id", help="Stack id")
    reset.set_defaults(manage=do_reset_stack_status)
    params = verbs.add_parser(
        "update_params", help="encrypt or decrypt the hidden parameters and resource "
                              "properties already stored (engines stopped)")
    params.add_argument("crypt_operation", choices=["encrypt", "decrypt"],
                        help="Valid values are encrypt or decrypt. The heat-engine processes "
                             "must be stopped to use this.")
    params.add_argument("previous_encryption_key", nargs="?", default=None,
                        help="Provide old encryption key. New encryption key would be used "
                             f"from config file. (Or {PREVIOUS_KEY_VARIABLE}.)")
    params.add_argument("--verbose-update-params", action="store_true",
                        help="Print how many raw_template and resource rows were processed")
    params.set_defaults(manage=do_update_params)
    migrate = verbs.add_parser(
        "migrate_convergence_1",
        help="make a complete legacy stack (and its nested stacks) a convergence stack")
    migrate.add_argument("stack_id")
    migrate.set_defaults(manage=do_migrate_convergence_1)
    data = verbs.add_parser("resource_data_list",
                            help="a resource's data, what is stored encrypted decrypted")
    data.add_argument("resource_id", help="Stack resource id")
    data.set_defaults(manage=do_resource_data_list)
    verbs.add_parser("migrate_properties_data", help="deprecated; does nothing").set_defaults(
        manage=do_migrate_properties_data)
    add_import_heat(verbs, ManageError)
    service = verbs.add_parser("service", help="the engines' service rows")
    actions = service.add_subparsers(dest="action", required=True)
    actions.add_parser("list", help="every engine's row, up or down").set_defaults(
        manage=do_service_list)
    actions.add_parser("clean", help="remove the rows of engines that are down").set_defaults(
        manage=do_service_clean)


def _add_purge(verbs: Any) -> None:
    purge = verbs.add_parser("purge_deleted",
                             help="remove stacks deleted more than AGE ago, and all they left")
    purge.add_argument("age", nargs="?", default="90", help="How long to preserve deleted data.")
    purge.add_argument("-g", "--granularity", default="days", choices=list(GRANULARITY_SECONDS),
                       help="Granularity to use for age argument, defaults to days.")
    purge.add_argument("-p", "--project-id", help="Project ID to purge deleted stacks.")
    purge.add_argument("-b", "--batch_size", default="20",
                       help="Number of stacks to delete at a time (per transaction). Note "
                            "that a single stack may have many DB rows (events, etc.) "
                            "associated with it.")
    purge.set_defaults(manage=do_purge_deleted)


def run_verb(args: argparse.Namespace) -> int:
    """Run the parsed verb; heat-manage's ``ERROR: ...`` and status 1 when it fails."""
    try:
        args.manage(args)
    except ManageError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1
    return 0


def build_parser() -> argparse.ArgumentParser:
    """``heat-manage``: the options hotplate's commands share, then a verb."""
    parser = argparse.ArgumentParser(
        prog="heat-manage", description="Heat's management commands on hotplate's database.")
    env = os.environ
    parser.add_argument("--db-url", default=None,
                        help="database URL, [database]/connection (default: SQLite under "
                             "--data-dir; HOTPLATE_DB_URL)")
    parser.add_argument("--data-dir", default=env.get("HOTPLATE_DATA_DIR") or DEFAULT_DATA_DIR,
                        help="where the SQLite database lives (default: var; "
                             "HOTPLATE_DATA_DIR)")
    parser.add_argument("-v", "--verbose", "-d", "--debug", action="store_true")
    add_config_arguments(parser, top=True)
    add_verbs(parser)
    parser.set_defaults(func=run_verb)
    return parser


def main(argv: list[str] | None = None) -> int:
    """The ``heat-manage`` command: the same code as ``hotplate manage``."""
    from hotplate.cli.main import run_parsed

    return run_parsed(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())

"""The ``hotplate`` command line."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

from hotplate.agent.runner import add_arguments as add_agent_hook_arguments
from hotplate.agent.runner import run_from_args as run_agent_hook
from hotplate.cli.common import (
    DEFAULT_DATA_DIR,
    PREVIOUS_KEY_VARIABLE,
    add_config_arguments,
    auth_store,
    database_url,
    previous_key,
    secret_box,
    settings,
)
from hotplate.cli.manage import add_verbs as add_manage_verbs
from hotplate.cli.manage import run_verb as run_manage_verb
from hotplate.cli.remote import add_commands as add_remote_commands
from hotplate.cli.servers import add_commands as add_server_commands


def _parse_params(pairs: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"error: --parameter expects name=value, got {pair!r}")
        params[key] = value
    return params


def _wait(service: Any, ctxt: dict[str, Any], stack_id: str, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        view: dict[str, Any] = service.show_stack(ctxt, stack_id, resolve_outputs=False)[0]
        if view["stack_status"] != "IN_PROGRESS" or time.monotonic() > deadline:
            return view
        time.sleep(0.05)


def _print_table(rows: list[list[str]], headers: list[str]) -> None:
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows, strict=False)]
    line = "+".join("-" * (w + 2) for w in widths)
    print(f"+{line}+")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)) + " |")
    print(f"+{line}+")
    for row in rows:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
    print(f"+{line}+")


def cmd_run(args: argparse.Namespace) -> int:
    from hotplate.app import embedded
    from hotplate.model.errors import EntityNotFound, HotplateError

    conf = settings(args)
    db_url = database_url(args)
    engine, transport = embedded(db_url, workers=conf.executor_thread_pool_size,
                                 options=conf.engine, host=conf.host,
                                 pool=conf.database.pool, cloud=conf.cloud,
                                 secrets=secret_box(args))
    ctxt = {"project_id": "admin", "username": "admin", "is_admin": True}
    service = engine.service
    template_text = Path(args.template).read_text()
    name = args.name or Path(args.template).stem
    env = {"parameters": _parse_params(args.parameter)}
    try:
        try:
            existing = service.identify_stack(ctxt, name)
        except EntityNotFound:
            existing = None
        if existing is None:
            ident = service.create_stack(ctxt, name, template_text, env, {},
                                         {"disable_rollback": True})
        else:
            ident = service.update_stack(ctxt, existing, template_text, env, {}, {})
        view = _wait(service, ctxt, ident["stack_id"], args.timeout)
        print(f"stack {name} ({ident['stack_id']}): "
              f"{view['stack_action']}_{view['stack_status']} {view['stack_status_reason']}")
        resources = service.list_stack_resources(ctxt, ident["stack_id"])
        _print_table(
            [[r["resource_name"], r["resource_type"],
              f"{r['resource_action']}_{r['resource_status']}", r["physical_resource_id"]]
             for r in resources],
            ["resource", "type", "status", "physical id"],
        )
        for out in service.show_stack(ctxt, ident["stack_id"])[0].get("outputs", []):
            value = out.get("output_value")
            shown = value if isinstance(value, str) else json.dumps(value)
            print(f"output {out['output_key']}: {shown}")
        if args.delete:
            service.delete_stack(ctxt, ident["stack_id"])
            done = _wait(service, ctxt, ident["stack_id"], args.timeout)
            print(f"deleted: {done['stack_action']}_{done['stack_status']}")
        return 0 if view["stack_status"] == "COMPLETE" else 1
    except HotplateError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    finally:
        transport.stop()


def cmd_db_sync(args: argparse.Namespace) -> int:
    from hotplate.db.migrate import upgrade

    db_url = database_url(args)
    upgrade(db_url, key=secret_box(args))
    print(f"database at {db_url} is up to date")
    return 0


def _rekeyed(args: argparse.Namespace, run: Any) -> int:
    """Run a re-encryption over the command's database; its counts, or its one-line error."""
    from hotplate.db.crypt import EncryptionKeyError
    from hotplate.db.engine import make_engine
    from hotplate.db.migrate import upgrade
    from hotplate.db.rekey import EnginesRunning

    db_url = database_url(args)
    current = secret_box(args, make=False)
    if current is None:
        print("error: no auth_encryption_key configured, and no key file in --data-dir",
              file=sys.stderr)
        return 2
    try:
        previous = previous_key(args, required=args.db_command == "rotate-key")
        upgrade(db_url)  # no key checked here: the values themselves say which key opens them
        engine = make_engine(db_url)
        try:
            moved = run(engine, current, previous)
        finally:
            engine.dispose()
    except (EncryptionKeyError, EnginesRunning) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for kind, count in sorted(moved.items()):
        print(f"{kind}: {count}")
    print("done" if moved else "nothing to change")
    return 0


def cmd_db_rotate_key(args: argparse.Namespace) -> int:
    from hotplate.db.rekey import rotate_key

    return _rekeyed(args, lambda engine, current, previous: rotate_key(
        engine, previous, current))


def cmd_db_update_params(args: argparse.Namespace) -> int:
    from hotplate.db.rekey import update_params

    return _rekeyed(args, lambda engine, current, previous: update_params(
        engine, args.crypt_operation, current, previous))


def cmd_token_create(args: argparse.Namespace) -> int:
    from hotplate.db.migrate import upgrade

    db_url = database_url(args)
    upgrade(db_url, key=secret_box(args, make=False))
    print(auth_store(db_url).create_token(args.project, args.role))
    return 0


def cmd_token_list(args: argparse.Namespace) -> int:
    from hotplate.db.migrate import upgrade

    db_url = database_url(args)
    upgrade(db_url, key=secret_box(args, make=False))
    rows = auth_store(db_url).list_tokens(args.project)

    def when(value: Any) -> str:
        return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value is not None else ""

    _print_table([[r["id"], r["project"], r["role"], when(r["created_at"]),
                   when(r["expires_at"]), when(r["revoked_at"])] for r in rows],
                 ["ID", "Project", "Role", "Created", "Expires", "Revoked"])
    return 0


def cmd_token_revoke(args: argparse.Namespace) -> int:
    from hotplate.db.migrate import upgrade

    db_url = database_url(args)
    upgrade(db_url, key=secret_box(args, make=False))
    if not auth_store(db_url).revoke_token(args.token):
        print(f"error: no live token {args.token!r}", file=sys.stderr)
        return 1
    print("revoked")
    return 0


def cmd_config_sample(args: argparse.Namespace) -> int:
    from hotplate.config import sample

    sys.stdout.write(sample())
    return 0


LOG_FORMAT = "%(asctime)s.%(msecs)03d %(process)d %(levelname)s %(name)s: %(message)s"
"""Heat's log lines (oslo.log's default) without the request fields: when and which
process, so that several engines' logs read together."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hotplate", description=__doc__)
    env = os.environ
    parser.add_argument("--db-url", default=None,
                        help="database URL, [database]/connection (default: SQLite under "
                             "--data-dir; HOTPLATE_DB_URL)")
    parser.add_argument("--data-dir", default=env.get("HOTPLATE_DATA_DIR") or DEFAULT_DATA_DIR,
                        help="where the SQLite database lives (default: var; "
                             "HOTPLATE_DATA_DIR)")
    parser.add_argument("-v", "--verbose", action="store_true")
    add_config_arguments(parser, top=True)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="converge a template in-process and show the result")
    run.add_argument("template")
    run.add_argument("--name", help="stack name (default: the template's file name)")
    run.add_argument("-P", "--parameter", action="append", default=[], metavar="NAME=VALUE")
    run.add_argument("--timeout", type=float, default=600.0)
    run.add_argument("--delete", action="store_true", help="delete the stack afterwards")
    run.set_defaults(func=cmd_run)
    add_server_commands(sub)
    db = sub.add_parser("db", help="database management")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    sync = db_sub.add_parser("sync", help="migrate the database to the latest schema")
    sync.set_defaults(func=cmd_db_sync)
    rotate = db_sub.add_parser(
        "rotate-key", help="store every secret encrypted with the previous auth_encryption_key "
        "again under the configured one (engines stopped)")
    rotate.add_argument("previous_encryption_key", nargs="?", default=None,
                        help="the key the secrets are stored under now "
                        f"(or {PREVIOUS_KEY_VARIABLE})")
    rotate.set_defaults(func=cmd_db_rotate_key)
    params = db_sub.add_parser(
        "update-params", aliases=["update_params"],
        help="encrypt or decrypt the hidden parameters and resource properties already "
        "stored, as heat-manage update_params (engines stopped)")
    params.add_argument("crypt_operation", choices=("encrypt", "decrypt"))
    params.add_argument("previous_encryption_key", nargs="?", default=None,
                        help="the key they are encrypted with, when it is not the configured "
                        f"one (or {PREVIOUS_KEY_VARIABLE})")
    params.set_defaults(func=cmd_db_update_params, db_command="update-params")
    config = sub.add_parser("config", help="the configuration file")
    config_sub = config.add_subparsers(dest="config_command", required=True)
    config_sample = config_sub.add_parser(
        "sample", help="print every option with its help and default, as a hotplate.conf")
    config_sample.set_defaults(func=cmd_config_sample)
    for command in (run, sync, rotate, params):
        add_config_arguments(command)
    token = sub.add_parser("token", help="API token management")
    token_sub = token.add_subparsers(dest="token_command", required=True)
    create = token_sub.add_parser("create", help="issue a token (printed once, stored hashed)")
    create.add_argument("--project", required=True)
    create.add_argument("--role", required=True, choices=("admin", "member", "reader"))
    create.add_argument("--db-url", dest="db_url", default=argparse.SUPPRESS,
                        help="database URL (default: SQLite under --data-dir)")
    create.add_argument("--data-dir", dest="data_dir", default=argparse.SUPPRESS,
                        help="where the SQLite database lives (default: var)")
    create.set_defaults(func=cmd_token_create)
    listing = token_sub.add_parser("list", help="the tokens issued (ids, never secrets)")
    listing.add_argument("--project")
    revoke = token_sub.add_parser("revoke", help="revoke a token by id (or by the token)")
    revoke.add_argument("token")
    for command in (listing, revoke):
        command.add_argument("--db-url", dest="db_url", default=argparse.SUPPRESS,
                             help="database URL (default: SQLite under --data-dir)")
        command.add_argument("--data-dir", dest="data_dir", default=argparse.SUPPRESS,
                             help="where the SQLite database lives (default: var)")
    for command in (create, listing, revoke):
        add_config_arguments(command)
    listing.set_defaults(func=cmd_token_list)
    revoke.set_defaults(func=cmd_token_revoke)
    manage = sub.add_parser(
        "manage", help="heat-manage's commands (db_sync, purge_deleted, reset_stack_status, "
                       "service list, ...); also installed as heat-manage")
    manage.add_argument("--db-url", dest="db_url", default=argparse.SUPPRESS,
                        help="database URL (default: SQLite under --data-dir)")
    manage.add_argument("--data-dir", dest="data_dir", default=argparse.SUPPRESS,
                        help="where the SQLite database lives (default: var)")
    add_config_arguments(manage)
    add_manage_verbs(manage)
    manage.set_defaults(func=run_manage_verb)
    add_remote_commands(sub)
    agent_hook = sub.add_parser(
        "agent-hook", help="on a server: run the deployments os-collect-config collected "
                           "(its command) and signal their outcome")
    add_agent_hook_arguments(agent_hook)
    agent_hook.set_defaults(func=run_agent_hook)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "agent-hook":  # on every metadata change: none of the server's imports
        return int(args.func(args))
    return run_parsed(args)


def run_parsed(args: argparse.Namespace) -> int:
    """Run a parsed command (``hotplate ...`` or ``heat-manage ...``): logging set up, and
    a configuration the operator must fix said in one line."""
    from hotplate.config import ConfigError
    from hotplate.db.crypt import EncryptionKeyError
    from hotplate.db.migrate import ForeignDatabaseError

    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format=LOG_FORMAT, datefmt="%Y-%m-%d %H:%M:%S")
    if not args.verbose:
        # py-amqp warns about every delivery racing a channel's close on shutdown.
        logging.getLogger("amqp").setLevel(logging.ERROR)
    try:
        return int(args.func(args))
    except (ConfigError, ForeignDatabaseError, EncryptionKeyError) as exc:
        # What the operator must change, in one line, before anything started.
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

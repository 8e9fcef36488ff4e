"""The ``hotplate`` command line."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from hotplate.cli.remote import add_commands as add_remote_commands

DEFAULT_DATA_DIR = "var"


def _default_db_url(data_dir: str) -> str:
    path = Path(data_dir)
    path.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path.resolve() / 'hotplate.sqlite'}"


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

    db_url = args.db_url or _default_db_url(args.data_dir)
    engine, transport = embedded(db_url)
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

    db_url = args.db_url or _default_db_url(args.data_dir)
    upgrade(db_url)
    print(f"database at {db_url} is up to date")
    return 0


_LOOPBACK = ("127.0.0.1", "::1", "localhost")


def _exit_quietly(signum: int, frame: Any) -> None:
    raise SystemExit(0)


def _auth_store(db_url: str) -> Any:
    from hotplate.db.auth_store import AuthStore
    from hotplate.db.engine import make_engine

    return AuthStore(make_engine(db_url, pool_size=4))


def cmd_token_create(args: argparse.Namespace) -> int:
    from hotplate.db.migrate import upgrade

    db_url = args.db_url or _default_db_url(args.data_dir)
    upgrade(db_url)
    print(_auth_store(db_url).create_token(args.project, args.role))
    return 0


def cmd_token_list(args: argparse.Namespace) -> int:
    from hotplate.db.migrate import upgrade

    db_url = args.db_url or _default_db_url(args.data_dir)
    upgrade(db_url)
    rows = _auth_store(db_url).list_tokens(args.project)

    def when(value: Any) -> str:
        return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value is not None else ""

    _print_table([[r["id"], r["project"], r["role"], when(r["created_at"]),
                   when(r["expires_at"]), when(r["revoked_at"])] for r in rows],
                 ["ID", "Project", "Role", "Created", "Expires", "Revoked"])
    return 0


def cmd_token_revoke(args: argparse.Namespace) -> int:
    from hotplate.db.migrate import upgrade

    db_url = args.db_url or _default_db_url(args.data_dir)
    upgrade(db_url)
    if not _auth_store(db_url).revoke_token(args.token):
        print(f"error: no live token {args.token!r}", file=sys.stderr)
        return 1
    print("revoked")
    return 0


def _auth_mode(args: argparse.Namespace) -> int | None:
    """Check --noauth/--keystone against the listening address; 2 when refused."""
    import ipaddress

    if args.noauth and args.keystone:
        print("error: --noauth and --keystone exclude each other", file=sys.stderr)
        return 2
    if not (args.noauth or args.keystone):
        return None
    try:
        loopback = args.host in _LOOPBACK or ipaddress.ip_address(args.host).is_loopback
    except ValueError:
        loopback = False
    if not loopback and not args.force:
        mode = "--noauth" if args.noauth else "--keystone"
        print(f"error: refusing to listen on non-loopback host {args.host} with {mode}: "
              "anyone could claim any identity (pass --force to do it anyway)",
              file=sys.stderr)
        return 2
    if args.noauth:
        print("WARNING: noauth mode: there is NO authentication; every caller is an "
              "admin of every project.", file=sys.stderr)
    else:
        print("keystone mode: trusting X-Identity-Status/X-Project-Id/X-Roles from "
              "keystonemiddleware in front; never expose this port directly.",
              file=sys.stderr)
    return None


def _authenticator(args: argparse.Namespace, db_url: str) -> Any:
    if args.keystone:
        from hotplate.api.keystone import KeystoneHeaders

        return KeystoneHeaders()
    return None if args.noauth else _auth_store(db_url)


def _serve_api(args: argparse.Namespace, rpc: Any, auth: Any) -> None:
    """Print the endpoint (and a first admin token), then serve until SIGTERM or ^C."""
    import uvicorn

    from hotplate.api import create_app
    from hotplate.api.background import KEEP_ALIVE_SECS

    app = create_app(rpc, auth=auth)
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    endpoint = f"http://{shown_host}:{args.port}/v1/admin"
    print(f"hotplate API at {endpoint}", flush=True)
    if auth is not None and not args.keystone and not auth.has_tokens():
        token = auth.create_token("admin", "admin")
        print("First start: created an admin token for project admin (shown only once):\n"
              f"  openstack --os-auth-type admin_token --os-token {token} "
              f"--os-endpoint {endpoint} stack list", flush=True)
    # uvicorn shuts down gracefully on SIGTERM, then re-raises it: end with the engine stopped.
    signal.signal(signal.SIGTERM, _exit_quietly)
    with contextlib.suppress(KeyboardInterrupt, SystemExit):
        uvicorn.run(app, host=args.host, port=args.port, timeout_keep_alive=KEEP_ALIVE_SECS,
                    log_level="debug" if args.verbose else "warning")


def cmd_serve(args: argparse.Namespace) -> int:
    """The API and an embedded engine in one process (SQLite under --data-dir by default)."""
    from hotplate.api import EngineRpc
    from hotplate.app import embedded

    refused = _auth_mode(args)
    if refused is not None:
        return refused
    db_url = args.db_url or _default_db_url(args.data_dir)
    engine, transport = embedded(db_url)
    try:
        _serve_api(args, EngineRpc(transport, host=engine.deps.host),
                   _authenticator(args, db_url))
    finally:
        engine.stop()
        transport.stop()
    return 0


def _transport_url(args: argparse.Namespace) -> str | None:
    url: str | None = args.transport_url
    if not url:
        print("error: no message broker: pass --transport-url or set HOTPLATE_TRANSPORT_URL "
              "(for example rabbit://guest:guest@127.0.0.1:5672/)", file=sys.stderr)
    return url


def cmd_api(args: argparse.Namespace) -> int:
    """The API alone, reaching the engines through the broker (scale-out)."""
    from hotplate.api import EngineRpc
    from hotplate.app import api_transport
    from hotplate.db.migrate import upgrade

    refused = _auth_mode(args)
    if refused is not None:
        return refused
    url = _transport_url(args)
    if url is None:
        return 2
    db_url = args.db_url or _default_db_url(args.data_dir)
    if not (args.noauth or args.keystone):
        upgrade(db_url)  # the token tables
    try:
        transport = api_transport(url)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        _serve_api(args, EngineRpc(transport), _authenticator(args, db_url))
    finally:
        transport.stop()
    return 0


def cmd_engine(args: argparse.Namespace) -> int:
    """One engine, taking work from the broker, until SIGTERM or ^C."""
    import threading

    from hotplate.app import scale_out_engine

    url = _transport_url(args)
    if url is None:
        return 2
    db_url = args.db_url or _default_db_url(args.data_dir)
    try:
        engine, transport = scale_out_engine(db_url, url, workers=args.workers,
                                             host=args.engine_host)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"hotplate engine {engine.deps.engine_id} (host {engine.deps.host}) "
          f"with {args.workers} workers", flush=True)
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.set())
    try:
        # The kernel may hand SIGTERM to any thread; Python runs the handler only
        # when the main thread wakes, so it must wake now and then.
        while not stopping.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        transport.stop()  # every server at once; running messages finish first
        engine.stop()
    return 0


def _env_port(raw: str | None) -> int:
    if not raw:
        return 8004
    try:
        port = int(raw)
    except ValueError:
        port = -1
    if not 0 < port < 65536:
        raise SystemExit(f"error: HOTPLATE_PORT must be a port number, not {raw!r}")
    return port


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hotplate", description=__doc__)
    env = os.environ
    parser.add_argument("--db-url", default=env.get("HOTPLATE_DB_URL") or None,
                        help="database URL (default: SQLite under --data-dir; "
                             "HOTPLATE_DB_URL)")
    parser.add_argument("--data-dir", default=env.get("HOTPLATE_DATA_DIR") or DEFAULT_DATA_DIR,
                        help="where the SQLite database lives (default: var; "
                             "HOTPLATE_DATA_DIR)")
    parser.add_argument("-v", "--verbose", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="converge a template in-process and show the result")
    run.add_argument("template")
    run.add_argument("--name", help="stack name (default: the template's file name)")
    run.add_argument("-P", "--parameter", action="append", default=[], metavar="NAME=VALUE")
    run.add_argument("--timeout", type=float, default=600.0)
    run.add_argument("--delete", action="store_true", help="delete the stack afterwards")
    run.set_defaults(func=cmd_run)
    serve = sub.add_parser("serve", help="serve Heat's orchestration API with an embedded "
                                         "engine")
    api = sub.add_parser("api", help="serve Heat's orchestration API only, reaching the "
                                     "engines through the message broker")
    for command in (serve, api):
        command.add_argument("--host", default=env.get("HOTPLATE_HOST") or "127.0.0.1",
                             help="address to listen on (default: 127.0.0.1; HOTPLATE_HOST)")
        command.add_argument("--port", type=int, default=_env_port(env.get("HOTPLATE_PORT")),
                             help="port to listen on (default: 8004; HOTPLATE_PORT)")
        command.add_argument("--noauth", action="store_true",
                             help="no authentication: every caller is an admin (loopback "
                                  "only)")
        command.add_argument("--keystone", action="store_true",
                             help="trust keystonemiddleware's identity headers: run behind "
                                  "its auth_token filter (loopback only)")
        command.add_argument("--force", action="store_true",
                             help="with --noauth or --keystone, allow a non-loopback address")
    engine = sub.add_parser("engine", help="run one engine taking work from the message "
                                           "broker (scale-out)")
    engine.add_argument("--workers", type=int, default=16,
                        help="threads per topic (default: 16)")
    engine.add_argument("--engine-host", default=env.get("HOTPLATE_ENGINE_HOST") or None,
                        help="the engine topic's server name, Heat's [DEFAULT]/host "
                             "(default: this machine's name; HOTPLATE_ENGINE_HOST)")
    for command in (serve, api, engine):
        command.add_argument("--data-dir", dest="data_dir", default=argparse.SUPPRESS,
                             help="where the SQLite database lives (default: var)")
    for command in (api, engine):
        command.add_argument("--transport-url",
                             default=env.get("HOTPLATE_TRANSPORT_URL") or None,
                             help="the message broker, e.g. rabbit://guest:guest@host:5672/ "
                                  "(HOTPLATE_TRANSPORT_URL)")
        command.add_argument("--db-url", dest="db_url", default=argparse.SUPPRESS,
                             help="database URL shared by every process (HOTPLATE_DB_URL)")
    serve.set_defaults(func=cmd_serve)
    api.set_defaults(func=cmd_api)
    engine.set_defaults(func=cmd_engine)
    db = sub.add_parser("db", help="database management")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    sync = db_sub.add_parser("sync", help="migrate the database to the latest schema")
    sync.set_defaults(func=cmd_db_sync)
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
    listing.set_defaults(func=cmd_token_list)
    revoke.set_defaults(func=cmd_token_revoke)
    add_remote_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING)
    if not args.verbose:
        # py-amqp warns about every delivery racing a channel's close on shutdown.
        logging.getLogger("amqp").setLevel(logging.ERROR)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())

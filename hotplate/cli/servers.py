"""The long-running commands: ``serve`` (all in one), ``api`` and ``engine`` (scale-out)."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from pathlib import Path
from typing import Any

from hotplate.cli.cfn_server import cmd_api_cfn, start_beside, stop
from hotplate.cli.common import (
    add_config_arguments,
    auth_store,
    database_url,
    notifier,
    secret_box,
    settings,
)
from hotplate.cli.engine_command import cmd_engine

_LOOPBACK = ("127.0.0.1", "::1", "localhost")
AUTH_MODES = ("token", "keystone", "keystone-headers", "noauth")
"""hotplate.config.options.AUTH_MODES, without importing oslo.config for every command."""


def _exit_quietly(signum: int, frame: Any) -> None:
    raise SystemExit(0)


def _auth_mode(args: argparse.Namespace) -> int | None:
    """Settle the API's mode (``args.auth``) and check it against the listening address;
    2 when refused."""
    import ipaddress

    aliases = [mode for mode, given in (("noauth", args.noauth),
                                        ("keystone-headers", args.keystone)) if given]
    if len(aliases) > 1 or (aliases and args.auth and args.auth != aliases[0]):
        print("error: --auth, --noauth and --keystone exclude each other", file=sys.stderr)
        return 2
    if aliases:
        args.auth = aliases[0]
    mode = settings(args).auth
    args.auth = mode
    if mode == "keystone":
        args.keystone_tokens = _keystone_tokens(args)
        print("keystone mode: validating Keystone tokens with keystonemiddleware's auth_token "
              f"([keystone_authtoken], Keystone at {args.keystone_tokens.auth_url})",
              file=sys.stderr)
        return None
    if mode not in ("noauth", "keystone-headers"):
        return None
    host = settings(args).api.bind_host
    try:
        loopback = host in _LOOPBACK or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback and not args.force:
        flag = "--noauth" if mode == "noauth" else "--auth keystone-headers (--keystone)"
        print(f"error: refusing to listen on non-loopback host {host} with {flag}: "
              "anyone could claim any identity (pass --force to do it anyway)",
              file=sys.stderr)
        return 2
    if mode == "noauth":
        print("WARNING: noauth mode: there is NO authentication; every caller is an "
              "admin of every project.", file=sys.stderr)
    else:
        print("keystone-headers mode: trusting X-Identity-Status/X-Project-Id/X-Roles from "
              "keystonemiddleware in front; never expose this port directly.",
              file=sys.stderr)
    return None


def _keystone_tokens(args: argparse.Namespace) -> Any:
    """keystonemiddleware's auth_token, configured by the files' [keystone_authtoken]."""
    from keystoneauth1 import exceptions as ksa_exceptions

    from hotplate.api.keystone_tokens import KeystoneTokens
    from hotplate.config import ConfigError
    from hotplate.config.keystone import authtoken_conf, check_authtoken

    conf = authtoken_conf(settings(args).sources)
    try:
        tokens = KeystoneTokens(conf)
    except ksa_exceptions.MissingRequiredOptions as exc:
        names = ", ".join(opt.dest for opt in exc.options)
        raise ConfigError(f"[keystone_authtoken] is missing {names}") from None
    except ksa_exceptions.NoMatchingPlugin as exc:
        raise ConfigError(f"[keystone_authtoken]/auth_type: {exc}") from None
    check_authtoken(conf)
    return tokens


def _authenticator(args: argparse.Namespace, db_url: str) -> Any:
    if args.auth == "keystone":
        return args.keystone_tokens
    if args.auth == "keystone-headers":
        from hotplate.api.keystone import KeystoneHeaders

        return KeystoneHeaders()
    return None if args.auth == "noauth" else auth_store(db_url)


def _ui_options(args: argparse.Namespace) -> Any:
    """The web view's options: [ui], its session key from [ui] session_key, else from
    auth_encryption_key or the key file of --data-dir (so that every process sharing
    them accepts the others' sessions), else random."""
    from hotplate.db.crypt import KEY_FILE
    from hotplate.ui.routes import UiOptions
    from hotplate.ui.session import SessionCodec

    conf = settings(args)
    if not conf.ui.enabled:
        return UiOptions(enabled=False)
    secret = conf.ui.session_key or conf.secrets.auth_encryption_key
    if secret is None and hasattr(args, "data_dir"):
        path = Path(args.data_dir) / KEY_FILE
        secret = path.read_text(encoding="utf-8").strip() if path.is_file() else None
    return UiOptions(codec=SessionCodec.from_settings(secret, None),
                     lifetime=conf.ui.session_lifetime)


def _serve_api(args: argparse.Namespace, rpc: Any, auth: Any) -> None:
    """Print the endpoint (and a first admin token), then serve until SIGTERM or ^C."""
    import uvicorn

    from hotplate.api import create_app
    from hotplate.api.background import KEEP_ALIVE_SECS, ApiServer

    app = create_app(rpc, auth=auth, ui=_ui_options(args))
    host, port = settings(args).api.bind_host, settings(args).api.bind_port
    shown_host = f"[{host}]" if ":" in host else host
    endpoint = f"http://{shown_host}:{port}/v1/admin"
    print(f"hotplate API at {endpoint}", flush=True)
    if args.auth == "token" and not auth.has_tokens():
        token = auth.create_token("admin", "admin")
        print("First start: created an admin token for project admin (shown only once):\n"
              f"  openstack --os-auth-type admin_token --os-token {token} "
              f"--os-endpoint {endpoint} stack list", flush=True)
    # uvicorn shuts down gracefully on SIGTERM, then re-raises it: end with the engine stopped.
    signal.signal(signal.SIGTERM, _exit_quietly)
    with contextlib.suppress(KeyboardInterrupt, SystemExit):
        ApiServer(uvicorn.Config(app, host=host, port=port, timeout_keep_alive=KEEP_ALIVE_SECS,
                                 log_level="debug" if args.verbose else "warning")).run()


def cmd_serve(args: argparse.Namespace) -> int:
    """The API and an embedded engine in one process (SQLite under --data-dir by default)."""
    from hotplate.api import EngineRpc
    from hotplate.app import embedded

    refused = _auth_mode(args)
    if refused is not None:
        return refused
    conf = settings(args)
    db_url = database_url(args)
    try:
        sends = notifier(conf, conf.transport_url, conf.host or "hotplate")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    engine, transport = embedded(db_url, workers=conf.executor_thread_pool_size,
                                 options=conf.engine, host=conf.host,
                                 pool=conf.database.pool, notifier=sends, cloud=conf.cloud,
                                 secrets=secret_box(args))
    rpc = EngineRpc(transport, host=engine.deps.host)
    cfn = start_beside(args, rpc, db_url)
    try:
        _serve_api(args, rpc, _authenticator(args, db_url))
    finally:
        stop(cfn)
        try:  # legacy operations get the grace period; a second ^C cuts it short
            engine.end_legacy()
        finally:
            engine.stop()
            transport.stop()
    return 0


def _transport_url(args: argparse.Namespace) -> str | None:
    url = settings(args).transport_url
    if not url:
        print("error: no message broker: pass --transport-url or set HOTPLATE_TRANSPORT_URL "
              "(for example rabbit://guest:guest@127.0.0.1:5672/)", file=sys.stderr)
    return url


def cmd_api(args: argparse.Namespace) -> int:
    """The API alone, reaching the engines through the broker (scale-out)."""
    from hotplate.api import EngineRpc
    from hotplate.app import api_transport
    from hotplate.config import use_for_messaging
    from hotplate.db.migrate import upgrade

    refused = _auth_mode(args)
    if refused is not None:
        return refused
    url = _transport_url(args)
    if url is None:
        return 2
    tokens = args.auth == "token"
    db_url = database_url(args) if tokens else ""  # only the token tables live there
    if tokens:
        upgrade(db_url, key=secret_box(args, make=False))
    try:
        use_for_messaging(settings(args).sources)
        transport = api_transport(url)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        _serve_api(args, EngineRpc(transport), _authenticator(args, db_url))
    finally:
        transport.stop()
    return 0


def _env_port(raw: str | None) -> int | None:
    if not raw:
        return None
    try:
        port = int(raw)
    except ValueError:
        port = -1
    if not 0 < port < 65536:
        raise SystemExit(f"error: HOTPLATE_PORT must be a port number, not {raw!r}")
    return port


def add_commands(sub: Any) -> None:
    """The ``serve``, ``api`` and ``engine`` subcommands, on ``sub`` (argparse's subparsers)."""
    env = os.environ
    serve = sub.add_parser("serve", help="serve Heat's orchestration API with an embedded "
                                         "engine")
    api = sub.add_parser("api", help="serve Heat's orchestration API only, reaching the "
                                     "engines through the message broker")
    for command in (serve, api):
        command.add_argument("--host", default=env.get("HOTPLATE_HOST") or None,
                             help="address to listen on, [heat_api]/bind_host (default: "
                                  "127.0.0.1; HOTPLATE_HOST)")
        command.add_argument("--port", type=int, default=_env_port(env.get("HOTPLATE_PORT")),
                             help="port to listen on, [heat_api]/bind_port (default: 8004; "
                                  "HOTPLATE_PORT)")
        command.add_argument("--auth", choices=AUTH_MODES, default=None,
                             help="how callers are known, [paste_deploy]/flavor: token "
                                  "(hotplate's API tokens, the default), keystone "
                                  "(Keystone tokens, validated with [keystone_authtoken]), "
                                  "keystone-headers (the identity headers of an auth_token "
                                  "filter in front; loopback only), noauth (loopback only)")
        command.add_argument("--noauth", action="store_true",
                             help="the same as --auth noauth")
        command.add_argument("--keystone", action="store_true",
                             help="the same as --auth keystone-headers: trust the identity "
                                  "headers of keystonemiddleware's filter in front (a "
                                  "gateway's mode; loopback only)")
        command.add_argument("--force", action="store_true",
                             help="with --auth noauth or keystone-headers, allow a "
                                  "non-loopback address")
    engine = sub.add_parser("engine", help="run engine processes taking work from the "
                                           "message broker (scale-out)")
    engine.add_argument("--workers", type=int, default=None,
                        help="engine processes to fork, [DEFAULT]/num_engine_workers "
                             "(default: max(4, CPU count), as Heat)")
    engine.add_argument("--engine-host", default=None,
                        help="the engine topic's server name, [DEFAULT]/host "
                             "(default: this machine's name; HOTPLATE_ENGINE_HOST)")
    for command in (serve, engine):
        command.add_argument("--threads", type=int, default=None,
                             help="threads per RPC server in each engine process, "
                                  "[DEFAULT]/executor_thread_pool_size (default: 16)")
    for command in (serve, api, engine):
        command.add_argument("--data-dir", dest="data_dir", default=argparse.SUPPRESS,
                             help="where the SQLite database lives (default: var)")
        add_config_arguments(command)
    for command in (api, engine):
        command.add_argument("--transport-url", default=None,
                             help="the message broker, e.g. rabbit://guest:guest@host:5672/, "
                                  "[DEFAULT]/transport_url (HOTPLATE_TRANSPORT_URL)")
        command.add_argument("--db-url", dest="db_url", default=argparse.SUPPRESS,
                             help="database URL shared by every process, "
                                  "[database]/connection (HOTPLATE_DB_URL)")
    api_cfn = sub.add_parser("api-cfn", help="serve the CFN-compatible API (signals, "
                                             "DescribeStackResource) only, reaching the "
                                             "engines through the message broker")
    for command in (serve, api_cfn):
        command.add_argument("--cfn-port", dest="cfn_port", type=int, default=None,
                             help="port of the CFN-compatible API, [heat_api_cfn]/bind_port "
                                  "(default: 8000; 0 switches it off)")
    api_cfn.add_argument("--data-dir", dest="data_dir", default=argparse.SUPPRESS,
                         help="where the SQLite database lives (default: var)")
    api_cfn.add_argument("--transport-url", default=None,
                         help="the message broker, [DEFAULT]/transport_url")
    api_cfn.add_argument("--db-url", dest="db_url", default=argparse.SUPPRESS,
                         help="database URL shared by every process, [database]/connection")
    add_config_arguments(api_cfn)
    api_cfn.set_defaults(func=cmd_api_cfn)
    serve.set_defaults(func=cmd_serve)
    api.set_defaults(func=cmd_api)
    engine.set_defaults(func=cmd_engine)

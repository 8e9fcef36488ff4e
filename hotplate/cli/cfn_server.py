"""Serving the CFN-compatible API: beside the orchestration API (``serve``) or alone
(``api-cfn``)."""

from __future__ import annotations

import argparse
import contextlib
import signal
import socket
import sys
import threading
from typing import Any

from hotplate.cli.common import database_url, secret_box, settings


def key_lookup(db_url: str, secrets: Any = None) -> Any:
    """The stack users' keys, read from the shared database (their secrets decrypted
    with ``secrets``, a ``SecretBox``)."""
    from hotplate.db.engine import make_engine
    from hotplate.db.stack_users import StackUserStore
    from hotplate.engine.clock import SystemClock

    return StackUserStore(make_engine(db_url, pool_size=4), SystemClock(), secrets)


def ec2_tokens(args: argparse.Namespace) -> Any | None:
    """Keystone's ec2tokens, asked as the ``[keystone_authtoken]`` service user, when the
    API is in Keystone mode (``--auth keystone`` or ``[paste_deploy] flavor``); None
    otherwise: only hotplate's own keys are accepted."""
    mode = getattr(args, "auth", None) or settings(args).auth
    if mode != "keystone":
        return None
    from keystoneauth1 import loading, session

    from hotplate.cloud.ec2tokens import Ec2Tokens
    from hotplate.cloud.sessions import APP_NAME
    from hotplate.config import ConfigError
    from hotplate.config.keystone import AUTHTOKEN, authtoken_conf

    conf = authtoken_conf(settings(args).sources)
    loading.register_auth_conf_options(conf, AUTHTOKEN)
    auth = loading.load_auth_from_conf_options(conf, AUTHTOKEN)
    url = getattr(auth, "auth_url", None)
    if auth is None or not url:
        raise ConfigError(f"[{AUTHTOKEN}] names no service user to ask Keystone's "
                          "ec2tokens with (auth_type, auth_url, username, password, ...)")
    return Ec2Tokens(session.Session(auth=auth, app_name=APP_NAME), str(url))


def _server(args: argparse.Namespace, rpc: Any, db_url: str, *, out: Any = None) -> Any:
    import uvicorn

    from hotplate.api.background import KEEP_ALIVE_SECS
    from hotplate.api_cfn import create_cfn_app

    cfn = settings(args).cfn
    keys = key_lookup(db_url, secret_box(args))
    config = uvicorn.Config(create_cfn_app(rpc, keys, ec2_tokens(args)), host=cfn.bind_host,
                            port=cfn.bind_port, timeout_keep_alive=KEEP_ALIVE_SECS,
                            log_level="debug" if args.verbose else "warning")
    shown = f"[{cfn.bind_host}]" if ":" in cfn.bind_host else cfn.bind_host
    print(f"hotplate CFN API at http://{shown}:{cfn.bind_port}/v1/", file=out or sys.stdout,
          flush=True)
    return uvicorn.Server(config)


def start_beside(args: argparse.Namespace, rpc: Any, db_url: str) -> Any | None:
    """The CFN API in a thread of its own, unless its port is 0; the server to stop."""
    cfn = settings(args).cfn
    if cfn.bind_port == 0:
        return None
    try:
        family = socket.AF_INET6 if ":" in cfn.bind_host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((cfn.bind_host, cfn.bind_port))
    except OSError as exc:
        print(f"WARNING: the CFN API is not served: {cfn.bind_host}:{cfn.bind_port}: "
              f"{exc.strerror or exc} (--cfn-port N picks another port, 0 none)",
              file=sys.stderr, flush=True)
        return None
    # Its address goes to stderr: stdout's first lines stay the API's and its token.
    server = _server(args, rpc, db_url, out=sys.stderr)
    server.install_signal_handlers = lambda: None  # the orchestration API's server owns them
    threading.Thread(target=server.run, name="cfn-api", daemon=True).start()
    return server


def stop(server: Any | None) -> None:
    if server is not None:
        server.should_exit = True


def _exit_quietly(signum: int, frame: Any) -> None:
    raise SystemExit(0)


def cmd_api_cfn(args: argparse.Namespace) -> int:
    """The CFN API alone, reaching the engines through the broker (scale-out)."""
    from hotplate.api import EngineRpc
    from hotplate.app import api_transport
    from hotplate.config import use_for_messaging
    from hotplate.db.migrate import upgrade

    url = settings(args).transport_url
    if not url:
        print("error: no message broker: pass --transport-url or set HOTPLATE_TRANSPORT_URL",
              file=sys.stderr)
        return 2
    if settings(args).cfn.bind_port == 0:
        print("error: --cfn-port 0 leaves nothing to serve", file=sys.stderr)
        return 2
    db_url = database_url(args)
    upgrade(db_url, key=secret_box(args))
    try:
        use_for_messaging(settings(args).sources)
        transport = api_transport(url)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    # uvicorn stops gracefully on SIGTERM, then raises it again: end with exit status 0.
    signal.signal(signal.SIGTERM, _exit_quietly)
    try:
        with contextlib.suppress(KeyboardInterrupt, SystemExit):
            _server(args, EngineRpc(transport), db_url).run()
    finally:
        transport.stop()
    return 0

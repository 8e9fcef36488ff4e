"""``hotplate engine``: ``num_engine_workers`` engine processes under one parent, as
heat-engine runs.

The parent checks everything it can first (the broker URL, the database's
driver, that the database is not Heat's) and migrates the database once, so
its engines start on an up-to-date schema without racing each other; then it
forks (``launcher.ProcessLauncher``). Each child builds one engine (its own
engine id, its three RPC servers, its heartbeat) and prints, through the
parent, ``hotplate engine <engine id> pid <pid> (host <host>) with <n> threads``.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import threading
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from hotplate import heap
from hotplate.cli.common import database_url, notifier, secret_box, settings
from hotplate.cli.launcher import EXIT_CONFIG, Announce, ProcessLauncher

if TYPE_CHECKING:
    from hotplate.config import Settings
    from hotplate.db.crypt import SecretBox

STOP_MARGIN = 10.0
"""Seconds the parent waits beyond graceful_shutdown_timeout before it kills a child."""


def cmd_engine(args: argparse.Namespace) -> int:
    """Fork the engine processes and keep them running until SIGTERM or ^C."""
    from hotplate.db.migrate import upgrade

    conf = settings(args)
    url = conf.transport_url
    if not url:
        print("error: no message broker: pass --transport-url or set HOTPLATE_TRANSPORT_URL "
              "(for example rabbit://guest:guest@127.0.0.1:5672/)", file=sys.stderr)
        return 2
    problem = transport_url_problem(url)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    db_url = database_url(args)
    box = secret_box(args)  # before the fork: the key file made once
    upgrade(db_url, key=box)  # and one migration, and a Heat database refused here

    def body(announce: Announce) -> int:
        return run_engine_process(conf, db_url, url, announce, secrets=box)

    grace = conf.engine.graceful_shutdown_timeout
    launcher = ProcessLauncher(conf.num_engine_workers, body,
                               stop_timeout=grace + STOP_MARGIN if grace else None)
    return launcher.run()


def run_engine_process(conf: Settings, db_url: str, transport_url: str,
                       announce: Announce, *, secrets: SecretBox | None = None) -> int:
    """One engine process, from its start to its graceful stop on SIGTERM (which the
    kernel also sends when the parent dies)."""
    from hotplate.app import scale_out_engine
    from hotplate.config import use_for_messaging

    stopping = threading.Event()

    def on_term(signum: int, frame: Any) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, on_term)
    threads = conf.executor_thread_pool_size
    host = conf.host or socket.gethostname()
    try:
        use_for_messaging(conf.sources)
        engine, transport = scale_out_engine(
            db_url, transport_url, threads=threads, host=host, options=conf.engine,
            pool=conf.database.pool, migrate=False,
            notifier=notifier(conf, transport_url, host), cloud=conf.cloud,
            secrets=secrets)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    try:
        heap.settle()  # as a server's: loaded, the engine's heap is frozen (hotplate/heap.py)
        announce(f"hotplate engine {engine.deps.engine_id} pid {os.getpid()} "
                 f"(host {engine.deps.host}) with {threads} threads")
        # The kernel may hand SIGTERM to any thread; Python runs the handler only
        # when the main thread wakes, so it must wake now and then.
        while not stopping.wait(0.5):
            pass
    finally:
        try:
            # No more messages; running operations finish (graceful_shutdown_timeout);
            # what is left goes to the live engines; the service row goes.
            engine.shutdown()
        finally:
            transport.stop()
    return 0


def transport_url_problem(url: str) -> str | None:
    """Why oslo.messaging could not use ``url``, found without building a transport
    (the parent must not open connections or threads before it forks); None if none."""
    from oslo_config import cfg

    from hotplate.rpc.messaging import oslo_messaging

    try:
        parsed = oslo_messaging.TransportURL.parse(cfg.CONF, url)
    except oslo_messaging.InvalidTransportURL as exc:
        return f"transport URL {_without_password(url)!r}: {exc}"
    drivers = sorted(e.name for e in entry_points(group="oslo.messaging.drivers"))
    if parsed.transport not in drivers:
        return (f"transport URL {_without_password(url)!r}: no oslo.messaging driver "
                f"{parsed.transport!r} (installed: {', '.join(drivers)})")
    return None


def _without_password(url: str) -> str:
    head, sep, tail = url.rpartition("@")
    if not sep:
        return url
    scheme, _, userinfo = head.partition("://")
    return f"{scheme}://{userinfo.split(':', 1)[0]}:***@{tail}"

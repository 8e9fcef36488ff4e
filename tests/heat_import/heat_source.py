"""A real Heat 27.0.1 writing a database of its own: the source ``hotplate manage
import-heat`` reads.

The virtualenv holds the whole of Heat (``heat_requirements.txt``, installed with
``--no-deps``) under ``$HOTPLATE_HEAT_VENV`` or ``${XDG_CACHE_HOME:-~/.cache}/hotplate/
heat-27.0.1``, built once per machine by ``tests/heat_venv.py``.

A ``HeatSource`` owns, until ``close``:

- a fresh database on the PostgreSQL or MariaDB server the tests were given, named after
  that server's test database (``<name>_heatsrc_<backend>_<random>``), its schema made by
  ``heat-manage db_sync``;
- a virtual host of its own on the broker when ``rabbitmqctl`` can make one, and always a
  ``control_exchange`` of its own. Both are needed to keep other engines out: oslo.messaging
  names a topic's queue after the topic alone (``engine``), whatever the exchange, so two
  Heats (or a Heat and hotplate's engines) on one virtual host would share it.
- heat-engine (one worker) and heat-api as real processes, each in a process group of its
  own, logging to files in ``workdir``.

Without Keystone: heat-api's ``noauth`` flavor makes every request user ``admin`` of
project ``admin`` with password ``unset``, and ``deferred_auth_method = password`` stores
those in ``user_creds`` instead of a trust. Heat checks that a resource type's service is
in the request's catalog before it accepts the type (``OS::Heat::CloudConfig`` and
``MultipartMime`` ask for the cloudformation one), so noauth's ``token_response`` file
gives every request a catalog naming this heat-api (and a heat-api-cfn nobody runs).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, pool, text
from sqlalchemy.engine import make_url

from hotplate.api.background import free_port
from tests import heat_venv
from tests.distributed import heat_api
from tests.distributed.broker_proxy import private_vhost
from tests.distributed.databases import drop_database, empty_database

VENV = heat_venv.HeatVenv(f"heat-{heat_venv.HEAT_VERSION}", "HOTPLATE_HEAT_VENV",
                          Path(__file__).with_name("heat_requirements.txt"),
                          "import heat.engine.service, heat.api.openstack.wsgi, pymysql, psycopg2")

AUTH_ENCRYPTION_KEY = "hotplate-heat-import-key-32chars"
"""Heat's ``auth_encryption_key`` (exactly 32 characters): it encrypts user_creds'
password and, with ``encrypt_parameters_and_properties``, hidden parameters and
properties."""

PROJECT = "admin"
"""The project (and user) noauth gives every request: Heat stores it as stack.tenant."""

HEAT_DRIVERS = {"mysql": "mysql+pymysql", "postgresql": "postgresql+psycopg2"}
"""Heat's own drivers (its virtualenv holds PyMySQL and psycopg2)."""

Report = Callable[[str], None]

START_SECS = 120.0
STOP_SECS = 60.0
"""How long heat-engine may take to stop gracefully: it finishes each stack's work first."""


class HeatSource:
    """One Heat and its database, broker virtual host and processes (see the module)."""

    def __init__(self, backend: str, server_url: str, broker_url: str, workdir: Path,
                 venv: Path) -> None:
        if backend not in HEAT_DRIVERS:
            raise ValueError(f"backend must be one of {sorted(HEAT_DRIVERS)}: {backend!r}")
        self.backend = backend
        self.venv = venv
        self.workdir = workdir
        self.auth_encryption_key = AUTH_ENCRYPTION_KEY
        self.project_id = PROJECT
        self.timings: list[tuple[str, float]] = []
        """Each step as it ran and the seconds it took, in order."""
        self._server_url = server_url
        self._broker_url = broker_url
        self._database = (f"{make_url(server_url).database}_heatsrc_{backend}_"
                          f"{secrets.token_hex(3)}")
        self._exchange = f"heat-source-{secrets.token_hex(4)}"
        self._port = free_port()
        self._owned = contextlib.ExitStack()
        self._engine: subprocess.Popen[bytes] | None = None
        self._api: subprocess.Popen[bytes] | None = None
        self.url = ""
        """The database as hotplate reads it (the driver of the server URL it was given)."""

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._port}/v1/{PROJECT}"

    @property
    def engine_log(self) -> Path:
        return self.workdir / "heat-engine.log"

    @property
    def api_log(self) -> Path:
        return self.workdir / "heat-api.log"

    def __enter__(self) -> HeatSource:
        try:
            self.prepare()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def prepare(self) -> None:
        """Make the database, the virtual host and heat.conf; create Heat's schema."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.url = empty_database(self._server_url, self._database)
        self._owned.callback(drop_database, self._server_url, self._database)
        broker = self._owned.enter_context(private_vhost(self._broker_url, "heat-source"))
        self._write_conf(broker)
        with self.timed("db_sync"):
            done = subprocess.run(
                [str(self.venv / "bin" / "heat-manage"), "--config-file", str(self._conf),
                 "db_sync"], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"heat-manage db_sync failed:\n{done.stderr[-3000:]}")

    def close(self) -> None:
        """Stop Heat; drop the database and the virtual host."""
        try:
            self.stop()
        finally:
            self._owned.close()

    def client(self) -> Any:
        """python-heatclient v1 against this heat-api (noauth: project ``admin``)."""
        from heatclient.client import Client

        return Client("1", endpoint=self.endpoint, token="noauth")

    def start(self, *, convergence: bool = True, encrypt: bool = False) -> None:
        """Start heat-api and heat-engine; return once both answer."""
        if self._engine is not None or self._api is not None:
            raise RuntimeError("Heat is running already: stop it or restart_engine")
        with self.timed("heat-api and heat-engine start"):
            self._api = self._spawn("heat-wsgi-api", ["--host", "127.0.0.1", "--port",
                                                      str(self._port), "--"], self.api_log)
            self._start_engine(convergence, encrypt)
            self._wait_for_api()

    def restart_engine(self, *, convergence: bool, encrypt: bool) -> None:
        """Stop heat-engine gracefully and start it with other settings; heat-api stays."""
        with self.timed("engine restart"):
            self._stop_engine()
            self._start_engine(convergence, encrypt)

    def stop(self) -> None:
        """Stop both processes gracefully (SIGTERM, SIGKILL only if they hang); then no row
        of Heat's service table is alive, or this raises."""
        with self.timed("stop"):
            if self._api is not None:
                self._api.send_signal(signal.SIGTERM)
            try:
                self._stop_engine()
            finally:
                if self._api is not None:
                    _end(self._api, STOP_SECS)
                    self._api = None

    def live_services(self) -> int:
        """Rows of Heat's service table not soft-deleted: an engine running, or killed."""
        return int(self._query("SELECT COUNT(*) FROM service WHERE deleted_at IS NULL"))

    def log_tails(self, lines: int = 30) -> str:
        """The end of each log, for a failure's message."""
        parts = []
        for log in (self.engine_log, self.api_log):
            tail = log.read_text(errors="replace").splitlines()[-lines:] if log.exists() else []
            parts.append(f"--- {log}\n" + "\n".join(tail))
        return "\n".join(parts)

    def _start_engine(self, convergence: bool, encrypt: bool) -> None:
        engine_conf = self.workdir / "heat-engine.conf"
        engine_conf.write_text(
            "[DEFAULT]\n"
            f"convergence_engine = {str(convergence).lower()}\n"
            f"encrypt_parameters_and_properties = {str(encrypt).lower()}\n")
        with self.timed("engine start"):
            self._engine = self._spawn("heat-engine", [], self.engine_log, engine_conf)
            self._wait_for_engine()

    def _stop_engine(self) -> None:
        if self._engine is None:
            return
        # The master hands SIGTERM on to its worker, which stops taking messages, waits for
        # its stacks' work and soft-deletes its service row.
        self._engine.send_signal(signal.SIGTERM)
        killed = _end(self._engine, STOP_SECS)
        self._engine = None
        live = self.live_services()
        if killed or live:
            raise RuntimeError(f"heat-engine did not stop gracefully (killed: {killed}, "
                               f"live service rows: {live})\n{self.log_tails()}")

    def _spawn(self, program: str, args: list[str], log: Path,
               *more_conf: Path) -> subprocess.Popen[bytes]:
        confs = [arg for conf in (self._conf, *more_conf) for arg in ("--config-file", str(conf))]
        with log.open("ab") as sink:  # the child keeps its own copy of the descriptor
            return subprocess.Popen([str(self.venv / "bin" / program), *args, *confs],
                                    stdout=sink, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, cwd=self.workdir,
                                    start_new_session=True)

    def _wait_for_engine(self) -> None:
        """Until the engine has written its service row: its RPC servers listen by then."""
        self._wait(lambda: self.live_services() > 0, self._engine, "heat-engine")

    def _wait_for_api(self) -> None:
        def answers() -> bool:
            try:
                httpx.get(f"http://127.0.0.1:{self._port}/", timeout=2)
            except httpx.TransportError:
                return False
            return True

        self._wait(answers, self._api, "heat-api")

    def _wait(self, ready: Callable[[], bool], process: subprocess.Popen[bytes] | None,
              name: str) -> None:
        deadline = time.monotonic() + START_SECS
        while not ready():
            if process is None or process.poll() is not None:
                raise RuntimeError(f"{name} ended\n{self.log_tails()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not start in {START_SECS} s\n{self.log_tails()}")
            time.sleep(0.1)

    def _query(self, sql: str) -> Any:
        engine = create_engine(self.url, poolclass=pool.NullPool)
        try:
            with engine.connect() as conn:
                return conn.execute(text(sql)).scalar()
        finally:
            engine.dispose()

    @property
    def _conf(self) -> Path:
        return self.workdir / "heat.conf"

    def _write_conf(self, broker_url: str) -> None:
        policy = self.workdir / "policy.yaml"
        policy.write_text(heat_api.POLICY)
        token = self.workdir / "token.json"
        token.write_text(json.dumps(_token_response(self.endpoint)))
        heat_db = make_url(self.url).set(drivername=HEAT_DRIVERS[self.backend])
        if self.backend == "mysql":
            heat_db = heat_db.update_query_dict({"charset": "utf8"})
        self._conf.write_text(
            "[DEFAULT]\n"
            f"transport_url = {broker_url}\n"
            f"control_exchange = {self._exchange}\n"
            f"host = {self._exchange}\n"
            "debug = False\n"
            "deferred_auth_method = password\n"
            f"auth_encryption_key = {self.auth_encryption_key}\n"
            "num_engine_workers = 1\n"
            "periodic_interval = 5\n"
            "[oslo_messaging_rabbit]\n"
            # An RPC server notices it is told to stop between two polls of the broker,
            # each as long as heartbeat_timeout_threshold / heartbeat_rate / 2 (10 s by
            # default); heat-engine stops its three one after the other.
            "heartbeat_rate = 30\n"
            "[database]\n"
            f"connection = {heat_db.render_as_string(hide_password=False)}\n"
            "[paste_deploy]\n"
            "flavor = noauth\n"
            f"api_paste_config = {self.venv / 'etc' / 'heat' / 'api-paste.ini'}\n"
            "[noauth]\n"
            f"token_response = {token}\n"
            "[oslo_policy]\n"
            "enforce_new_defaults = False\n"
            "enforce_scope = False\n"
            f"policy_file = {policy}\n")

    @contextlib.contextmanager
    def timed(self, step: str) -> Iterator[None]:
        """Record in ``timings`` how long the block took."""
        started = time.monotonic()
        try:
            yield
        finally:
            self.timings.append((step, time.monotonic() - started))


def _token_response(heat_endpoint: str) -> dict[str, Any]:
    """A Keystone v3 token body for noauth to hand on: project ``admin``, role ``admin``,
    and a catalog with Heat's two services."""
    def service(kind: str, name: str, url: str) -> dict[str, Any]:
        return {"type": kind, "name": name, "id": name, "endpoints": [
            {"id": f"{name}-{interface}", "interface": interface, "region": "RegionOne",
             "region_id": "RegionOne", "url": url}
            for interface in ("public", "internal", "admin")]}

    domain = {"id": "default", "name": "Default"}
    return {"token": {
        "methods": ["password"], "issued_at": "2020-01-01T00:00:00.000000Z",
        "expires_at": "2999-01-01T00:00:00.000000Z",
        "user": {"id": PROJECT, "name": PROJECT, "domain": domain},
        "project": {"id": PROJECT, "name": PROJECT, "domain": domain},
        "roles": [{"id": "admin", "name": "admin"}],
        "catalog": [service("orchestration", "heat", heat_endpoint),
                    service("cloudformation", "heat-cfn", "http://127.0.0.1:9/v1")]}}


def _end(process: subprocess.Popen[bytes], grace: float) -> bool:
    """Wait ``grace`` s for a process already sent SIGTERM, then SIGKILL its group; whether
    it had to be killed. What its group left behind is killed either way."""
    killed = False
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        killed = True
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(10)
    return killed


def ensure_venv(report: Report = print) -> Path:
    """The full Heat's virtualenv, built first if needed (``report`` hears the build time)."""
    return VENV.ensure(report)


if __name__ == "__main__":
    print(ensure_venv())

"""Real Heat 27 beside the cloud, on a database of its own: the stacks a test imports.

The cloud's venv holds Heat 27.0.1 (``cloud/README.md``, "Real Heat beside it"). A
:class:`HeatSource` runs one more Heat from it, disturbing neither the cloud's own
Heat (``CLOUD_HEAT=1``) nor hotplate:

- its database on the machine's MariaDB (``<suites' database>_heatsrc_<tag>``, or
  ``hp_cloud_heatsrc_<tag>``), made by the server's root and ``heat-manage db_sync``,
  dropped by :meth:`HeatSource.drop`;
- a RabbitMQ vhost of its own on the cloud's broker: oslo.messaging names a topic's
  queue after the topic alone (``engine``), whatever the exchange, so a
  ``control_exchange`` of its own (set too) would still share the ``engine`` queue
  with any other Heat on the cloud's vhost;
- a heat.conf derived from the cloud's (Keystone, trustee, stack user domain,
  ``region_name_for_services``, ``auth_encryption_key`` kept), its heat-engine and
  its heat-api (uWSGI on a free port; no CFN API), each in a process group of its
  own, logging to files under ``home``.

:meth:`HeatSource.stop` is Heat's graceful stop: SIGTERM, then wait until no engine
counts as alive in Heat's ``service`` table (the engine soft-deletes its row as it
stops), which is what an importer checks before it reads the database.
"""

from __future__ import annotations

import configparser
import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.engine import URL, make_url

from tests.cloud.locate import PROJECT_CLOUD_HOME, Cloud
from tests.real_services import MYSQL

CLOUD_HEAT_CONF = PROJECT_CLOUD_HOME / "etc" / "heat" / "heat.conf"
CLOUD_VENV = PROJECT_CLOUD_HOME / "venv"
AUTH_ENCRYPTION_KEY = "0123456789abcdef0123456789abcdef"
"""The cloud's heat.conf key, kept: the importer decrypts ``user_creds`` with it."""
BROKER = "127.0.0.1:5672"
BROKER_USER, BROKER_PASSWORD = "hotplate-cloud", "hotplate-cloud"
"""The cloud's RabbitMQ user (``cloud/common.sh``), given the vhost made here."""
START_WAIT = 180.0
"""Seconds for db_sync, the engine's service rows and the API's first answer."""
API_STARTS = 3
"""How many ports heat-api tries before its start fails."""
STOP_WAIT = 120.0
"""Seconds for a graceful stop before the process group is killed."""


def free_port() -> int:
    """A port nothing listens on now (the API binds it a moment later)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_url() -> str:
    """The MariaDB server (no database) whose root makes and drops Heat's database:
    the suites' own (``HOTPLATE_TEST_MYSQL_URL``), else the machine's."""
    url = make_url(os.environ.get(MYSQL.variable) or MYSQL.local_url)
    server = URL.create(url.drivername, url.username, url.password, url.host, url.port)
    return server.render_as_string(hide_password=False)


def database_prefix() -> str:
    """Names of these databases start so: beside the suites' own database."""
    configured = os.environ.get(MYSQL.variable)
    base = make_url(configured).database if configured else None
    return f"{base}_heatsrc_" if base else "hp_cloud_heatsrc_"


@dataclass
class HeatSource:
    """One real Heat (engine and API) on its own database, vhost and port."""

    cloud: Cloud
    home: Path
    engine_workers: int = 1
    tag: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    port: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds each phase took (start, stop), for the suites' reports."""
    _processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    _created: bool = False

    # -- where things are --------------------------------------------------------------
    @property
    def database(self) -> str:
        return f"{database_prefix()}{self.tag}"

    @property
    def url(self) -> str:
        """Heat's database as hotplate reads it (``mysql+pymysql://...``)."""
        return f"{server_url()}/{self.database}?charset=utf8"

    @property
    def vhost(self) -> str:
        return f"hp_cloud_heatsrc_{self.tag}"

    @property
    def auth_encryption_key(self) -> str:
        return AUTH_ENCRYPTION_KEY

    @property
    def conf(self) -> Path:
        return self.home / "heat.conf"

    def log(self, name: str) -> Path:
        return self.home / f"{name}.log"

    def api_url(self, project_id: str) -> str:
        return f"http://127.0.0.1:{self.port}/v1/{project_id}"

    # -- the user's view -----------------------------------------------------------------
    def connection(self) -> Any:
        """An openstacksdk connection as the cloud's test user (``hotplate-demo``)."""
        return self.cloud.connect()

    def identity(self) -> tuple[str, str]:
        """``(project_id, user_id)`` of the test user, as Heat records its stacks."""
        conn = self.connection()
        try:
            return str(conn.current_project_id), str(conn.current_user_id)
        finally:
            conn.close()

    def client(self) -> Any:
        """python-heatclient as the test user, on this Heat's API. No region is sent, so
        Heat looks for Nova, Neutron and Cinder in ``region_name_for_services``
        (HeatRegion: the same cloud on ports of its own, as the cloud's Heat does)."""
        from heatclient import client

        conn = self.connection()
        return client.Client("1", session=conn.session,
                             endpoint_override=self.api_url(str(conn.current_project_id)))

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> None:
        """Make the database and vhost (once), then start the engine and the API and
        wait until both serve. Starting a running source does nothing."""
        if self._processes:
            return
        began = time.monotonic()
        self.home.mkdir(parents=True, exist_ok=True)
        if not self._created:
            self._create_database()
            self._create_vhost()
            self._created = True
            self.port = free_port()
            self._write_conf()
            self._run("heat-manage", "--config-file", str(self.conf),
                      "--log-file", str(self.log("heat-manage")), "db_sync")
            self.timings["db_sync"] = time.monotonic() - began
        self._start_api()
        self._spawn("heat-engine", [str(CLOUD_VENV / "bin" / "heat-engine"),
                                    "--config-file", str(self.conf),
                                    "--log-file", str(self.log("heat-engine"))])
        self._wait_engines()
        self._check_running("starting")  # an API that lost its port exits by now
        self.timings["start"] = time.monotonic() - began

    def stop(self) -> None:
        """Heat's graceful stop: SIGTERM the engine and wait until its service rows are
        no longer alive and it exited (killed after ``STOP_WAIT`` s), then the API."""
        if not self._processes:
            return
        began = time.monotonic()
        engine = self._processes.pop("heat-engine", None)
        if engine is not None:
            engine.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + STOP_WAIT
            while (self.engines_alive() or engine.poll() is None) \
                    and time.monotonic() < deadline:
                time.sleep(0.5)
            self._kill_group(engine)
        api = self._processes.pop("heat-api", None)
        if api is not None:
            api.send_signal(signal.SIGTERM)
            self._kill_group(api, wait=30.0)
        self.timings["stop"] = time.monotonic() - began

    def drop(self) -> None:
        """Stop, then drop the database and the vhost: nothing of this Heat remains."""
        self.stop()
        if not self._created:
            return
        admin = create_engine(server_url())
        try:
            with admin.begin() as conn:
                conn.execute(text(f"DROP DATABASE IF EXISTS `{self.database}`"))
        finally:
            admin.dispose()
        subprocess.run(["rabbitmqctl", "-q", "delete_vhost", self.vhost],
                       capture_output=True, timeout=120, check=False)
        self._created = False

    # -- Heat's service table ----------------------------------------------------------------
    def engines_alive(self) -> int:
        """How many engines count as alive by Heat's rule: a row not deleted whose last
        report is at most two report intervals old."""
        now = datetime.now(UTC).replace(tzinfo=None)  # Heat stores naive UTC
        engine = create_engine(self.url)
        try:
            with engine.connect() as conn:
                rows = conn.execute(text(
                    "SELECT created_at, updated_at, report_interval FROM service "
                    "WHERE deleted_at IS NULL")).all()
        finally:
            engine.dispose()
        return sum(1 for created, updated, interval in rows
                   if (now - (updated or created)).total_seconds() <= 2 * interval)

    # -- the parts ---------------------------------------------------------------------------
    def _create_database(self) -> None:
        admin = create_engine(server_url())
        try:
            with admin.begin() as conn:
                conn.execute(text(f"CREATE DATABASE `{self.database}` CHARACTER SET utf8"))
        finally:
            admin.dispose()

    def _create_vhost(self) -> None:
        for args in (["add_vhost", self.vhost],
                     ["set_permissions", "-p", self.vhost, BROKER_USER, ".*", ".*", ".*"]):
            subprocess.run(["rabbitmqctl", "-q", *args], capture_output=True,
                           timeout=120, check=True)

    def _write_conf(self) -> None:
        """The cloud's heat.conf with this source's database, broker, RPC names, port,
        locks and worker count; its logs go to files named by the command line."""
        parser = configparser.RawConfigParser()  # Heat's %(tenant_id)s stays as it is
        parser.read(CLOUD_HEAT_CONF)
        parser.remove_option("DEFAULT", "log_dir")
        overrides: dict[str, dict[str, str]] = {
            "DEFAULT": {
                "transport_url": f"rabbit://{BROKER_USER}:{BROKER_PASSWORD}@{BROKER}/{self.vhost}",
                "control_exchange": f"heatsrc_{self.tag}",
                "host": f"heatsrc-{self.tag}",
                "num_engine_workers": str(self.engine_workers),
                "auth_encryption_key": AUTH_ENCRYPTION_KEY,
            },
            "database": {"connection": self.url},
            "clients_heat": {"url": f"http://127.0.0.1:{self.port}/v1/%(tenant_id)s"},
            "oslo_concurrency": {"lock_path": str(self.home / "locks")},
        }
        for section, options in overrides.items():
            if section != "DEFAULT" and not parser.has_section(section):
                parser.add_section(section)
            for key, value in options.items():
                parser.set(section, key, value)
        with self.conf.open("w") as out:
            parser.write(out)

    def _uwsgi_command(self) -> list[str]:
        pyargv = f"--config-file {self.conf} --log-file {self.log('heat-api')}"
        return [str(CLOUD_VENV / "bin" / "uwsgi"),
                "--http-socket", f"127.0.0.1:{self.port}",
                "--module", "heat.wsgi.api:application", "--virtualenv", str(CLOUD_VENV),
                "--master", "--processes", "1", "--threads", "4", "--enable-threads",
                "--lazy-apps", "--need-app", "--die-on-term", "--buffer-size", "65535",
                "--add-header", "Connection: close", "--pyargv", pyargv]

    def _start_api(self) -> None:
        """heat-api on ``port``, or on another one (the configuration rewritten before
        the engine reads it) when something took that port meanwhile."""
        for attempt in range(API_STARTS):
            self._spawn("heat-api", self._uwsgi_command())
            try:
                self._wait_api()
                return
            except RuntimeError:
                api = self._processes.pop("heat-api")
                if api.poll() is None or attempt == API_STARTS - 1:
                    self._processes["heat-api"] = api
                    raise
            self.port = free_port()
            self._write_conf()

    def _run(self, command: str, *args: str) -> None:
        done = subprocess.run([str(CLOUD_VENV / "bin" / command), *args],
                              capture_output=True, text=True, timeout=START_WAIT, check=False)
        if done.returncode:
            raise RuntimeError(f"{command} {' '.join(args)} failed:\n{done.stderr[-4000:]}")

    def _spawn(self, name: str, command: list[str]) -> None:
        with (self.home / f"{name}.out").open("ab") as out:
            self._processes[name] = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True)

    def _check_running(self, what: str) -> None:
        for name, proc in self._processes.items():
            if proc.poll() is not None:
                tail = (self.home / f"{name}.out").read_text(errors="replace")[-3000:]
                raise RuntimeError(f"{name} exited ({proc.returncode}) while {what}:\n{tail}")

    def _wait_api(self) -> None:
        deadline = time.monotonic() + START_WAIT
        while True:
            self._check_running("waiting for heat-api")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/", timeout=5):
                    return
            except OSError as exc:
                # Heat answers / with 300 Multiple Choices: an HTTPError is an answer
                if getattr(exc, "code", None):
                    return
            if time.monotonic() > deadline:
                raise RuntimeError(f"heat-api did not answer on {self.port} in {START_WAIT} s")
            time.sleep(0.5)

    def _wait_engines(self) -> None:
        deadline = time.monotonic() + START_WAIT
        while self.engines_alive() < self.engine_workers:
            self._check_running("waiting for the engine's service rows")
            if time.monotonic() > deadline:
                raise RuntimeError(f"heat-engine wrote no service row in {START_WAIT} s; "
                                   f"see {self.log('heat-engine')}")
            time.sleep(0.5)

    @staticmethod
    def _kill_group(proc: subprocess.Popen[bytes], wait: float = 0.0) -> None:
        """Wait ``wait`` s for ``proc`` to exit, then kill what is left of its group."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(wait)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        proc.wait(30)

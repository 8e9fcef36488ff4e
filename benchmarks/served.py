"""A fresh ``hotplate serve`` in a subprocess, for benchmarks that go through the API.

The server runs as a user would start it (``hotplate serve --noauth``) on a
loopback port, with its SQLite database in a temporary directory and a
configuration file of its own, so neither ``~/.hotplate`` nor the caller's
``HOTPLATE_*`` variables change what is measured. Its CPU time is read from
the operating system (psutil), so a benchmark can tell the server's cost apart
from its own.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
import psutil

from hotplate.api.background import free_port

REPO = Path(__file__).resolve().parent.parent


class ServerFailed(RuntimeError):
    """The server did not start, or ended while it was being measured."""


class Served:
    """``with Served(workers=16) as server:`` a running server; stopped (SIGTERM) on exit.

    Args:
        workers: the engine's threads (``executor_thread_pool_size``).
        start_timeout: seconds the server has to answer its first request.
    """

    def __init__(self, *, workers: int = 16, start_timeout: float = 60.0) -> None:
        self.workers = workers
        self.start_timeout = start_timeout
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._ps: psutil.Process | None = None
        self.base = ""
        self.exit_status: int | None = None

    @property
    def endpoint(self) -> str:
        """The orchestration API's endpoint, as heatclient takes it."""
        return f"{self.base}/v1/admin"

    @property
    def log_path(self) -> Path:
        assert self._tmp is not None
        return Path(self._tmp.name) / "serve.log"

    def client(self) -> Any:
        """A python-heatclient client of the server (noauth: any token will do)."""
        from heatclient.client import Client

        return Client("1", endpoint=self.endpoint, token="noauth")

    def cpu_seconds(self) -> float:
        """The server process's CPU time so far, user and system, every thread's."""
        assert self._ps is not None
        times = self._ps.cpu_times()
        return float(times.user + times.system)

    def loop_cpu_seconds(self) -> float:
        """The CPU time of the server's main thread, where uvicorn's event loop runs
        every request and stream (the engine's work is on other threads)."""
        assert self._ps is not None
        main = next((t for t in self._ps.threads() if t.id == self._ps.pid), None)
        return float(main.user_time + main.system_time) if main is not None else 0.0

    def thread_cpu_seconds(self) -> dict[int, float]:
        """Each thread's CPU time so far, by its native id."""
        assert self._ps is not None
        return {t.id: float(t.user_time + t.system_time) for t in self._ps.threads()}

    def thread_names(self) -> dict[int, str]:
        """Each thread's Python name by its native id, as ``py-spy dump`` reads them
        (the operating system does not know Python's names)."""
        assert self._ps is not None
        spy = Path(sys.executable).with_name("py-spy")
        dumped = subprocess.run([str(spy), "dump", "--pid", str(self._ps.pid)],
                                capture_output=True, text=True, timeout=60, check=True)
        return {int(found[1]): found[2] for found in
                re.finditer(r'^Thread (\d+) \([a-z]+\): "([^"]*)"', dumped.stdout, re.M)}

    def rss_mb(self) -> float:
        assert self._ps is not None
        return float(self._ps.memory_info().rss) / 2**20

    def check_alive(self) -> None:
        assert self._proc is not None
        if self._proc.poll() is not None:
            raise ServerFailed(f"the server ended (exit {self._proc.returncode}): "
                               f"{self.log_tail()}")

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def __enter__(self) -> Served:
        self._tmp = tempfile.TemporaryDirectory(prefix="hotplate-bench-")
        tmp = Path(self._tmp.name)
        conf = tmp / "hotplate.conf"
        conf.write_text("[DEFAULT]\n"
                        "max_resources_per_stack = -1\n"
                        f"executor_thread_pool_size = {self.workers}\n")
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("HOTPLATE_")}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
        with self.log_path.open("wb") as log:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "hotplate.cli.main", "serve", "--noauth",
                 "--host", "127.0.0.1", "--port", str(port), "--cfn-port", "0",
                 "--data-dir", str(tmp / "var"), "--config-file", str(conf)],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        self._ps = psutil.Process(self._proc.pid)
        self.base = f"http://127.0.0.1:{port}"
        try:
            self._wait_until_serving()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _wait_until_serving(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        while True:
            self.check_alive()
            try:
                httpx.get(f"{self.base}/versions", timeout=2)
                return
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise ServerFailed(f"the server did not answer within "
                                       f"{self.start_timeout:.0f} s: {self.log_tail()}")
                time.sleep(0.05)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        try:
            if self._proc is not None:
                self.exit_status = self.stop(self._proc)
        finally:
            if self._tmp is not None:
                self._tmp.cleanup()

    @staticmethod
    def stop(proc: subprocess.Popen[bytes], grace: float = 60.0) -> int:
        """SIGTERM (the server stops its engine and exits 0), SIGKILL after ``grace`` s."""
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                return proc.wait(grace)
            except subprocess.TimeoutExpired:
                proc.kill()
        return proc.wait()

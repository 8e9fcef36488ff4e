"""The ``openstack`` command as the suites run it: the unchanged program, started
from an interpreter that has already imported it, and with ``--wait`` looking at
the stack every ``WAIT_POLL`` seconds.

Where the time went: an ``openstack`` process spends a second and a half importing
openstackclient, openstacksdk and heatclient before it sends anything, and the
cloud suites run it some hundreds of times; and python-heatclient's ``--wait``
reads the stack's events every 5 seconds (only ``stack create`` takes ``--poll``,
in whole seconds) while the stacks of these suites take the engine a second or
two. So :func:`run_openstack` asks one long-lived process (the fork server below,
one per test process) that has imported the CLI to fork a child per command; the
child takes the command's arguments, environment and standard streams, and runs
the CLI's own ``main`` with heatclient's event poll given a shorter period. What it
sends and prints, its exit status, and when it stops waiting are the CLI's own.

:func:`openstack_command` is the same program as a plain process, for a suite that
runs the CLI with a working directory or home of its own (openstacksdk reads
``./clouds.yaml`` and ``~/.config`` as it is imported, which a fork would share).
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

WAIT_POLL = 0.5

_QUICK_POLL = f"""
import sys
from heatclient.common import event_utils

_poll = event_utils.poll_for_events


def _quick(*args, **kwargs):
    kwargs["poll_period"] = min(float(kwargs.get("poll_period", 5)), {WAIT_POLL})
    return _poll(*args, **kwargs)


event_utils.poll_for_events = _quick
sys.argv[0] = "openstack"
from openstackclient.shell import main
"""

_PROGRAM = _QUICK_POLL + "\nsys.exit(main())\n"

_FORK_SERVER = _QUICK_POLL + """
import json
import os
import traceback

import importlib
from importlib.metadata import entry_points

import openstack.connection  # noqa: F401

_points = entry_points()
for _group in _points.groups:  # the command modules the CLI loads as it starts
    if _group.startswith(("openstack.", "keystoneauth1.plugin")):
        for _point in _points.select(group=_group):
            try:
                importlib.import_module(_point.module)
            except Exception:  # a plugin that does not import: the CLI says so itself
                pass


def _child(request):
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    stdin = os.open(os.devnull, os.O_RDONLY)
    out = os.open(request["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err = os.open(request["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for source, target in ((stdin, 0), (out, 1), (err, 2)):
        os.dup2(source, target)
    sys.stdin = open(0, closefd=False)
    sys.stdout = open(1, "w", closefd=False)
    sys.stderr = open(2, "w", closefd=False)
    sys.argv = ["openstack", *request["argv"]]
    try:
        status = main(request["argv"])
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status or 0)


replies = os.fdopen(int(sys.argv[1]), "w")
requests = sys.stdin
for line in requests:
    request = json.loads(line)
    replies.flush()
    pid = os.fork()
    if pid == 0:
        replies.close()
        _child(request)
    replies.write(json.dumps({"pid": pid}) + "\\n")
    replies.flush()
    _, status = os.waitpid(pid, 0)
    replies.write(json.dumps({"status": os.waitstatus_to_exitcode(status)}) + "\\n")
    replies.flush()
"""


def openstack_command() -> list[str]:
    """The argv prefix that runs ``openstack`` as a process of its own."""
    return [sys.executable, "-c", _PROGRAM]


def openstack_available() -> bool:
    """Whether python-openstackclient and python-heatclient are installed here."""
    return all(importlib.util.find_spec(name) is not None
               for name in ("openstackclient", "heatclient"))


class _ForkServer:
    """The long-lived process that forks a CLI per command (see the module's text)."""

    def __init__(self) -> None:
        read, write = os.pipe()
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _FORK_SERVER, str(write)], stdin=subprocess.PIPE,
            pass_fds=(write,), text=True, start_new_session=True)
        os.close(write)
        self._replies = os.fdopen(read, "r")

    def alive(self) -> bool:
        return self._proc.poll() is None

    def run(self, argv: Sequence[str], env: Mapping[str, str], timeout: float,
            ) -> subprocess.CompletedProcess[str]:
        with tempfile.TemporaryDirectory(prefix="openstack-") as tmp:
            out, err = Path(tmp) / "out", Path(tmp) / "err"
            request = {"argv": list(argv), "env": dict(env), "cwd": os.getcwd(),
                       "out": str(out), "err": str(err)}
            assert self._proc.stdin is not None
            self._proc.stdin.write(json.dumps(request) + "\n")
            self._proc.stdin.flush()
            pid = self._reply(120.0)["pid"]  # the first waits for the imports
            try:
                status = self._reply(timeout)["status"]
            except subprocess.TimeoutExpired:
                os.kill(pid, signal.SIGKILL)
                self.stop()
                raise
            return subprocess.CompletedProcess(["openstack", *argv], status,
                                               out.read_text(), err.read_text())

    def _reply(self, timeout: float) -> dict[str, int]:
        ready, _, _ = select.select([self._replies], [], [], timeout)
        line = self._replies.readline() if ready else ""
        if not line:
            raise subprocess.TimeoutExpired(["openstack"], timeout)
        reply: dict[str, int] = json.loads(line)
        return reply

    def stop(self) -> None:
        if self.alive():
            os.killpg(self._proc.pid, signal.SIGKILL)
        self._proc.wait()
        self._replies.close()


_SERVER: list[_ForkServer] = []
_LOCK = threading.Lock()


def run_openstack(argv: Sequence[str], env: Mapping[str, str], *, timeout: float = 600.0,
                  ) -> subprocess.CompletedProcess[str]:
    """``openstack <argv>`` with exactly ``env`` as its environment, run to its end:
    its exit status, standard output and standard error, as ``subprocess.run`` gives
    them with ``capture_output=True, text=True``."""
    with _LOCK:
        if not _SERVER or not _SERVER[0].alive():
            _SERVER[:] = [_ForkServer()]
            atexit.register(_SERVER[0].stop)
        return _SERVER[0].run(argv, env, timeout)

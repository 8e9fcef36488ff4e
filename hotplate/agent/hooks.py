"""Hooks: what runs a deployment of a group, and what it answers.

A hook takes one deployment and returns its signal data: the outputs plus
``deploy_stdout``, ``deploy_stderr`` and ``deploy_status_code``. Group
``script`` is built in (heat-config's ``hook-script.py`` contract); any
other group runs an installed heat-config hook executable of that name,
which reads the deployment as JSON on stdin and prints its signal data as
JSON. Each hook's process starts a session of its own, so what it leaves
behind can be ended with it (``end_leftover``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import subprocess
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from hotplate.agent.metadata import inputs_of

__all__ = [
    "HOOK_DIRS",
    "Started",
    "end_leftover",
    "find_hook",
    "process_start",
    "run_executable_hook",
    "run_script",
]

LOG = logging.getLogger("hotplate.agent")

HOOK_DIRS = ("/usr/libexec/heat-config/hooks", "/var/lib/heat-config/hooks")
"""heat-config's hook directories, after ``HEAT_CONFIG_HOOKS``."""

CANNOT_EXECUTE = 126
"""The status a shell gives a command it found but could not execute."""

Started = Callable[[int, "str | None"], None]
"""Told the hook's process id and start time as soon as it runs."""


def find_hook(group: str, dirs: Iterable[str]) -> Path | None:
    """The executable for ``group`` in the first directory that has one (the
    group sanitised to letters, digits, ``-`` and ``_``, as heat-config does)."""
    name = "".join(c for c in group if c in "-_" or c.isalnum())
    if not name:
        return None
    for directory in dirs:
        if directory and (candidate := Path(directory) / name).exists():
            return candidate
    return None


def process_start(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux), telling a
    reused pid from the process that had it; None where it cannot be read."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after it.
    fields = stat.rpartition(")")[2].split()
    return fields[19] if len(fields) > 19 else None


def end_leftover(pid: int, start: str | None) -> bool:
    """Kill the session a hook started, if that very process still runs
    (a runner killed mid-run leaves its hook behind); True if it did."""
    if start is None or process_start(pid) != start:
        return False
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
        return True
    return False


def _environment(deployment: Mapping[str, Any]) -> dict[str, str]:
    env = dict(os.environ)
    for name, value in inputs_of(deployment).items():
        if isinstance(value, dict | list):
            env[name] = json.dumps(value)
        else:
            env[name] = "" if value is None else str(value)
    return env


def _run(command: list[str], started: Started, *, env: Mapping[str, str],
         cwd: Path | None = None, stdin: bytes | None = None) -> tuple[int, bytes, bytes]:
    try:
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(env), cwd=cwd,
            start_new_session=True)
    except OSError as exc:
        return CANNOT_EXECUTE, b"", f"{command[0]}: {exc.strerror or exc}\n".encode()
    started(process.pid, process_start(process.pid))
    stdout, stderr = process.communicate(stdin)
    return process.returncode, stdout, stderr


def _decoded(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def run_script(deployment: Mapping[str, Any], scripts: Path, outputs: Path,
               started: Started) -> dict[str, Any]:
    """Group ``script``: the config as an executable, inputs as environment
    variables, ``heat_outputs_path`` for outputs; answers the outputs found
    and ``deploy_stdout`` / ``deploy_stderr`` / ``deploy_status_code``."""
    deployment_id = str(deployment["id"])
    script = scripts / Path(deployment_id).name
    config = deployment.get("config")
    text = config if isinstance(config, str) else json.dumps(config or "")
    with contextlib.suppress(FileNotFoundError):
        script.unlink()
    with os.fdopen(os.open(script, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o700), "w") as f:
        f.write(text)
    outputs_path = outputs / Path(deployment_id).name
    declared = [str(o["name"]) for o in deployment.get("outputs") or []
                if isinstance(o, dict) and "name" in o]
    for name in declared:  # a rerun must not read the last run's files
        with contextlib.suppress(FileNotFoundError):
            Path(f"{outputs_path}.{name}").unlink()
    env = _environment(deployment)
    env["heat_outputs_path"] = str(outputs_path)
    LOG.debug("running %s", script)
    code, stdout, stderr = _run([str(script)], started, env=env, cwd=scripts)
    response: dict[str, Any] = {}
    for name in declared:
        with contextlib.suppress(OSError):
            response[name] = Path(f"{outputs_path}.{name}").read_text()
    response.update({"deploy_stdout": _decoded(stdout), "deploy_stderr": _decoded(stderr),
                     "deploy_status_code": code})
    return response


def run_executable_hook(hook: Path, deployment: Mapping[str, Any],
                        started: Started) -> dict[str, Any]:
    """A heat-config hook executable: the deployment on stdin, its signal data
    as JSON on stdout (or, when it prints none, its output and status)."""
    payload = json.dumps(deployment).encode("utf-8", "replace")
    LOG.debug("running %s", hook)
    code, stdout, stderr = _run([str(hook)], started, env=os.environ, stdin=payload)
    fallback = {"deploy_stdout": _decoded(stdout), "deploy_stderr": _decoded(stderr),
                "deploy_status_code": code}
    if not stdout:
        return fallback
    try:
        answered = json.loads(_decoded(stdout))
    except ValueError:
        return fallback
    return answered if isinstance(answered, dict) else fallback

"""Hooks: what runs a deployment of a group, and what it answers.

A hook takes one deployment and returns its signal data: the outputs plus
``deploy_stdout``, ``deploy_stderr`` and ``deploy_status_code``. Group
``script`` is built in (heat-config's ``hook-script.py`` contract); any
other group runs an installed heat-config hook executable of that name,
which reads the deployment as JSON on stdin and prints its signal data as
JSON. Every process of a hook run carries the run's token in its
environment (``HOTPLATE_AGENT_RUN``), so what a killed runner left behind can
be found and ended (``end_leftovers``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from hotplate.agent.metadata import inputs_of

__all__ = [
    "HOOK_DIRS",
    "RUN_VARIABLE",
    "end_leftovers",
    "find_hook",
    "run_executable_hook",
    "run_script",
]

LOG = logging.getLogger("hotplate.agent")

HOOK_DIRS = ("/usr/libexec/heat-config/hooks", "/var/lib/heat-config/hooks")
"""heat-config's hook directories, after ``HEAT_CONFIG_HOOKS``."""

CANNOT_EXECUTE = 126
"""The status a shell gives a command it found but could not execute."""

RUN_VARIABLE = "HOTPLATE_AGENT_RUN"
"""The environment variable holding a hook run's token, inherited by all it starts."""


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


def end_leftovers(run_token: str) -> int:
    """SIGKILL every process still carrying ``run_token`` (a runner killed
    mid-run leaves its hook, and whatever the hook started, behind); how many.
    Reads /proc (Linux); elsewhere finds none."""
    marker = f"{RUN_VARIABLE}={run_token}".encode()
    ended = 0
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            variables = (entry / "environ").read_bytes().split(b"\0")
        except OSError:  # gone already, or not ours to read
            continue
        if marker in variables and int(entry.name) != os.getpid():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(entry.name), signal.SIGKILL)
                ended += 1
    return ended


def _environment(deployment: Mapping[str, Any], run_token: str) -> dict[str, str]:
    env = dict(os.environ)
    env[RUN_VARIABLE] = run_token
    for name, value in inputs_of(deployment).items():
        if isinstance(value, dict | list):
            env[name] = json.dumps(value)
        else:
            env[name] = "" if value is None else str(value)
    return env


def _run(command: list[str], *, env: Mapping[str, str],
         cwd: Path | None = None, stdin: bytes | None = None) -> tuple[int, bytes, bytes]:
    try:
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(env), cwd=cwd)
    except OSError as exc:
        return CANNOT_EXECUTE, b"", f"{command[0]}: {exc.strerror or exc}\n".encode()
    stdout, stderr = process.communicate(stdin)
    return process.returncode, stdout, stderr


def _decoded(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def run_script(deployment: Mapping[str, Any], scripts: Path, outputs: Path,
               run_token: str) -> dict[str, Any]:
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
    env = _environment(deployment, run_token)
    env["heat_outputs_path"] = str(outputs_path)
    LOG.debug("running %s", script)
    code, stdout, stderr = _run([str(script)], env=env, cwd=scripts)
    response: dict[str, Any] = {}
    for name in declared:
        with contextlib.suppress(OSError):
            response[name] = Path(f"{outputs_path}.{name}").read_text()
    response.update({"deploy_stdout": _decoded(stdout), "deploy_stderr": _decoded(stderr),
                     "deploy_status_code": code})
    return response


def run_executable_hook(hook: Path, deployment: Mapping[str, Any],
                        run_token: str) -> dict[str, Any]:
    """A heat-config hook executable: the deployment on stdin, its signal data
    as JSON on stdout (or, when it prints none, its output and status)."""
    payload = json.dumps(deployment).encode("utf-8", "replace")
    LOG.debug("running %s", hook)
    env = {**os.environ, RUN_VARIABLE: run_token}
    code, stdout, stderr = _run([str(hook)], env=env, stdin=payload)
    fallback = {"deploy_stdout": _decoded(stdout), "deploy_stderr": _decoded(stderr),
                "deploy_status_code": code}
    if not stdout:
        return fallback
    try:
        answered = json.loads(_decoded(stdout))
    except ValueError:
        return fallback
    return answered if isinstance(answered, dict) else fallback

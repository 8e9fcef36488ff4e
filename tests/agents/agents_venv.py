"""The real in-instance agents in a virtualenv of their own, built once per machine.

os-collect-config and heat-cfntools (``cfn-signal``), from PyPI, pinned in
``agents_requirements.txt`` and installed with ``--no-deps``, on Python 3.11
(``$HOTPLATE_AGENTS_PYTHON``, default ``/usr/bin/python3.11``: heat-cfntools
needs boto 2, which needs the ``imp`` module that 3.12 dropped). The
virtualenv lives under ``$HOTPLATE_AGENTS_VENV`` or
``${XDG_CACHE_HOME:-~/.cache}/hotplate/agents-occ-14.1.0-cfntools-2.0.0``; a
stamp holding the requirements it was built from marks it complete, so later
runs reuse it, and a changed list or an interrupted build builds it again. A
lock keeps two test runs from building it at once.

``python tests/agents/agents_venv.py`` builds it ahead of a test run and
prints where it is.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

OS_COLLECT_CONFIG = "14.1.0"
HEAT_CFNTOOLS = "2.0.0"
REQUIREMENTS = Path(__file__).with_name("agents_requirements.txt")
STAMP = ".hotplate-complete"


class BuildFailed(RuntimeError):
    """The virtualenv could not be built (no Python 3.11, no registry): the text says why."""


def python() -> Path:
    """The interpreter the agents run on."""
    return Path(os.environ.get("HOTPLATE_AGENTS_PYTHON") or "/usr/bin/python3.11")


def venv_dir() -> Path:
    """Where the virtualenv lives: per user, outside any work tree."""
    chosen = os.environ.get("HOTPLATE_AGENTS_VENV")
    if chosen:
        return Path(chosen)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "hotplate" / f"agents-occ-{OS_COLLECT_CONFIG}-cfntools-{HEAT_CFNTOOLS}"


def ensure_venv(report: Callable[[str], None] = print) -> Path:
    """The virtualenv, built first if missing or incomplete; ``report`` hears how
    long a build took (nothing when it is reused).

    Raises:
        BuildFailed: no usable interpreter, or pip failed.
    """
    venv = venv_dir()
    wanted = REQUIREMENTS.read_text()
    if _complete(venv, wanted):
        return venv
    if not python().exists():
        raise BuildFailed(f"{python()} is missing (the agents need Python 3.11; "
                          "set HOTPLATE_AGENTS_PYTHON)")
    venv.parent.mkdir(parents=True, exist_ok=True)
    with (venv.parent / f"{venv.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another run may be building it right now
        if not _complete(venv, wanted):
            started = time.monotonic()
            _build(venv)
            (venv / STAMP).write_text(wanted)
            report(f"built the agents' virtualenv (os-collect-config {OS_COLLECT_CONFIG}, "
                   f"heat-cfntools {HEAT_CFNTOOLS}) in {time.monotonic() - started:.1f} s "
                   f"at {venv}")
    return venv


def _complete(venv: Path, wanted: str) -> bool:
    stamp = venv / STAMP
    return stamp.is_file() and stamp.read_text() == wanted


def _build(venv: Path) -> None:
    # Start clean: a half-built virtualenv may hold anything.
    _run([str(python()), "-m", "venv", "--clear", str(venv)])
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps",
          "--disable-pip-version-check", "--no-input", "-r", str(REQUIREMENTS)])
    _run([str(venv / "bin" / "python"), "-W", "ignore", "-c",
          "import os_collect_config.collect, heat_cfntools.cfntools"])
    _run([str(venv / "bin" / "cfn-signal"), "--help"])


def _run(command: list[str]) -> None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False,
                              timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BuildFailed(f"{' '.join(command[:4])} ... failed: {exc}") from exc
    if done.returncode != 0:
        raise BuildFailed(f"{' '.join(command[:4])} ... failed:\n"
                          f"{(done.stdout + done.stderr)[-3000:]}")


def tool(venv: Path, name: str) -> Path:
    """One of the agents' commands (``os-collect-config``, ``cfn-signal``, ...)."""
    return venv / "bin" / name


if __name__ == "__main__":
    print(ensure_venv())

"""Virtualenvs holding Heat 27.0.1 (or a part of it), built once per machine from a pinned
requirements file.

Each lives under ``${XDG_CACHE_HOME:-~/.cache}/hotplate/<name>`` unless a variable names
another place. The requirements are installed with ``--no-deps``: the file is the whole
list, so a build resolves nothing and is the same on every machine. A stamp holding the
requirements it was built from marks it complete, so a second ``make test`` reuses it,
and a changed list or an interrupted build builds it again. A lock keeps two test runs
from building the same one at once.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HEAT_VERSION = "27.0.1"
STAMP = ".hotplate-complete"


class BuildFailed(RuntimeError):
    """pip could not build the virtualenv (no registry, a missing wheel): the output says."""


@dataclass(frozen=True)
class HeatVenv:
    """One kind of Heat virtualenv: what goes in it and how to tell it works."""

    name: str
    """Its directory's name under the cache, and what a build report calls it."""
    variable: str
    """The environment variable that may name another directory."""
    requirements: Path
    probe: str
    """Python run in the new virtualenv to prove the build (an import)."""

    def directory(self) -> Path:
        """Where the virtualenv lives: per user, outside any work tree."""
        chosen = os.environ.get(self.variable)
        if chosen:
            return Path(chosen)
        cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        return cache / "hotplate" / self.name

    def ensure(self, report: Callable[[str], None] = print) -> Path:
        """The virtualenv, built first if it is missing or incomplete; ``report`` hears
        how long a build took (nothing when it is reused)."""
        venv = self.directory()
        wanted = self.requirements.read_text()
        if _complete(venv, wanted):
            return venv
        venv.parent.mkdir(parents=True, exist_ok=True)
        with (venv.parent / f"{venv.name}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another run may be building it right now
            if not _complete(venv, wanted):
                started = time.monotonic()
                self._build(venv)
                (venv / STAMP).write_text(wanted)
                report(f"built {self.name}'s virtualenv in "
                       f"{time.monotonic() - started:.1f} s at {venv}")
        return venv

    def _build(self, venv: Path) -> None:
        # Start clean: a half-built virtualenv may hold anything.
        _run([sys.executable, "-m", "venv", "--clear", str(venv)])
        _run([str(python(venv)), "-m", "pip", "install", "--quiet", "--no-deps",
              "--disable-pip-version-check", "--no-input", "-r", str(self.requirements)])
        _run([str(python(venv)), "-c", self.probe])


def python(venv: Path) -> Path:
    """The virtualenv's interpreter, for code that must run against Heat's own modules."""
    return venv / "bin" / "python"


def _complete(venv: Path, wanted: str) -> bool:
    stamp = venv / STAMP
    return stamp.is_file() and stamp.read_text() == wanted


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BuildFailed(f"{' '.join(command[:4])} ... failed:\n"
                          f"{(done.stdout + done.stderr)[-3000:]}")

"""One API of the project's cloud taken away for a while, under the cloud's lock.

``api_away(name)`` stops a uWSGI API of the cloud (``cloud/api.sh``) and starts it
again on leaving, whatever happened in between. The cloud's lock
(``/tmp/hotplate-cloud-ports.lock``, which the cloud suites run under) is held from
the stop to the start, so no other suite meets the API away; a test run under
``flock`` on that file already holds it through its ``flock`` ancestor.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.cloud.locate import PROJECT_CLOUD_HOME

LOCK = Path("/tmp/hotplate-cloud-ports.lock")
SCRIPT = Path(__file__).resolve().parents[2] / "cloud" / "api.sh"


def _ancestors() -> set[int]:
    found, pid = set(), os.getpid()
    while pid > 1:
        found.add(pid)
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return found


def _held_by_ancestor(path: Path) -> bool:
    """Whether a process this one runs under holds the flock on ``path``."""
    try:
        inode = path.stat().st_ino
        locks = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return False
    mine = _ancestors()
    for line in locks:
        fields = line.split()
        if "FLOCK" not in fields or "->" in fields or len(fields) < 6:  # "->": waiting
            continue
        at = fields.index("FLOCK")
        pid, where = fields[at + 3], fields[at + 4]
        if pid.isdigit() and int(pid) in mine and where.rsplit(":", 1)[-1] == str(inode):
            return True
    return False


@contextmanager
def cloud_lock() -> Iterator[None]:
    """The cloud's lock, taken here unless an ancestor (``flock``) holds it already."""
    LOCK.touch(exist_ok=True)
    if _held_by_ancestor(LOCK):
        yield
        return
    with LOCK.open("r") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)


def _api(action: str, name: str) -> None:
    env = {**os.environ, "HOTPLATE_CLOUD_HOME": str(PROJECT_CLOUD_HOME)}
    done = subprocess.run(["bash", str(SCRIPT), action, name], env=env, capture_output=True,
                          text=True, timeout=180)
    assert done.returncode == 0, f"cloud/api.sh {action} {name}: {done.stdout}{done.stderr}"


def has_api(name: str) -> bool:
    """Whether ``name`` is a uWSGI API of the project's own cloud (only those can be
    stopped; a cloud named by ``OS_CLOUD`` elsewhere cannot)."""
    return (PROJECT_CLOUD_HOME / "etc" / "uwsgi" / f"{name}.ini").exists()


@contextmanager
def api_away(name: str) -> Iterator[None]:
    """``name`` (nova-api, neutron-api, cinder-api...) stopped for the block, started
    again after it even if it fails."""
    if not has_api(name):
        raise LookupError(f"{name} is not an API of the project's cloud ({PROJECT_CLOUD_HOME})")
    with cloud_lock():
        _api("stop", name)
        try:
            yield
        finally:
            _api("start", name)

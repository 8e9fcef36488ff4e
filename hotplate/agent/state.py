"""What the hook runner remembers between runs: deployed records, run markers, the outbox.

Every file is written to a temporary name and renamed into place, so a
runner killed at any point leaves each file either old or new, never torn.
The order of writes after a hook ends (outbox, then deployed record, then
the run marker removed) means a kill at any step leaves enough to finish
on the next run: a marker without a record is a run that never finished
(signalled FAILED), a record with a marker only needs the marker removed,
and an outbox entry is sent whatever else happened.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

__all__ = ["DEFAULT_STATE_DIR", "RunMarker", "StateDir", "fingerprint", "safe_name"]

DEFAULT_STATE_DIR = "/var/lib/heat-config"
"""heat-config's own: its ``deployed/`` records are read as ours."""

_COMPARED = ("group", "config", "inputs", "options", "outputs")


def fingerprint(deployment: Mapping[str, Any]) -> str:
    """What decides whether a deployment already ran: a digest of the parts
    that change what runs (not its name or creation time)."""
    parts = {key: deployment.get(key) for key in _COMPARED}
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class RunMarker:
    """A hook run that started: the deployment, and the token its processes carry."""

    deployment: dict[str, Any]
    run_token: str


def safe_name(deployment_id: str) -> str:
    """The file name a deployment's files take (its id, kept inside its directory)."""
    # An id is a UUID in Heat; anything else must still stay inside its directory.
    name = "".join(c for c in deployment_id if c.isalnum() or c in "-_.")
    return name.lstrip(".") or hashlib.sha256(deployment_id.encode()).hexdigest()


class StateDir:
    """The state directory; ``lock`` keeps two runners from working at once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.deployed = root / "deployed"
        self.running = root / "running"
        self.outbox = root / "outbox"
        self.scripts = root / "script"
        self.outputs = root / "outputs"

    def prepare(self) -> None:
        """Create the directories (owner-only: inputs may hold credentials)."""
        for path in (self.root, self.deployed, self.running, self.outbox,
                     self.scripts, self.outputs):
            path.mkdir(mode=0o700, parents=True, exist_ok=True)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the directory's lock; a second runner waits for the first.
        The descriptor is not inherited, so a hook left running by a killed
        runner does not hold it."""
        with (self.root / "lock").open("w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield

    @staticmethod
    def _write(path: Path, data: Any) -> None:
        temporary = path.with_name(f".{path.name}.tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            _dump(data, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)

    @staticmethod
    def _read(path: Path) -> Any:
        try:
            return json.loads(path.read_text())
        except FileNotFoundError:
            return None
        except ValueError:
            return None

    # deployed records
    def deployed_path(self, deployment_id: str) -> Path:
        """``deployed/<id>.json``."""
        return self.deployed / f"{safe_name(deployment_id)}.json"

    def already_deployed(self, deployment: Mapping[str, Any]) -> bool:
        """True when this deployment, unchanged, ran before."""
        done = self._read(self.deployed_path(str(deployment["id"])))
        return isinstance(done, dict) and fingerprint(done) == fingerprint(deployment)

    def record_deployed(self, deployment: Mapping[str, Any], signal_data: Any) -> None:
        """Keep the deployment as it ran and what it signalled."""
        deployment_id = str(deployment["id"])
        self._write(self.deployed / f"{safe_name(deployment_id)}.notify.json", signal_data)
        self._write(self.deployed_path(deployment_id), deployment)

    # run markers
    def mark_running(self, deployment: Mapping[str, Any], run_token: str) -> None:
        """Written before the hook starts."""
        self._write(self.running / f"{safe_name(str(deployment['id']))}.json",
                    {"deployment": deployment, "run_token": run_token})

    def clear_running(self, deployment_id: str) -> None:
        """The run's outcome is kept: the marker goes."""
        with contextlib.suppress(FileNotFoundError):
            (self.running / f"{safe_name(deployment_id)}.json").unlink()

    def interrupted(self) -> list[RunMarker]:
        """Markers left by runs that never finished, oldest first."""
        markers = []
        for path in sorted(self.running.glob("*.json"), key=lambda p: p.stat().st_mtime):
            data = self._read(path)
            if not isinstance(data, dict) or not isinstance(data.get("deployment"), dict):
                path.unlink()
                continue
            markers.append(RunMarker(data["deployment"], str(data.get("run_token") or "")))
        return markers

    # the outbox
    def queue_signal(self, deployment_id: str, request: Mapping[str, Any]) -> None:
        """Keep a signal until it is delivered (replacing an older one for the same id)."""
        self._write(self.outbox / f"{safe_name(deployment_id)}.json", dict(request))

    def pending_signals(self) -> list[tuple[str, dict[str, Any]]]:
        """(deployment id, request) of each signal still to deliver, oldest first."""
        pending = []
        for path in sorted(self.outbox.glob("*.json"), key=lambda p: p.stat().st_mtime):
            data = self._read(path)
            if isinstance(data, dict):
                pending.append((path.stem, data))
            else:
                path.unlink()
        return pending

    def signal_delivered(self, deployment_id: str) -> None:
        """The signal needs no more sending."""
        with contextlib.suppress(FileNotFoundError):
            (self.outbox / f"{safe_name(deployment_id)}.json").unlink()


def _dump(data: Any, handle: TextIO) -> None:
    json.dump(data, handle, indent=2, separators=(",", ": "), sort_keys=True, default=str)

"""The cloud API calls an orchestrator made, counted at the cloud's side.

Every API of the project's cloud writes one line a request to
``<cloud home>/logs/<service>-access.log`` (uWSGI's request log:
``epoch port method uri status msecs "user agent"``, cloud/write-configs.sh).
hotplate's calls carry its user agent (``hotplate keystoneauth1/...``); real Heat's
reach the APIs on ports of their own (its region's endpoints, the cloud's ports plus an
offset), so the calls the cloud's services make to one another (Nova to Neutron and
Cinder, Neutron to Nova) are left out of both counts. Heat's calls to Keystone are told
by their user agents (``HEAT_IDENTITY_AGENTS``).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

CLOUD_HOME = Path(os.environ.get("HOTPLATE_CLOUD_HOME") or "/tmp/hotplate-cloud")
SERVICES = {"keystone": 5000, "nova-api": 8774, "neutron-api": 9696, "cinder-api": 8776,
            "glance-api": 9292, "placement": 8778}
HEAT_PORT_OFFSET = 10000
HEAT_IDENTITY_AGENTS = ("python-keystoneclient", "heat-engine ")
"""Heat's engine reaches Keystone at the address its configuration gives, not through its
region: its calls there are told by their user agents. Token checks by the APIs'
middleware are no one's orchestration and are counted for neither."""
_LINE = re.compile(r'(?P<epoch>\d+) (?P<port>\d+) (?P<method>\S+) (?P<uri>\S+) (?P<status>\d+) '
                   r'(?P<msecs>\d+) "(?P<agent>[^"]*)"')


@dataclass(frozen=True)
class Call:
    service: str
    at: int
    port: int
    method: str
    uri: str
    status: int
    agent: str


def log_path(service: str) -> Path:
    return CLOUD_HOME / "logs" / f"{service}-access.log"


def marks() -> dict[str, int]:
    """Where each access log ends now: calls after this are the ones to count."""
    return {s: log_path(s).stat().st_size if log_path(s).exists() else 0 for s in SERVICES}


def calls_since(start: dict[str, int]) -> list[Call]:
    found = []
    for service, offset in start.items():
        path = log_path(service)
        if not path.exists():
            continue
        with path.open("rb") as log:
            log.seek(offset)
            for raw in log:
                match = _LINE.match(raw.decode(errors="replace").strip())
                if match:
                    found.append(Call(service, int(match["epoch"]), int(match["port"]),
                                      match["method"], match["uri"], int(match["status"]),
                                      match["agent"]))
    return found


def by_orchestrator(calls: list[Call], orchestrator: str) -> Counter[str]:
    """Calls per service made by ``orchestrator`` ("hotplate" or "heat")."""
    counted: Counter[str] = Counter()
    for call in calls:
        ours = call.agent.startswith("hotplate ")  # not its API's token checks
        if orchestrator == "heat":
            mine = (call.port == SERVICES[call.service] + HEAT_PORT_OFFSET and not ours) or (
                call.service == "keystone" and call.agent.startswith(HEAT_IDENTITY_AGENTS))
        else:
            mine = ours
        if mine:
            counted[call.service] += 1
    return counted


def logs_present() -> bool:
    """Whether the running cloud writes the access logs (a cloud set up before they
    existed does not: then no calls are counted)."""
    return log_path("nova-api").exists()

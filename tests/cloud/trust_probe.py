"""``Test::Trust::Probe``: a test-only plugin that asks the cloud at every action.

Each of create, update, signal and delete lists the project's networks
through the stack's cloud (``self.cloud``), and records the user and project
the cloud saw: with deferred authentication that is the stack's owner, acting
through the stack's trust. With ``hold``, a create looks only at its end,
``hold`` seconds after it started, and records which process looked: an
engine killed meanwhile leaves that to the engine that takes over. The cloud
suites register it by an entry point of a distribution written for the server
they start (``probe_plugin_path``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from hotplate.resources.attributes import Attribute
from hotplate.resources.base import Resource
from hotplate.resources.properties import Schema

TYPE = "Test::Trust::Probe"


class TrustProbe(Resource):
    properties_schema = {
        "value": Schema(Schema.STRING, "Anything; changes update in place.", default="",
                        update_allowed=True),
        "hold": Schema(Schema.NUMBER, "Seconds a create takes before it looks.", default=0),
    }
    attributes_schema = {
        "seen": Attribute("action -> 'user project networks' as the cloud answered",
                          Attribute.MAP),
    }

    def _look(self, action: str) -> None:
        network = self.cloud.network
        count = len(self.cloud.call(lambda: list(network.networks())))
        self.data_set(f"seen_{action}",
                      f"{network.get_user_id()} {network.get_project_id()} {count}")

    def handle_create(self) -> None:
        self.resource_id_set(self.ctx.uuid)
        if not self.properties["hold"]:
            self._look("create")
            return
        self.data_set("started", str(time.time()))

    def check_create_complete(self, data: Any) -> bool:
        started = self.data().get("started")
        if started is None:
            return True
        if time.time() - float(started) < float(self.properties["hold"]):
            return False
        self._look("create")
        self.data_set("seen_create_pid", str(os.getpid()))
        self.data_delete("started")
        return True

    def handle_update(self, new_properties: Any, prop_diff: Any) -> None:
        super().handle_update(new_properties, prop_diff)
        self._look("update")

    def handle_signal(self, details: Any = None) -> None:
        self._look("signal")

    def handle_delete(self) -> None:
        if self.resource_id is not None:
            self._look("delete")

    def _resolve_attribute(self, name: str) -> Any:
        return {key.removeprefix("seen_"): value for key, value in self.data().items()
                if key.startswith("seen_")}


def probe_plugin_path(root: Path) -> Path:
    """A directory holding a distribution whose entry point registers the probe; put it
    on the server's PYTHONPATH."""
    dist = root / "hotplate_trust_probe-1.0.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: hotplate-trust-probe\n"
                                   "Version: 1.0\n")
    (dist / "entry_points.txt").write_text(
        f"[hotplate.resources]\n{TYPE} = tests.cloud.trust_probe:TrustProbe\n")
    return root

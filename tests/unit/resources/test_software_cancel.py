"""A deployment whose action is cancelled or timed out marks itself FAILED, as Heat's
``handle_<action>_cancel`` does, so the server's late signal is ignored."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hotplate.engine.worker.plugin_runs import _cancel
from hotplate.model.states import Action
from hotplate.resources.software_deployment import SoftwareDeployment
from hotplate.resources.software_port import ConfigNotFound
from tests.unit.resources.fakes import FakeContext


@dataclass
class Deployments:
    """The software-config port over a dict of deployments."""

    rows: dict[str, dict[str, Any]] = field(default_factory=dict)

    def show_deployment(self, deployment_id: str) -> dict[str, Any]:
        if deployment_id not in self.rows:
            raise ConfigNotFound(deployment_id)
        return dict(self.rows[deployment_id])

    def update_deployment(self, deployment_id: str, **fields: Any) -> dict[str, Any]:
        self.rows[deployment_id].update(fields)
        return dict(self.rows[deployment_id])


@dataclass
class Context(FakeContext):
    port: Deployments = field(default_factory=Deployments)

    def software_configs(self) -> Deployments:
        return self.port


def _deployment(status: str) -> tuple[SoftwareDeployment, Deployments]:
    ctx = Context()
    ctx.port.rows["d1"] = {"id": "d1", "status": status, "status_reason": "Deploy data"}
    plugin = SoftwareDeployment("deploy", {"server": "s", "signal_transport": "NO_SIGNAL"},
                                ctx, resource_id="d1")
    return plugin, ctx.port


def test_a_waiting_deployment_is_cancelled_by_the_engines_cancel_hook() -> None:
    plugin, port = _deployment("IN_PROGRESS")
    _cancel(plugin, Action.CREATE)
    assert (port.rows["d1"]["status"], port.rows["d1"]["status_reason"]) == (
        "FAILED", "Deployment cancelled.")


def test_a_settled_deployment_is_left_as_it_is() -> None:
    plugin, port = _deployment("COMPLETE")
    plugin.handle_update_cancel(None)
    assert port.rows["d1"]["status"] == "COMPLETE"
    plugin.resource_id = "gone"
    plugin.handle_delete_cancel(None)  # a deployment already deleted: nothing to do

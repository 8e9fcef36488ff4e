"""Engine-topic methods for software configs and deployments (Heat's names and arguments).

Part of ``EngineService``. A config is immutable: made, shown, listed,
deleted (refused while a deployment uses it). A deployment binds a config
to a server; whenever one is made, given a new config or deleted, the
server's resource row gets ``metadata.deployments`` = the configs of all
the server's deployments, sorted by name (SPEC.md 5.3), which is what an
agent on the server polls. A signal from the server settles a deployment
that is IN_PROGRESS (SPEC.md 5.4) and wakes the resource that waits on it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from hotplate.db.software import CONFIG_REFERENCED
from hotplate.engine.deps import EngineDeps
from hotplate.engine.service.lookups import project_of
from hotplate.engine.views import iso
from hotplate.model.errors import HotplateError, StackValidationFailed
from hotplate.model.software import SoftwareConfigRecord, SoftwareDeploymentRecord
from hotplate.resources import software_io
from hotplate.resources.software_outcome import IN_PROGRESS, signal_outcome
from hotplate.rpc.requests import request_uuid

LOG = logging.getLogger(__name__)

CHECK_INTERVAL = 0.5
"""Seconds between looks at a deployment that ``check_software_deployment`` waits on."""


class NotFound(HotplateError):
    """Heat's free-text 404 (``heat.common.exception.NotFound``)."""


class Invalid(HotplateError):
    """Heat's 400 for a request the engine cannot take (``exception.Invalid``, its text)."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"Data supplied was not valid: {reason}")
        self.reason = reason


class InvalidRestrictedAction(HotplateError):
    """Heat's refusal to delete a config a deployment still uses."""


def format_config(sc: SoftwareConfigRecord, *, detail: bool = True,
                  include_project: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {"id": sc.id, "name": sc.name, "group": sc.group,
                              "creation_time": iso(sc.created_at)}
    if detail:
        for key in ("config", "inputs", "outputs", "options"):
            result[key] = sc.config.get(key)
    if include_project:
        result["project"] = sc.tenant
    return result


def format_deployment(sd: SoftwareDeploymentRecord) -> dict[str, Any]:
    result: dict[str, Any] = {
        "id": sd.id, "server_id": sd.server_id, "input_values": sd.input_values,
        "output_values": sd.output_values, "action": sd.action, "status": sd.status,
        "status_reason": sd.status_reason, "config_id": sd.config_id,
        "creation_time": iso(sd.created_at),
    }
    if sd.updated_at is not None:
        result["updated_time"] = iso(sd.updated_at)
    return result


def _updated_at(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        parsed = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError as exc:
        raise Invalid(f"Invalid updated_at: {text}") from exc
    return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class SoftwareMethods:
    _deps: EngineDeps

    SOFTWARE_METHODS = frozenset({
        "list_software_configs", "show_software_config", "create_software_config",
        "delete_software_config", "list_software_deployments",
        "metadata_software_deployments", "show_software_deployment",
        "check_software_deployment", "create_software_deployment",
        "update_software_deployment", "delete_software_deployment",
        "signal_software_deployment",
    })

    # -- configs -----------------------------------------------------------------------
    def show_software_config(self, ctxt: Mapping[str, Any], config_id: str) -> dict[str, Any]:
        return format_config(self._config(ctxt, config_id))

    def list_software_configs(self, ctxt: Mapping[str, Any], limit: int | None = None,
                              marker: str | None = None) -> list[dict[str, Any]]:
        admin = bool(ctxt.get("is_admin"))
        configs = self._deps.store.list_software_configs(
            None if admin else project_of(ctxt),
            limit=int(limit) if limit is not None else None, marker=marker)
        return [format_config(sc, detail=False, include_project=admin) for sc in configs]

    def create_software_config(self, ctxt: Mapping[str, Any], group: str | None,
                               name: str | None, config: Any, inputs: Any = None,
                               outputs: Any = None, options: Any = None) -> dict[str, Any]:
        ins = software_io.check_io_list(inputs, ("inputs",))
        outs = software_io.check_io_list(outputs, ("outputs",))
        if options is not None and not isinstance(options, Mapping):
            raise StackValidationFailed(f'"{options}" is not a map', ("options",))
        stored = {
            "inputs": [software_io.input_config(i, ("inputs", n)) for n, i in enumerate(ins)],
            "outputs": [software_io.output_config(o, ("outputs", n))
                        for n, o in enumerate(outs)],
            "options": dict(options or {}),
            "config": config,
        }
        known = request_uuid(ctxt, "software_config")  # a repeated request finds its config
        made = None if known is None else self._deps.store.get_software_config(known)
        if made is not None:
            return format_config(made)
        sc = self._deps.store.create_software_config(
            known or self._deps.ids.new_uuid(), name=name, group=group, config=stored,
            tenant=project_of(ctxt))
        return format_config(sc)

    def delete_software_config(self, ctxt: Mapping[str, Any], config_id: str) -> None:
        found = self._deps.store.delete_software_config(config_id, self._project(ctxt))
        if found is None:
            raise NotFound(f"Software config with id {config_id} not found")
        if found == CONFIG_REFERENCED:
            raise InvalidRestrictedAction(
                f"Software config with id {config_id} can not be deleted as it is referenced.")

    # -- deployments ---------------------------------------------------------------------
    def list_software_deployments(self, ctxt: Mapping[str, Any],
                                  server_id: str | None = None) -> list[dict[str, Any]]:
        found = self._deps.store.list_software_deployments(self._project(ctxt), server_id)
        return [format_deployment(sd) for sd in found]

    def metadata_software_deployments(self, ctxt: Mapping[str, Any],
                                      server_id: str) -> list[dict[str, Any]]:
        if not server_id:
            raise ValueError("server_id must be specified")
        return self._server_metadata(server_id, self._project(ctxt))

    def show_software_deployment(self, ctxt: Mapping[str, Any],
                                 deployment_id: str) -> dict[str, Any]:
        return format_deployment(self._deployment(ctxt, deployment_id))

    def check_software_deployment(self, ctxt: Mapping[str, Any], deployment_id: str,
                                  timeout: float) -> dict[str, Any]:
        """The deployment once it is no longer IN_PROGRESS, or after ``timeout`` seconds."""
        clock = self._deps.clock
        deadline = clock.now().timestamp() + float(timeout or 0)
        sd = self._deployment(ctxt, deployment_id)
        while sd.status == IN_PROGRESS and clock.now().timestamp() < deadline:
            clock.sleep(CHECK_INTERVAL)
            sd = self._deployment(ctxt, deployment_id)
        return format_deployment(sd)

    def create_software_deployment(
        self, ctxt: Mapping[str, Any], server_id: str, config_id: str | None = None,
        input_values: Any = None, action: str = "INIT", status: str = "COMPLETE",
        status_reason: str = "", stack_user_project_id: str | None = None,
        deployment_id: str | None = None,
    ) -> dict[str, Any]:
        if not server_id:
            raise Invalid('"server_id" is required')
        if stack_user_project_id is not None and len(stack_user_project_id) > 64:
            raise Invalid('"stack_user_project_id" should be no more than 64 characters')
        if input_values is not None and not isinstance(input_values, Mapping):
            raise StackValidationFailed(f'"{input_values}" is not a map', ("input_values",))
        if not config_id or self._deps.store.get_software_config(
                config_id, self._project(ctxt)) is None:
            raise Invalid(f"Config with id {config_id} not found")
        known = None if deployment_id else request_uuid(ctxt, "software_deployment")
        made = None if known is None else self._deps.store.get_software_deployment(known)
        if made is not None:  # a repeated request: the deployment its first asking made
            return format_deployment(made)
        sd = self._deps.store.create_software_deployment({
            "id": deployment_id or known or self._deps.ids.new_uuid(), "config_id": config_id,
            "server_id": server_id, "input_values": dict(input_values or {}),
            "tenant": project_of(ctxt), "stack_user_project_id": stack_user_project_id,
            "action": action, "status": status, "status_reason": str(status_reason),
        })
        if sd is None:
            raise Invalid(f"Config with id {config_id} not found")
        self._push(ctxt, sd.server_id)
        return format_deployment(sd)

    def update_software_deployment(
        self, ctxt: Mapping[str, Any], deployment_id: str, config_id: str | None = None,
        input_values: Any = None, output_values: Any = None, action: str | None = None,
        status: str | None = None, status_reason: str | None = None,
        updated_at: str | None = None,
    ) -> dict[str, Any]:
        self._deployment(ctxt, deployment_id)
        if config_id and self._deps.store.get_software_config(
                config_id, self._project(ctxt)) is None:
            raise Invalid(f"Config with id {config_id} not found")
        given = {"config_id": config_id, "input_values": input_values,
                 "output_values": output_values, "action": action, "status": status,
                 "status_reason": str(status_reason) if status_reason else None}
        changes: dict[str, Any] = {key: value for key, value in given.items() if value}
        when = _updated_at(updated_at)
        if when is not None:
            changes["updated_at"] = when
        sd = self._deps.store.update_software_deployment(deployment_id, changes)
        if sd is None:
            raise NotFound(f"Deployment with id {deployment_id} not found")
        if config_id:  # the metadata is the list of configs: only a new config changes it
            self._push(ctxt, sd.server_id)
        if sd.status != IN_PROGRESS:
            self._wake(deployment_id)
        return format_deployment(sd)

    def delete_software_deployment(self, ctxt: Mapping[str, Any], deployment_id: str) -> None:
        sd = self._deployment(ctxt, deployment_id)
        self._deps.store.delete_software_deployment(deployment_id)
        self._push(ctxt, sd.server_id)
        self._wake(deployment_id)

    def signal_software_deployment(self, ctxt: Mapping[str, Any], deployment_id: str,
                                   details: Any, updated_at: str | None = None) -> str | None:
        """Settle an IN_PROGRESS deployment from the server's outputs; the event's text.

        A deployment in any other state ignores the signal (None), as Heat's does.
        """
        if not deployment_id:
            raise ValueError("deployment_id must be specified")
        sd = self._deployment(ctxt, deployment_id)
        if sd.status != IN_PROGRESS:
            return None
        if details is not None and not isinstance(details, Mapping):
            raise StackValidationFailed("Signal data must be a map", ("details",))
        config = self._deps.store.get_software_config(sd.config_id)
        outputs = (config.config.get("outputs") if config is not None else None) or []
        outcome = signal_outcome(deployment_id, details, outputs, sd.output_values)
        self.update_software_deployment(
            ctxt, deployment_id, output_values=outcome.output_values, status=outcome.status,
            status_reason=outcome.status_reason, updated_at=updated_at)
        return outcome.event_reason

    # -- helpers -------------------------------------------------------------------------
    @staticmethod
    def _project(ctxt: Mapping[str, Any]) -> str | None:
        return None if ctxt.get("is_admin") else project_of(ctxt)

    def _config(self, ctxt: Mapping[str, Any], config_id: str) -> SoftwareConfigRecord:
        sc = self._deps.store.get_software_config(config_id, self._project(ctxt))
        if sc is None:
            raise NotFound(f"Software config with id {config_id} not found")
        return sc

    def _deployment(self, ctxt: Mapping[str, Any],
                    deployment_id: str) -> SoftwareDeploymentRecord:
        sd = self._deps.store.get_software_deployment(deployment_id, self._project(ctxt))
        if sd is None:
            raise NotFound(f"Deployment with id {deployment_id} not found")
        return sd

    def _server_metadata(self, server_id: str, project: str | None) -> list[dict[str, Any]]:
        configs = self._deps.store.server_configs(server_id, project)
        return [format_config(sc) for sc in sorted(configs, key=lambda sc: sc.name or "")]

    def _push(self, ctxt: Mapping[str, Any], server_id: str) -> None:
        """The server row's ``metadata.deployments`` rewritten under its atomic_key."""
        project = self._project(ctxt)
        pushed = self._deps.store.push_server_metadata(
            server_id, project, lambda: self._server_metadata(server_id, project))
        if not pushed:
            LOG.debug("no server resource %s to push deployments to", server_id)

    def _wake(self, deployment_id: str) -> None:
        """Re-check at once a resource parked on this engine waiting for the deployment."""
        parked = self._deps.parked
        if parked is not None:
            parked.wake(deployment_id)

"""OS::Heat::SoftwareDeployment: apply a config to a server and wait for its outputs.

On each action its ``actions`` list (CREATE and UPDATE by default; DELETE,
SUSPEND, RESUME on request) the deployment stores a derived config
(software_derived.py) and creates or updates its deployment row, which
pushes the server's metadata; an agent on the server runs the config and
signals the outputs back. The action then waits, parked (no thread held),
until the deployment is COMPLETE or FAILED (``Deployment to server failed:
<reason>``, then the tail of the script's stderr), or the stack times out.
NO_SIGNAL completes at once.

The deployment's id is the resource's own uuid, so an engine that takes an
interrupted create over finds the deployment the first try made. Its
attributes are the deployment's output values: ``deploy_stdout``,
``deploy_stderr``, ``deploy_status_code`` and each output the config declares.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import UpdateReplace
from hotplate.resources import software_derived as derived
from hotplate.resources.attributes import Attribute, InvalidTemplateAttribute
from hotplate.resources.base import Resource, select_path
from hotplate.resources.constraints import AllowedValues
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.signal_responder import (
    SignalTransport,
    check_signal_transport,
    signal_endpoints,
)
from hotplate.resources.software_component import COMPONENT_GROUP
from hotplate.resources.software_outcome import COMPLETE, FAILED, failure_reason
from hotplate.resources.software_port import ConfigNotFound, software_configs
from hotplate.resources.support import SupportStatus

__all__ = ["Error", "SoftwareDeployment"]

LOG = logging.getLogger(__name__)

CONFIG, SERVER, INPUT_VALUES = "config", "server", "input_values"
DEPLOY_ACTIONS, NAME, SIGNAL_TRANSPORT = "actions", "name", "signal_transport"
STDOUT, STDERR, STATUS_CODE = "deploy_stdout", "deploy_stderr", "deploy_status_code"
ALLOWED_ACTIONS = ("CREATE", "UPDATE", "DELETE", "SUSPEND", "RESUME")
TRANSPORTS = tuple(t.value for t in SignalTransport)
DEFAULT_TRANSPORT = SignalTransport.CFN_SIGNAL.value
"""Heat's ``[DEFAULT] default_deployment_signal_transport``."""


class Error(Exception):
    """Heat's generic ``exception.Error``: the deployment failed on the server."""


DEPLOYMENT_PROPERTIES: dict[str, Schema] = {
    CONFIG: Schema(Schema.STRING, "ID of software configuration resource to execute when "
                   "applying to the server.", update_allowed=True),
    INPUT_VALUES: Schema(Schema.MAP, "Input values to apply to the software configuration on "
                         "this server.", update_allowed=True),
    DEPLOY_ACTIONS: Schema(Schema.LIST, "Which lifecycle actions of the deployment resource "
                           "will result in this deployment being triggered.",
                           update_allowed=True, default=["CREATE", "UPDATE"],
                           constraints=[AllowedValues(ALLOWED_ACTIONS)]),
    NAME: Schema(Schema.STRING, "Name of the derived config associated with this deployment. "
                 "This is used to apply a sort order to the list of configurations currently "
                 "deployed to a server.", update_allowed=True),
    SIGNAL_TRANSPORT: Schema(
        Schema.STRING, "How the server should signal to heat with the deployment output "
        "values. CFN_SIGNAL will allow an HTTP POST to a CFN keypair signed URL. "
        "TEMP_URL_SIGNAL will create a Swift TempURL to be signaled via HTTP PUT. "
        "HEAT_SIGNAL will allow calls to the Heat API resource-signal using the provided "
        "keystone credentials. ZAQAR_SIGNAL will create a dedicated zaqar queue to be "
        "signaled using the provided keystone credentials. TOKEN_SIGNAL will allow an HTTP "
        "POST to the resource's signal URL with a token that may signal only it. NO_SIGNAL "
        "will result in the resource going to the COMPLETE state without waiting for any "
        "signal. Unset: the engine's default_deployment_signal_transport (CFN_SIGNAL).",
        constraints=[AllowedValues(TRANSPORTS)]),
}


class SoftwareDeployment(Resource):
    """This resource associates a server with some configuration.

    The configuration is to be deployed to that server.

    A deployment allows input values to be specified which map to the inputs
    schema defined in the config resource. These input values are interpreted
    by the configuration tool in a tool-specific manner.

    Whenever this resource goes to an IN_PROGRESS state, it creates an
    ephemeral config that includes the inputs values plus a number of extra
    inputs which have names prefixed with ``deploy_``. The extra inputs relate
    to the current state of the stack, along with the information and
    credentials required to signal back the deployment results.

    Unless signal_transport=NO_SIGNAL, this resource will remain in an
    IN_PROGRESS state until the server signals it with the output values
    for that deployment. Those output values are then available as resource
    attributes, along with the default attributes deploy_stdout,
    deploy_stderr and deploy_status_code.

    Specifying actions other than the default CREATE and UPDATE will result
    in the deployment being triggered in those actions. For example this would
    allow cleanup configuration to be performed during actions SUSPEND and
    DELETE. A config could be designed to only work with some specific
    actions, or a config can read the value of the deploy_action input to
    allow conditional logic to perform different configuration for different
    actions.
    """

    support_status = SupportStatus(version="2014.1")
    properties_schema = {
        CONFIG: DEPLOYMENT_PROPERTIES[CONFIG],
        SERVER: Schema(Schema.STRING, "ID of resource to apply configuration to. Normally "
                       "this should be a Nova server ID.", required=True),
        INPUT_VALUES: DEPLOYMENT_PROPERTIES[INPUT_VALUES],
        DEPLOY_ACTIONS: DEPLOYMENT_PROPERTIES[DEPLOY_ACTIONS],
        NAME: DEPLOYMENT_PROPERTIES[NAME],
        SIGNAL_TRANSPORT: DEPLOYMENT_PROPERTIES[SIGNAL_TRANSPORT],
    }
    attributes_schema = {
        STDOUT: Attribute("Captured stdout from the configuration execution.",
                          Attribute.STRING),
        STDERR: Attribute("Captured stderr from the configuration execution.",
                          Attribute.STRING),
        STATUS_CODE: Attribute("Returned status code from the configuration execution.",
                               Attribute.STRING),
    }

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        """A transport hotplate cannot serve is refused, even before the server exists."""
        if props.get(SIGNAL_TRANSPORT) is not None:
            check_signal_transport(str(props[SIGNAL_TRANSPORT]), (*path, SIGNAL_TRANSPORT))

    # -- the derived config -------------------------------------------------------------
    def _transport(self) -> str:
        """The property, else the engine's configured default (Heat's option)."""
        given = self.properties.get(SIGNAL_TRANSPORT)
        if given:
            return str(given)
        configured = getattr(self.ctx, "default_signal_transport", None)
        try:
            return str(configured()) if callable(configured) else DEFAULT_TRANSPORT
        except RuntimeError:  # a context without signal endpoints
            return DEFAULT_TRANSPORT

    def _no_signal(self) -> bool:
        return self._transport() == SignalTransport.NO_SIGNAL

    def _load_config(self, config_id: str | None = None) -> dict[str, Any]:
        """The source config as the API shows it; {} for a deployment without one."""
        config_id = config_id if config_id is not None else self.properties.get(CONFIG)
        config = dict(software_configs(self).show_config(config_id)) if config_id else {}
        config["inputs"] = list(config.get("inputs") or [])
        config["outputs"] = list(config.get("outputs") or [])
        return config

    def _deploy_context(self, action: str) -> derived.DeployContext:
        transport = self._transport()
        signal_id = token = credentials = None
        if transport == SignalTransport.CFN_SIGNAL:
            signal_id = signal_endpoints(self).cfn_signal_url("signal")
        elif transport == SignalTransport.TOKEN_SIGNAL:
            endpoints = signal_endpoints(self)
            signal_id, token = endpoints.heat_signal_url(), endpoints.signal_token()
        elif transport == SignalTransport.HEAT_SIGNAL:
            credentials = signal_endpoints(self).heat_signal_credentials()
        return derived.DeployContext(
            server_id=str(self.properties[SERVER]), action=action,
            stack_path=f"{self.ctx.stack_name}/{self.ctx.stack_id}",
            resource_name=self.name, transport=transport, signal_id=signal_id,
            auth_token=token, credentials=credentials)

    def _derived_inputs(self, action: str, source: Mapping[str, Any]) -> list[dict[str, Any]]:
        return derived.derived_inputs(source["inputs"], self.properties.get(INPUT_VALUES),
                                      self._deploy_context(action))

    def derived_config(self, action: str, source: Mapping[str, Any],
                       inputs: list[dict[str, Any]]) -> Any:
        """The config the server runs; StructuredDeployment fills its inputs in."""
        return source.get("config")

    def empty_config(self) -> Any:
        return ""

    def _create_derived_config(self, action: str, source: Mapping[str, Any]) -> str:
        inputs = self._derived_inputs(action, source)
        body = self.derived_config(action, source, inputs)
        made = software_configs(self).create_config(
            name=self.properties.get(NAME) or source.get("name") or self.physical_resource_name(),
            group=source.get("group") or "Heat::Ungrouped",
            config=body if body else self.empty_config(),
            inputs=inputs, outputs=list(source["outputs"]), options=source.get("options"))
        return str(made["id"])

    # -- acting -------------------------------------------------------------------------
    def _acts_on(self, action: str, config: Mapping[str, Any]) -> bool:
        if config.get("group") == COMPONENT_GROUP:
            body = config.get("config")
            entries = body.get("configs", []) if isinstance(body, Mapping) else []
            return any(action in (entry.get("actions") or []) for entry in entries)
        return action in (self.properties.get(DEPLOY_ACTIONS) or [])

    def _handle_action(self, action: str, config: Mapping[str, Any] | None = None,
                       prev_derived: str | None = None) -> dict[str, Any] | None:
        """Deploy for ``action`` if it is one to act on; the deployment to wait for, if any."""
        config = config if config is not None else self._load_config()
        if not self._acts_on(action, config):
            return None
        port = software_configs(self)
        fields: dict[str, Any] = {
            "config_id": self._create_derived_config(action, config), "action": action,
            "input_values": self.properties.get(INPUT_VALUES),
            "status": COMPLETE if self._no_signal() else "IN_PROGRESS",
            "status_reason": ("Not waiting for outputs signal" if self._no_signal()
                              else "Deploy data available"),
        }
        existing = self._existing()
        if existing is None:
            deployment_id = self.resource_id or self.ctx.uuid
            sd = port.create_deployment(deployment_id=deployment_id,
                                        server_id=str(self.properties[SERVER]),
                                        stack_user_project_id=self.ctx.project_id, **fields)
            self.resource_id_set(str(sd["id"]))
        else:
            self.resource_id_set(str(existing["id"]))
            prev_derived = prev_derived or str(existing["config_id"])
            sd = port.update_deployment(str(existing["id"]), **fields)
            if prev_derived and prev_derived != fields["config_id"]:
                port.delete_config(prev_derived)
        return None if self._no_signal() else sd

    def _existing(self) -> dict[str, Any] | None:
        """The deployment row, looked for by the resource's physical id or (a retried
        first create) its own uuid."""
        for deployment_id in (self.resource_id, self.ctx.uuid):
            if deployment_id:
                try:
                    return software_configs(self).show_deployment(deployment_id)
                except ConfigNotFound:
                    continue
        return None

    def _check_complete(self) -> bool:
        if not self.resource_id:
            return True
        return self._settled(software_configs(self).show_deployment(self.resource_id))

    @staticmethod
    def _settled(sd: Mapping[str, Any]) -> bool:
        """True once COMPLETE; raises Error (Heat's text, stderr's tail) once FAILED."""
        if sd["status"] == FAILED:
            message = failure_reason(str(sd["status_reason"]), sd.get("output_values"))
            LOG.info(message)
            raise Error(message)
        return bool(sd["status"] == COMPLETE)

    def _delete_settled(self) -> bool:
        """The DELETE action's wait is over: the deployment settled, or its server is
        gone and will never signal (Heat's ``_server_exists``), so the delete does not
        wait for the stack's timeout."""
        if not self.resource_id:
            return True
        sd = software_configs(self).show_deployment(self.resource_id)
        if sd["status"] == COMPLETE or not self._server_exists(str(sd["server_id"])):
            return True
        return self._settled(sd)

    def _server_exists(self, server_id: str) -> bool:
        """True unless the engine says the server is gone (a port may not know)."""
        lookup = getattr(software_configs(self), "server_exists", None)
        return not callable(lookup) or bool(lookup(server_id))

    def wake_key(self) -> str | None:
        return self.resource_id

    def resume_data(self, action: str) -> Any:
        return {"id": self.resource_id} if self.resource_id else None

    def handle_create(self) -> Any:
        return self._handle_action("CREATE")

    def check_create_complete(self, data: Any) -> bool:
        return not data or self._check_complete()

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        old_inputs: list[dict[str, Any]] = []
        prev_derived = None
        existing = self._existing()
        if existing is not None:
            prev_derived = str(existing["config_id"])
            try:
                old_inputs = self._load_config(prev_derived)["inputs"]
            except ConfigNotFound:
                old_inputs = []
        super().handle_update(new_properties, prop_diff)
        config = self._load_config()
        changed = derived.replacing_input(self._derived_inputs("UPDATE", config), old_inputs)
        if changed is not None:
            LOG.debug("Replacing SW Deployment due to change in input %r", changed)
            raise UpdateReplace(self.name)
        return self._handle_action("UPDATE", config, prev_derived)

    def check_update_complete(self, data: Any) -> bool:
        return not data or self._check_complete()

    def handle_suspend(self) -> Any:
        return self._handle_action("SUSPEND")

    def check_suspend_complete(self, data: Any) -> bool:
        return not data or self._check_complete()

    def handle_resume(self) -> Any:
        return self._handle_action("RESUME")

    def check_resume_complete(self, data: Any) -> bool:
        return not data or self._check_complete()

    def handle_delete(self) -> Any:
        if self._existing() is None:
            return None
        try:
            return self._handle_action("DELETE")
        except ConfigNotFound:
            return None

    def check_delete_complete(self, data: Any) -> bool:
        if data and not self._delete_settled():
            return False
        self._delete_deployment()
        return True

    def _delete_deployment(self) -> None:
        port = software_configs(self)
        existing = self._existing()
        if existing is not None:
            port.delete_deployment(str(existing["id"]))
            port.delete_config(str(existing["config_id"]))
        if self._transport() != SignalTransport.NO_SIGNAL:  # its stack user, as Heat's
            try:
                signal_endpoints(self).forget_signal_credentials()
            except RuntimeError:
                LOG.debug("no signal credentials to forget for %s", self.name)

    def _handle_cancel(self, data: Any = None) -> None:
        """An action cancelled (or timed out) while waiting: the deployment is FAILED
        "Deployment cancelled.", so the server's late signal is ignored (Heat's)."""
        if not self.resource_id:
            return
        port = software_configs(self)
        try:
            sd = port.show_deployment(self.resource_id)
        except ConfigNotFound:
            return
        if sd["status"] == "IN_PROGRESS":
            port.update_deployment(self.resource_id, status=FAILED,
                                   status_reason="Deployment cancelled.")

    handle_create_cancel = handle_update_cancel = handle_delete_cancel = _handle_cancel
    handle_suspend_cancel = handle_resume_cancel = _handle_cancel

    def handle_signal(self, details: Any = None) -> str | None:
        """The server's outputs (Heat's signal_software_deployment)."""
        if not self.resource_id:
            return None
        return software_configs(self).signal_deployment(self.resource_id, details)

    # -- attributes ---------------------------------------------------------------------
    def get_attribute(self, name: str) -> Any:
        """The deployment's output value ``name``; None for a declared output not yet
        received. Raises InvalidTemplateAttribute for any other name."""
        if name == "show":
            return super().get_attribute(name)
        if self.resource_id:
            try:
                sd = software_configs(self).show_deployment(self.resource_id)
            except ConfigNotFound:
                sd = {}
            values = sd.get("output_values") or {}
            if name in values:
                return values[name]
        if name in self.attributes_schema:
            return None
        try:
            outputs = self._load_config()["outputs"] if self.properties.get(CONFIG) else []
        except ConfigNotFound:
            outputs = []
        if name not in {str(o.get("name")) for o in outputs}:
            raise InvalidTemplateAttribute(self.name, name)
        return None

    def get_attribute_path(self, name: str, path: tuple[Any, ...]) -> Any:
        return select_path(self.get_attribute(name), path)

    def _resolve_attribute(self, name: str) -> Any:
        return self.get_attribute(name)

"""The derived config a deployment hands its server: pure, Heat's rules.

Each time a deployment acts (CREATE, UPDATE, ... as its ``actions`` allow)
it stores a new config derived from its source config: the source's inputs
with this deployment's values (``input_values`` over each input's
default), any extra input_values as String inputs, then the ``deploy_*``
inputs describing the deployment and how to signal back::

    input                     value
    ------------------------  ------------------------------------------------
    deploy_server_id          the server property
    deploy_action             the action being deployed
    deploy_stack_id           <stack name>/<stack id>
    deploy_resource_name      the deployment resource's name
    deploy_signal_transport   the signal_transport property
    deploy_signal_id          CFN_SIGNAL: the pre-signed URL; TOKEN_SIGNAL: the
                              resource's signal URL on the API
    deploy_signal_verb        POST (with a deploy_signal_id)
    deploy_auth_token         TOKEN_SIGNAL: the token that may signal it
    deploy_auth_url           HEAT_SIGNAL: Keystone, where the stack user logs in
    deploy_username           HEAT_SIGNAL: the stack user's name ...
    deploy_user_id            ... its id ...
    deploy_password           ... its password ...
    deploy_project_id         ... and its project, the stack user project
    deploy_region_name        HEAT_SIGNAL, when a region is configured

NO_SIGNAL adds nothing to signal with. HEAT_SIGNAL (Keystone mode only)
signals through the API's resource signal with the stack user's token, as
heat-config-notify does. TEMP_URL_SIGNAL and ZAQAR_SIGNAL never get here:
they are refused at validate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hotplate.model.errors import UserParameterMissing
from hotplate.resources.software_io import input_config

__all__ = ["DeployContext", "derived_inputs", "replacing_input", "structured_parse"]

DEPLOY_SERVER_ID, DEPLOY_ACTION = "deploy_server_id", "deploy_action"
DEPLOY_STACK_ID, DEPLOY_RESOURCE_NAME = "deploy_stack_id", "deploy_resource_name"
DEPLOY_SIGNAL_TRANSPORT, DEPLOY_SIGNAL_ID = "deploy_signal_transport", "deploy_signal_id"
DEPLOY_SIGNAL_VERB, DEPLOY_AUTH_TOKEN = "deploy_signal_verb", "deploy_auth_token"

KEYSTONE_INPUTS = (
    ("deploy_auth_url", "auth_url", "URL for API authentication"),
    ("deploy_username", "username", "Username for API authentication"),
    ("deploy_user_id", "user_id", "User ID for API authentication"),
    ("deploy_password", "password", "Password for API authentication"),
    ("deploy_project_id", "project_id", "ID of project for API authentication"),
)
"""HEAT_SIGNAL's inputs, in Heat's order: (input, credential key, description)."""


@dataclass(frozen=True, slots=True)
class DeployContext:
    """What the derived inputs say about the deployment, gathered by the resource."""

    server_id: str
    action: str
    stack_path: str
    resource_name: str
    transport: str
    signal_id: str | None = None
    auth_token: str | None = None
    credentials: Mapping[str, str | None] | None = None
    """HEAT_SIGNAL's stack user credentials (``signal_responder.HEAT_SIGNAL_CREDENTIALS``)."""


def derived_inputs(source_inputs: Sequence[Mapping[str, Any]],
                   input_values: Mapping[str, Any] | None,
                   deploy: DeployContext) -> list[dict[str, Any]]:
    """The inputs of the derived config, in Heat's order."""
    values = dict(input_values or {})
    found: list[dict[str, Any]] = []
    for declared in source_inputs:
        name = str(declared.get("name"))
        value = values.pop(name) if name in values else declared.get("default")
        found.append(input_config(declared, value=value))
    found.extend(input_config({"name": name}, value=value) for name, value in values.items())

    def deploy_input(name: str, value: Any, description: str) -> None:
        found.append(input_config({"name": name, "description": description}, value=value))

    deploy_input(DEPLOY_SERVER_ID, deploy.server_id, "ID of the server being deployed to")
    deploy_input(DEPLOY_ACTION, deploy.action, "Name of the current action being deployed")
    deploy_input(DEPLOY_STACK_ID, deploy.stack_path,
                 "ID of the stack this deployment belongs to")
    deploy_input(DEPLOY_RESOURCE_NAME, deploy.resource_name,
                 "Name of this deployment resource in the stack")
    deploy_input(DEPLOY_SIGNAL_TRANSPORT, deploy.transport,
                 "How the server should signal to heat with the deployment output values.")
    if deploy.signal_id is not None:
        deploy_input(DEPLOY_SIGNAL_ID, deploy.signal_id,
                     "ID of signal to use for signaling output values")
        deploy_input(DEPLOY_SIGNAL_VERB, "POST",
                     "HTTP verb to use for signaling output values")
    if deploy.auth_token is not None:
        deploy_input(DEPLOY_AUTH_TOKEN, deploy.auth_token,
                     "Token for API authentication of the signal")
    if deploy.credentials is not None:
        for name, key, description in KEYSTONE_INPUTS:
            deploy_input(name, deploy.credentials.get(key), description)
        if deploy.credentials.get("region_name"):
            deploy_input("deploy_region_name", deploy.credentials["region_name"],
                         "Region name for API authentication")
    return found


def replacing_input(new_inputs: Sequence[Mapping[str, Any]],
                    old_inputs: Sequence[Mapping[str, Any]]) -> str | None:
    """The first input marked ``replace_on_change`` whose value changed; None if none."""
    old = {str(i.get("name")): i.get("value") for i in old_inputs}
    for item in new_inputs:
        name = str(item.get("name"))
        if item.get("replace_on_change") and name in old and item.get("value") != old[name]:
            return name
    return None


def structured_parse(snippet: Any, inputs: Mapping[str, Any], input_key: str = "get_input",
                     *, strict: bool = False) -> Any:
    """``snippet`` with each ``{<input_key>: name}`` replaced by that input's value.

    Raises:
        UserParameterMissing: ``strict`` and an input the snippet names has no value.
    """
    if isinstance(snippet, Mapping):
        if len(snippet) == 1:
            (key, arg), = snippet.items()
            if key == input_key and isinstance(arg, str):
                if strict and arg not in inputs:
                    raise UserParameterMissing(arg)
                return inputs.get(arg)
        return {k: structured_parse(v, inputs, input_key, strict=strict)
                for k, v in snippet.items()}
    if isinstance(snippet, list | tuple):
        return [structured_parse(v, inputs, input_key, strict=strict) for v in snippet]
    return snippet

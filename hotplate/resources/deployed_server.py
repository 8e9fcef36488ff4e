"""OS::Heat::DeployedServer: a machine that already exists, configured through deployments.

Nothing is created: the resource's id is its own uuid (Heat's), which is
the ``server`` deployments name. What it sets up is the way the machine's
agent (os-collect-config) reaches its metadata, written into the row's
metadata under ``os-collect-config`` as Heat's server_base writes it for
POLL_SERVER_CFN::

    {"collectors": ["cfn", "local"],
     "cfn": {"metadata_url": ..., "access_key_id": ..., "secret_access_key": ...,
             "stack_name": ..., "path": "<resource>.Metadata"}}

For POLL_SERVER_HEAT (Keystone mode: the engine has a stack user domain)
the resource's stack user gets a password, and the agent polls the API's
resource metadata with that user's token::

    {"collectors": ["heat", "local"],
     "heat": {"user_id": ..., "password": ..., "auth_url": ..., "project_id": ...,
              "stack_id": "<stack name>/<stack id>", "resource_name": ...,
              "region_name": ...}}

A collector the new transport drops keeps its keys with None values, as
Heat's do, so that nothing configured at boot still polls with them.

The ``os_collect_config`` attribute hands that to whoever configures the
agent. Deployments push their configs into the same metadata
(``deployments``), which the CFN API's DescribeStackResource and the API's
resource metadata answer.

POLL_SERVER_HEAT is refused at validate without a stack user domain,
POLL_TEMP_URL and ``deployment_swift_data`` always (Swift), ZAQAR_MESSAGE
always (Zaqar), each naming what works.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.attributes import Attribute
from hotplate.resources.base import DEPLOYMENTS, Resource
from hotplate.resources.properties import AllowedValues, Length, PropertyPath, Schema
from hotplate.resources.signal_responder import keystone_signals_served, signal_endpoints
from hotplate.resources.signals import row_metadata
from hotplate.resources.support import Status, SupportStatus

__all__ = ["DeployedServer"]

NAME, METADATA, TRANSPORT, SWIFT_DATA = (
    "name", "metadata", "software_config_transport", "deployment_swift_data")
POLL_SERVER_CFN, POLL_SERVER_HEAT, POLL_TEMP_URL, ZAQAR_MESSAGE = (
    "POLL_SERVER_CFN", "POLL_SERVER_HEAT", "POLL_TEMP_URL", "ZAQAR_MESSAGE")
OCC = "os-collect-config"
COLLECTOR_KEYS = ("heat", "zaqar", "cfn", "request")
"""The collectors whose settings Heat's servers write (the others are left alone)."""

REFUSED_TRANSPORTS = {
    POLL_SERVER_HEAT: "software_config_transport POLL_SERVER_HEAT requires Keystone "
                      "password authentication, not configured; use POLL_SERVER_CFN",
    POLL_TEMP_URL: "software_config_transport POLL_TEMP_URL requires Swift, not "
                   "configured; use POLL_SERVER_CFN",
    ZAQAR_MESSAGE: "software_config_transport ZAQAR_MESSAGE requires Zaqar, not "
                   "configured; use POLL_SERVER_CFN",
}


class DeployedServer(Resource):
    """A resource for managing servers that are already deployed.

    A DeployedServer resource manages resources for servers that have been
    deployed externally from OpenStack. These servers can be associated with
    SoftwareDeployments for further orchestration via Heat.
    """

    support_status = SupportStatus(version="8.0.0")
    managed_metadata = frozenset({OCC, DEPLOYMENTS})
    properties_schema = {
        NAME: Schema(Schema.STRING, "Server name.", update_allowed=True),
        METADATA: Schema(
            Schema.MAP,
            "Arbitrary key/value metadata to store for this server. Both keys and values "
            "must be 255 characters or less. Non-string values will be serialized to "
            "JSON (and the serialized string must be 255 characters or less).",
            update_allowed=True,
            support_status=SupportStatus(status=Status.DEPRECATED,
                                         message="This property will be ignored",
                                         version="9.0.0"),
        ),
        TRANSPORT: Schema(
            Schema.STRING,
            "How the server should receive the metadata required for software "
            "configuration. POLL_SERVER_CFN will allow calls to the cfn API action "
            "DescribeStackResource authenticated with the provided keypair. "
            "POLL_SERVER_HEAT, POLL_TEMP_URL and ZAQAR_MESSAGE need Keystone, Swift "
            "and Zaqar. Default: [DEFAULT] default_software_config_transport.",
            update_allowed=True,
            constraints=[AllowedValues((POLL_SERVER_CFN, POLL_SERVER_HEAT, POLL_TEMP_URL,
                                        ZAQAR_MESSAGE))],
        ),
        SWIFT_DATA: Schema(
            Schema.MAP,
            "Swift container and object to use for storing deployment data for the "
            "server resource (needs Swift, so only an empty map is accepted here).",
            default={},
            update_allowed=True,
            support_status=SupportStatus(version="9.0.0"),
            schema={
                "container": Schema(Schema.STRING, "Name of the container.",
                                    constraints=[Length(min=1)]),
                "object": Schema(Schema.STRING, "Name of the object.",
                                 constraints=[Length(min=1)]),
            },
        ),
    }
    attributes_schema = {
        NAME: Attribute("Name of the server.", type=Attribute.STRING),
        "networks": Attribute("A dict of assigned network addresses; empty for a "
                              "deployed server.", type=Attribute.MAP),
        "os_collect_config": Attribute(
            "The os-collect-config configuration for the server's local agent to be "
            "configured to connect to Heat to retrieve deployment data.",
            type=Attribute.MAP, support_status=SupportStatus(version="9.0.0")),
    }

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        """Transports and Swift data hotplate cannot serve are refused at validation."""
        transport = props.get(TRANSPORT) or ""
        refused = (None if transport == POLL_SERVER_HEAT and keystone_signals_served()
                   else REFUSED_TRANSPORTS.get(transport))
        if refused is not None:
            raise StackValidationFailed(refused, (*path, TRANSPORT))
        if any(value for value in (props.get(SWIFT_DATA) or {}).values()):
            raise StackValidationFailed(
                "deployment_swift_data requires Swift, not configured; leave it empty",
                (*path, SWIFT_DATA))

    def handle_create(self) -> None:
        self.resource_id_set(self.ctx.uuid)
        self._populate_collector_metadata()

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> None:
        super().handle_update(new_properties, prop_diff)
        if TRANSPORT in prop_diff:
            self._populate_collector_metadata()

    def handle_delete(self) -> None:
        if self.resource_id is not None:
            signal_endpoints(self).forget_signal_credentials()

    def _transport(self) -> str:
        return str(self.properties[TRANSPORT]
                   or signal_endpoints(self).default_software_config_transport())

    def collector_config(self) -> dict[str, Any]:
        """What os-collect-config needs to poll this server's metadata."""
        endpoints = signal_endpoints(self)
        transport = self._transport()
        if transport == POLL_SERVER_HEAT:
            creds = endpoints.heat_signal_credentials()
            return {
                "collectors": ["heat", "local"],
                "heat": {
                    "user_id": creds["user_id"], "password": creds["password"],
                    "auth_url": creds["auth_url"], "project_id": creds["project_id"],
                    "stack_id": f"{self.ctx.stack_name}/{self.ctx.stack_id}",
                    "resource_name": self.name, "region_name": creds["region_name"],
                },
            }
        if transport != POLL_SERVER_CFN:
            return {"collectors": ["local"]}
        access, secret = endpoints.stack_user_credentials()
        return {
            "collectors": ["cfn", "local"],
            "cfn": {
                "metadata_url": endpoints.metadata_server_url(),
                "access_key_id": access,
                "secret_access_key": secret,
                "stack_name": self.ctx.stack_name,
                "path": f"{self.name}.Metadata",
            },
        }

    def _populate_collector_metadata(self) -> None:
        occ = self.collector_config()

        def change(metadata: dict[str, Any], _status: str) -> Mapping[str, Any]:
            merged = dict(metadata)
            merged.setdefault("deployments", [])
            found = merged.get(OCC)
            before: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
            dropped = {key: dict.fromkeys(before[key]) for key in COLLECTOR_KEYS
                       if key not in occ and isinstance(before.get(key), Mapping)}
            merged[OCC] = {**dropped, **occ}
            return merged

        row_metadata(self).metadata_update(change)

    def _server_name(self) -> str:
        return str(self.properties[NAME] or self.physical_resource_name())

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == NAME:
            return self._server_name()
        if name == "networks":
            return {}
        if name == "os_collect_config":
            return row_metadata(self).metadata_get().get(OCC, {})
        return None

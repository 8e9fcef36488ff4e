"""What an OS::Nova::Server boots with: its ``user_data`` in its ``user_data_format``.

The text is the ``user_data`` property, or, for RAW and SOFTWARE_CONFIG, the config
of the software config it names by id. HEAT_CFNTOOLS adds the metadata server's
URL; SOFTWARE_CONFIG first writes the collector configuration an agent on the
server polls with (as ``OS::Heat::DeployedServer`` does) into the row's metadata,
which then goes into the boot data too. ``user_data.py`` puts the parts together.
Used at create, and by an update that rebuilds with new user data.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

from hotplate.model.errors import HotplateError
from hotplate.resources.base import Resource
from hotplate.resources.deployed_server import (
    POLL_TEMP_URL,
    REFUSED_TRANSPORTS,
    ZAQAR_MESSAGE,
    DeployedServer,
)
from hotplate.resources.openstack.nova.base import EndpointNotFound
from hotplate.resources.openstack.nova.user_data import build_userdata
from hotplate.resources.signal_responder import signal_endpoints
from hotplate.resources.signals import row_metadata
from hotplate.resources.software_port import ConfigNotFound, software_configs

__all__ = ["OCC", "boot_data", "stored_metadata", "transport"]

OCC = "os-collect-config"
_UUID = re.compile(r"^[0-9a-fA-F]{8}-?([0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}$")


def stored_metadata(server: Resource) -> dict[str, Any]:
    """The row's metadata, as the engine's context keeps it (none where it keeps none)."""
    getter = getattr(server.ctx, "metadata_get", None)
    found = getter() if callable(getter) else {}
    return dict(found or {})


def boot_data(server: Resource) -> str | None:
    """The server's user data, built for its format (None when there is none)."""
    props = server.properties
    fmt = str(props["user_data_format"])
    content = str(props.get("user_data") or "")
    if fmt in ("RAW", "SOFTWARE_CONFIG") and _UUID.match(content):
        # A software config's id (get_resource of a CloudConfig...): its config, as
        # Heat loads it; an id no config has stays the text it is.
        with contextlib.suppress(ConfigNotFound):
            content = str(software_configs(server).show_config(content).get("config") or "")
    metadata = stored_metadata(server)
    if fmt == "SOFTWARE_CONFIG":
        metadata = _software_config_metadata(server, metadata)
    url = ""
    if fmt == "HEAT_CFNTOOLS":
        url = _metadata_url(server)
    return build_userdata(fmt, content, metadata, url)


def transport(server: Resource) -> str:
    """How the server's agent gets its deployments (the stack's default when unset)."""
    return str(server.properties.get("software_config_transport")
               or signal_endpoints(server).default_software_config_transport())


def _metadata_url(server: Resource) -> str:
    try:
        return signal_endpoints(server).metadata_server_url()
    except Exception:
        return ""


def _software_config_metadata(server: Resource, metadata: dict[str, Any]) -> dict[str, Any]:
    """What an agent polling this server needs (Heat's _populate_deployments_metadata):
    the collector configuration ``OS::Heat::DeployedServer`` writes, in the row's
    metadata and in the boot data. POLL_TEMP_URL and ZAQAR_MESSAGE need Swift and
    Zaqar, which fail here as Heat's clients do when the catalog lacks them.

    ``server`` is the Server itself: DeployedServer's writer asks it for its
    ``collector_config``."""
    chosen = transport(server)
    needs = {POLL_TEMP_URL: ("swift", "object-store"),
             ZAQAR_MESSAGE: ("zaqar", "messaging")}.get(chosen)
    if needs is not None:
        if not server.cloud.endpoint_exists(*needs):
            raise EndpointNotFound()
        raise HotplateError(REFUSED_TRANSPORTS[chosen])
    DeployedServer._populate_collector_metadata(server)  # type: ignore[arg-type]
    written = row_metadata(server).metadata_get()
    return {**metadata, **written} if written else metadata

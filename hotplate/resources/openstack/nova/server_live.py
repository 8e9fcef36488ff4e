"""OS::Nova::Server's live state (Heat's ``get_live_resource_data`` and
``parse_live_resource_data`` of a server).

Read: the server (gone: ``EntityNotFound``; not ACTIVE: its state cannot be
read now, as in Heat, whose update then goes on with the stored properties) and
its tags. Read back::

    name       only when the template named the server (else the physical name)
    metadata   less hotplate's marks
    tags       less hotplate's attempt tag
    flavor     as the template spelt it when it is the same flavor (Nova shows
               its name from 2.47 on, its id before), else Nova's spelling
    image      likewise, by id (a server booted from a volume has none)

``networks`` are not read back: matching Nova's addresses to the template's
entries is Heat's guesswork, and a wrong guess would move interfaces.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hotplate.model.errors import EntityNotFound
from hotplate.resources.live_state import LiveStateUnavailable
from hotplate.resources.openstack.attempt_marks import metadata_without_marks, tags_without_marks
from hotplate.resources.openstack.nova import status as st

if TYPE_CHECKING:
    from hotplate.resources.openstack.nova.server import Server

__all__ = ["live_data", "parse_live_data"]


def live_data(server: Server) -> dict[str, Any]:
    """Nova's document of the server, with its ``tags`` (the tags call's)."""
    found = server._fetch()
    if found is None:
        raise EntityNotFound("Resource", server.name)
    if st.status_of(found) != "ACTIVE":
        raise LiveStateUnavailable(f"Server {server.name} is not in ACTIVE state")
    if "tags" not in found:
        found["tags"] = server.nova().get(f"/servers/{server.resource_id}/tags").get("tags", [])
    return found


def parse_live_data(server: Server, props: Mapping[str, Any],
                    data: Mapping[str, Any]) -> dict[str, Any]:
    """The properties read back from ``data`` (see the module docstring)."""
    result: dict[str, Any] = {
        "metadata": metadata_without_marks(data.get("metadata")),
        "tags": tags_without_marks(data.get("tags")),
    }
    if props.get("name") is not None:
        result["name"] = data.get("name")
    flavor = data.get("flavor")
    if isinstance(flavor, Mapping):
        spelt = flavor.get("original_name") or flavor.get("id")
        if spelt:
            result["flavor"] = server.as_given("flavor", props.get("flavor"), str(spelt))
    image = data.get("image")
    if isinstance(image, Mapping) and image.get("id"):
        result["image"] = server.as_given("image", props.get("image"), str(image["id"]))
    return result

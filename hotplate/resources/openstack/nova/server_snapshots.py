"""A server's part in a stack snapshot: an image of it, as Heat's server makes.

``handle_snapshot`` asks Nova for an image of the server and keeps its id in
the resource data; the snapshot is done once Glance has the image active and
Nova has finished uploading it. A restore makes the server's definition boot
from that image (an update then rebuilds the server on it, by its
``image_update_policy``). Deleting the snapshot deletes the image.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hotplate.model.errors import HotplateError

if TYPE_CHECKING:
    from hotplate.resources.openstack.nova.api import NovaApi

IMAGE_KEY = "snapshot_image_id"
UPLOADING = frozenset({"image_uploading", "image_snapshot_pending", "image_snapshot",
                       "image_pending_upload"})
"""Nova's task states while an image of the server is being made."""
LIST_PROPERTIES = ("block_device_mapping", "block_device_mapping_v2", "networks")


class ServerSnapshots:
    """Heat's snapshot handlers for OS::Nova::Server (a mixin of the plugin)."""

    resource_id: str | None
    properties: dict[str, Any]
    cloud: Any

    if TYPE_CHECKING:  # the plugin's own, declared for the type checker only
        def nova(self) -> NovaApi: ...

        def physical_resource_name(self) -> str: ...

        def data_set(self, key: str, value: str, *, redact: bool = False) -> None: ...

    def handle_snapshot(self) -> str:
        made = self.nova().action(str(self.resource_id),
                                  {"createImage": {"name": self.physical_resource_name()}})
        image = str((made or {}).get("image_id"))
        self.data_set(IMAGE_KEY, image)
        return image

    def check_snapshot_complete(self, image: str) -> bool:
        found = self.cloud.call(self.cloud.image.get_image, image)
        status = str(found.status).lower()
        if status in ("error", "deleted"):
            raise HotplateError(status)
        if status != "active":
            return False
        server = self.nova().server(str(self.resource_id))
        return server.get("OS-EXT-STS:task_state") not in UPLOADING

    def handle_delete_snapshot(self, snapshot: Mapping[str, Any]) -> None:
        image = (snapshot.get("resource_data") or {}).get(IMAGE_KEY)
        if image:
            self.cloud.call(self.cloud.image.delete_image, str(image), ignore_missing=True)

    def handle_restore(self, definition: dict[str, Any],
                       part: Mapping[str, Any]) -> dict[str, Any]:
        """The definition of this server booting from its snapshot's image."""
        properties = {key: value for key, value in self.properties.items()
                      if value is not None}
        for key in LIST_PROPERTIES:
            if isinstance(properties.get(key), list):
                properties[key] = [
                    {k: v for k, v in item.items() if v is not None}
                    if isinstance(item, Mapping) else item
                    for item in properties[key]]
        properties["image"] = (part.get("resource_data") or {})[IMAGE_KEY]
        return {**definition, "properties": properties}

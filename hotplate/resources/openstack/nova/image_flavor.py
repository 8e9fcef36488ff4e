"""Heat's check of a server's image against its flavor, when the stack is validated.

Heat's Server refuses, before anything is made, an image that is not active and
a flavor too small for the image (its ``min_ram``, its ``min_disk``), in these
words. An image or flavor the cloud does not have (yet: the same stack may make
it) is not this check's to refuse: the property's constraint or the create says so.
"""

from __future__ import annotations

from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.openstack.cloud_errors import is_not_found

IMAGE_ACTIVE = "active"


def check_image_flavor(cloud: Any, image: str, flavor: str,
                       seen: dict[tuple[str, str], Any]) -> None:
    """Raise Heat's StackValidationFailed when ``image`` cannot boot on ``flavor``.

    ``seen``: lookups already made for this request (a template of many servers
    asks the cloud once per image and flavor).
    """
    try:
        found = _lookup(cloud, "image", image, seen)
        size = _lookup(cloud, "flavor", flavor, seen)
    except Exception as exc:
        if is_not_found(exc):
            return
        raise
    status = str(found.status or "")
    if status.lower() != IMAGE_ACTIVE:
        raise StackValidationFailed(
            f"Image status is required to be {IMAGE_ACTIVE} not {status}.")
    if (size.ram or 0) < (found.min_ram or 0):
        raise StackValidationFailed(
            f"Image {image} requires {found.min_ram} minimum ram. Flavor {flavor} has "
            f"only {size.ram}.")
    if (size.disk or 0) < (found.min_disk or 0):
        raise StackValidationFailed(
            f"Image {image} requires {found.min_disk} GB minimum disk space. Flavor "
            f"{flavor} has only {size.disk} GB.")


def _lookup(cloud: Any, kind: str, value: str, seen: dict[tuple[str, str], Any]) -> Any:
    key = (kind, value)
    if key not in seen:
        ident = cloud.find(kind, value)
        proxy, getter = (cloud.image, "get_image") if kind == "image" else (
            cloud.compute, "get_flavor")
        seen[key] = cloud.call(getattr(proxy, getter), ident)
    return seen[key]

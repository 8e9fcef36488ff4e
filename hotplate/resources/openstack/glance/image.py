"""OS::Glance::WebImage and OS::Glance::Image (Heat's ``glance/image.py``).

WebImage makes an image and has Glance import its data from ``location`` by
web-download; the create waits until Glance says ``active`` (``killed``:
ResourceInError), and with ``active: false`` deactivates the image once it is.
A web-download that fails leaves the image ``queued``, its store named in
``os_glance_failed_import`` and none left importing; that ends the wait too,
with the import task's message as the reason (Heat would wait on until the
stack's timeout). What changes in place: ``protected``, ``tags`` (added and
removed one by one), the descriptive fields, ``owner``, ``visibility``,
``extra_properties`` (dropped keys removed), ``members`` (added and removed)
and ``active`` (deactivated at once, reactivated at the end of the update);
anything else is a new image. The delete accepts an image already gone.

OS::Glance::Image is hidden since Heat 22.0.0: the Glance v1 API it needed is
gone, so Heat keeps the type only so that old stacks still load, as a
placeholder that accepts any properties and makes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import EntityNotFound, StackValidationFailed
from hotplate.resources.base import CheckResult, Resource
from hotplate.resources.constraints import AllowedPattern, AllowedValues, Range
from hotplate.resources.none import NoneResource
from hotplate.resources.openstack.glance.api import GlanceApi
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.scaling_policy import ResourcePropertyValueDependency
from hotplate.resources.status_errors import ResourceInError
from hotplate.resources.support import Status, SupportStatus

__all__ = ["GlanceImage", "WebImage", "patch_operations"]

_UUID = ("^([0-9a-fA-F]){8}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}"
         "-([0-9a-fA-F]){12}$")
_AMI = ("ami", "ari", "aki")
_APART = frozenset({"location", "members", "active", "extra_properties", "tags"})
"""Properties that are not fields of Glance's image document (or change apart)."""
_WEB_DOWNLOAD = "web-download"


def patch_operations(image: Mapping[str, Any], changes: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Glance's JSON patch setting ``changes`` on ``image``: None removes a field the
    image has; a value replaces one it has, else is added."""
    operations: list[dict[str, Any]] = []
    for key, value in changes.items():
        if value is None:
            if key in image:
                operations.append({"op": "remove", "path": f"/{key}"})
        else:
            op = "replace" if key in image else "add"
            operations.append({"op": op, "path": f"/{key}", "value": value})
    return operations


def _changes(new: list[str] | None, old: list[str] | None) -> tuple[list[str], list[str]]:
    wanted, had = list(dict.fromkeys(new or [])), list(dict.fromkeys(old or []))
    return [x for x in wanted if x not in had], [x for x in had if x not in wanted]


class WebImage(Resource):
    """A resource managing images in Glance using web-download import.

    This provides image support for recent Glance installation.
    """

    support_status = SupportStatus(version="12.0.0")
    heat_class_name = "GlanceWebImage"
    default_client_name = "glance"
    live_state = True

    properties_schema = {
        "name": Schema(Schema.STRING, "Name for the image. The name of an image is not unique "
                       "to a Image Service node."),
        "id": Schema(Schema.STRING, "The image ID. Glance will generate a UUID if not "
                     "specified."),
        "min_disk": Schema(Schema.INTEGER, "Amount of disk space (in GB) required to boot "
                           "image. Default value is 0 if not specified and means no limit on "
                           "the disk size.", constraints=[Range(min=0)], default=0),
        "min_ram": Schema(Schema.INTEGER, "Amount of ram (in MB) required to boot image. "
                          "Default value is 0 if not specified and means no limit on the ram "
                          "size.", constraints=[Range(min=0)], default=0),
        "protected": Schema(Schema.BOOLEAN, "Whether the image can be deleted. If the value "
                            "is True, the image is protected and cannot be deleted.",
                            update_allowed=True, default=False),
        "disk_format": Schema(Schema.STRING, "Disk format of image.", required=True,
                              constraints=[AllowedValues(
                                  ("ami", "ari", "aki", "vhd", "vhdx", "vmdk", "raw", "qcow2",
                                   "vdi", "iso", "ploop"))]),
        "container_format": Schema(Schema.STRING, "Container format of image.", required=True,
                                   constraints=[AllowedValues(
                                       ("ami", "ari", "aki", "bare", "ovf", "ova",
                                        "docker"))]),
        "location": Schema(Schema.STRING, "URL where the data for this image already resides. "
                           "For example, if the image data is stored in swift, you could "
                           'specify "swift://example.com/container/obj".', required=True),
        "tags": Schema(Schema.LIST, "List of image tags.", update_allowed=True),
        "architecture": Schema(Schema.STRING, "Operating system architecture.",
                               update_allowed=True),
        "kernel_id": Schema(Schema.STRING, "ID of image stored in Glance that should be used "
                            "as the kernel when booting an AMI-style image.",
                            update_allowed=True, constraints=[AllowedPattern(_UUID)]),
        "os_distro": Schema(Schema.STRING, "The common name of the operating system "
                            "distribution in lowercase.", update_allowed=True),
        "os_version": Schema(Schema.STRING, "Operating system version as specified by the "
                             "distributor.", update_allowed=True),
        "owner": Schema(Schema.STRING, "Owner of the image.", update_allowed=True),
        "extra_properties": Schema(Schema.MAP, "Arbitrary properties to associate with the "
                                   "image.", update_allowed=True, default={},
                                   support_status=SupportStatus(version="17.0.0")),
        "visibility": Schema(Schema.STRING, "Scope of image accessibility.",
                             update_allowed=True, default="private",
                             constraints=[AllowedValues(
                                 ("public", "private", "community", "shared"))]),
        "ramdisk_id": Schema(Schema.STRING, "ID of image stored in Glance that should be used "
                             "as the ramdisk when booting an AMI-style image.",
                             update_allowed=True, constraints=[AllowedPattern(_UUID)]),
        "active": Schema(Schema.BOOLEAN, "Activate or deactivate the image. Requires Admin "
                         "Access.", default=True, update_allowed=True,
                         support_status=SupportStatus(version="16.0.0")),
        "members": Schema(Schema.LIST, "List of additional members that are permitted to read "
                          "the image. This may be a Keystone Project IDs or User IDs, "
                          "depending on the Glance configuration in use.",
                          schema=Schema(Schema.STRING, "A member ID. This may be a Keystone "
                                        "Project ID or User ID, depending on the Glance "
                                        "configuration in use."),
                          update_allowed=True, support_status=SupportStatus(version="16.0.0")),
    }

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        container = props.get("container_format")
        if container in _AMI and "disk_format" in props and props["disk_format"] != container:
            raise StackValidationFailed(
                "Invalid mix of disk and container formats. When setting a disk or container "
                "format to one of 'aki', 'ari', or 'ami', the container and disk formats must "
                "match.")
        if props.get("members") and props.get("visibility", "private") != "shared":
            raise ResourcePropertyValueDependency("members", "visibility", "shared")

    def glance(self) -> GlanceApi:
        return GlanceApi(self.cloud)

    def _path(self, suffix: str = "") -> str:
        return f"/images/{self.resource_id}{suffix}"

    # -- create -------------------------------------------------------------------------
    def handle_create(self) -> Any:
        props = self.properties
        body = {k: v for k, v in props.items()
                if v is not None and k not in _APART - {"tags"}}
        # With the image, not after its import as Heat sets them: Glance's import
        # writes back the image it read when it began, dropping what came meanwhile.
        body.update(props["extra_properties"] or {})
        api = self.glance()
        made = api.request("POST", "/images", body)
        self.resource_id_set(str(made["id"]))
        api.request("POST", self._path("/import"),
                    {"method": {"name": _WEB_DOWNLOAD, "uri": props["location"]}})
        for member in props.get("members") or []:
            api.request("POST", self._path("/members"), {"member": member})
        return bool(props["active"])

    def check_create_complete(self, data: Any) -> CheckResult:
        image = self.glance().image(str(self.resource_id))
        status = image.get("status")
        if status == "killed":
            raise ResourceInError(str(status))
        if (status == "queued" and image.get("os_glance_failed_import")
                and not image.get("os_glance_importing_to_stores")):
            failure = self._import_failure(image)
            if failure is None:
                return False
            raise ResourceInError(str(status), failure)
        if data is False:
            if status == "active":
                self.glance().request("POST", self._path("/actions/deactivate"))
                return True
            return status == "deactivated"
        return status == "active"

    def _import_failure(self, image: Mapping[str, Any]) -> str | None:
        """The failed import task's message (Glance lists an image's tasks; the image
        names its task only while it runs, else the newest is ours); None while the
        task has not ended yet (Glance may mark the image before the task)."""
        task = image.get("os_glance_import_task")
        try:
            tasks = self.glance().request("GET", self._path("/tasks")).get("tasks") or []
        except Exception:
            tasks = []
        tasks = sorted(tasks, key=lambda t: str(t.get("created_at") or ""))
        ours = [t for t in tasks if t.get("id") == task] if task else tasks[-1:]
        if ours and ours[0].get("status") in ("pending", "processing"):
            return None
        message = str(ours[0].get("message") or "") if ours else ""
        return message or f"{_WEB_DOWNLOAD} import failed"

    def resume_data(self, action: str) -> Any:
        return bool(self.properties["active"])

    # -- update -------------------------------------------------------------------------
    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        diff = dict(prop_diff)
        active = diff.pop("active", None)
        api = self.glance()
        if active is False:
            api.request("POST", self._path("/actions/deactivate"))
        if "tags" in diff:
            added, removed = _changes(diff.pop("tags"), self.properties.get("tags"))
            for tag in added:
                api.request("PUT", self._path(f"/tags/{tag}"))
            for tag in removed:
                api.delete(self._path(f"/tags/{tag}"))
        if "members" in diff:
            added, removed = _changes(diff.pop("members"), self.properties.get("members"))
            for member in added:
                api.request("POST", self._path("/members"), {"member": member})
            for member in removed:
                api.delete(self._path(f"/members/{member}"))
        changes = {k: v for k, v in diff.items() if k not in _APART}
        if "extra_properties" in diff:
            new = dict(diff["extra_properties"] or {})
            changes.update({k: None for k in self.properties["extra_properties"] or {}
                            if k not in new})
            changes.update(new)
        if changes:
            image = api.image(str(self.resource_id))
            api.patch(str(self.resource_id), patch_operations(image, changes))
        super().handle_update(new_properties, prop_diff)
        return active

    def check_update_complete(self, data: Any) -> CheckResult:
        if data is True:
            self.glance().request("POST", self._path("/actions/reactivate"))
        return True

    # -- delete and show ----------------------------------------------------------------
    def handle_delete(self) -> Any:
        if self.resource_id is not None:
            self.glance().delete(self._path())
        return None

    def _show_resource(self) -> Any:
        if self.resource_id is None:
            return None
        return self.glance().image(str(self.resource_id))

    # -- live state ---------------------------------------------------------------------
    def get_live_resource_data(self) -> Any:
        """Glance's image; one ``deleted`` or ``killed`` is gone, as Heat reads it."""
        found = super().get_live_resource_data()
        if isinstance(found, Mapping) and found.get("status") in ("deleted", "killed"):
            raise EntityNotFound("Resource", self.name)
        return found

    def parse_live_resource_data(self, resource_properties: Mapping[str, Any],
                                 resource_data: Mapping[str, Any]) -> dict[str, Any]:
        """Heat's reading of an image: every property Glance shows under its own name
        (not ``location``; ``id`` when the template chose it), of ``extra_properties``
        the keys the template gave, and ``active`` from the status. ``members`` are
        not read back."""
        skipped = {"location", "id", "extra_properties", "active", "members"}
        result = {key: resource_data.get(key) for key in self.properties_schema
                  if key not in skipped and key in resource_data}
        if resource_properties.get("id") is not None:
            result["id"] = resource_data.get("id")
        given = resource_properties.get("extra_properties") or {}
        result["extra_properties"] = {k: resource_data.get(k) for k in given}
        if "status" in resource_data:
            result["active"] = resource_data["status"] != "deactivated"
        return result


class GlanceImage(NoneResource):
    """A resource managing images in Glance.

    A resource provides managing images that are meant to be used with other
    services.
    """

    heat_class_name = "GlanceImage"
    support_status = SupportStatus(
        Status.HIDDEN, "22.0.0",
        previous_status=SupportStatus(
            Status.DEPRECATED, "8.0.0",
            "Creating a Glance Image based on an existing URL location requires the Glance "
            "v1 API, which is deprecated.",
            previous_status=SupportStatus(version="2014.2")))

"""What the Nova types share: the API, Heat's status errors, and a delete that accepts gone."""

from __future__ import annotations

from typing import Any, ClassVar

from hotplate.model.errors import EntityNotFound, HotplateError
from hotplate.resources.base import CheckResult, Resource
from hotplate.resources.openstack.cloud_errors import is_not_found
from hotplate.resources.openstack.nova.api import NovaApi
from hotplate.resources.status_errors import ResourceInError, ResourceUnknownStatus

__all__ = ["EndpointNotFound", "NovaResource", "ResourceInError", "ResourceUnknownStatus",
           "is_not_found"]


class EndpointNotFound(HotplateError):
    """A service the resource needs is not in the caller's catalog (keystoneauth's words,
    which Heat shows)."""

    def __init__(self) -> None:
        super().__init__("Could not find requested endpoint in Service Catalog.")


class NovaResource(Resource):
    """A Nova object at ``<path>/<resource_id>`` answered as ``{<entity>: {...}}``."""

    default_client_name = "nova"
    live_state = True
    path: ClassVar[str] = ""
    entity: ClassVar[str] = ""

    def nova(self) -> NovaApi:
        return NovaApi(self.cloud)

    def show(self) -> dict[str, Any]:
        found: dict[str, Any] = self.nova().get(f"{self.path}/{self.resource_id}")[self.entity]
        return found

    def resume_data(self, action: str) -> Any:
        return {}

    def handle_delete(self) -> Any:
        """Heat's default delete of an ``entity``: already gone is fine."""
        if self.resource_id is not None:
            self.nova().delete(f"{self.path}/{self.resource_id}")
        return None

    def check_delete_complete(self, data: Any) -> CheckResult:
        return True

    def get_live_resource_data(self) -> Any:
        """The object as Nova has it; gone is ``EntityNotFound`` (where ``show`` is None)."""
        if self.resource_id is None:
            return None
        try:
            return self.show()
        except Exception as exc:
            if is_not_found(exc):
                raise EntityNotFound("Resource", self.name) from exc
            raise

    def _show_resource(self) -> Any:
        if self.resource_id is None:
            return None
        try:
            return self.show()
        except Exception as exc:
            if is_not_found(exc):
                return None
            raise

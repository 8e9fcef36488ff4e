"""Another region's Heat, as ``OS::Heat::Stack`` drives a stack there.

Heat's RemoteStack makes its stack through the orchestration service of the
region ``context.region_name`` names, with the stack's own credentials (its
trust), and polls it. Here the requests go as Heat API v1 JSON to that
region's ``orchestration`` endpoint in the stack owner's catalog, through the
stack's ``Cloud`` moved to the region (``Cloud.in_region``: the same trust,
the other region's catalog) and ``Cloud.call`` (transient failures retried,
errors classified), with the resource's TLS choices (``context.insecure``,
``context.ca_cert``) or else ``[clients_heat]``'s. Nothing here waits: the engine
parks the resource between two looks at the remote stack.

A refusal reads as Heat shows heatclient's: the class named after the status
(``HTTPBadRequest``, ``HTTPNotFound``...; it also derives from the client
layer's classified kind) and the text ``ERROR: <the API's message>``. A remote
stack that ends FAILED is ``ResourceInError`` (``Went to status CREATE_FAILED
due to "<its reason>"``), one in a status Heat does not know
``ResourceUnknownStatus``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from hotplate.model.errors import HotplateError
from hotplate.resources.openstack.cloud_errors import error_class, is_not_found

__all__ = ["RemoteHeat", "ResourceInError", "ResourceUnknownStatus", "action_done",
           "heat_error"]

_BY_STATUS = {300: "HTTPMultipleChoices", 400: "HTTPBadRequest", 401: "HTTPUnauthorized",
              403: "HTTPForbidden", 404: "HTTPNotFound", 405: "HTTPMethodNotAllowed",
              409: "HTTPConflict", 413: "HTTPOverLimit", 415: "HTTPUnsupported",
              500: "HTTPInternalServerError", 501: "HTTPNotImplemented",
              502: "HTTPBadGateway", 503: "HTTPServiceUnavailable"}
"""heatclient's exception class for each status (others: HTTPException)."""


class ResourceInError(HotplateError):
    """Heat's ``ResourceInError``: the remote stack ended FAILED."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(f'Went to status {status} due to "{reason}"')


class ResourceUnknownStatus(HotplateError):
    """Heat's ``ResourceUnknownStatus``: a status neither in progress, complete nor failed."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(f'Resource failed - Unknown status {status} due to "{reason}"')


def heat_message(response: Any) -> str:
    """heatclient's reading of an error answer: the ``error.message`` of Heat's JSON
    fault, else the answer's text."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("message", "Internal Error"))
    return str(getattr(response, "text", "") or "")


def heat_error(classified: Exception, message: str) -> Exception:
    """A classified failure renamed and worded as heatclient's exception prints."""
    status = getattr(classified, "status", None)
    name = _BY_STATUS.get(status or 0, "HTTPException")
    error: Exception = error_class(name, type(classified), __name__)(
        f"ERROR: {message or name}", status)
    return error


def _renamed(exc: Exception) -> Exception:
    response = getattr(exc.__cause__, "response", None)
    if response is None:
        return heat_error(exc, str(exc))
    return heat_error(exc, heat_message(response))


def action_done(stack: Mapping[str, Any], action: str) -> bool:
    """Whether the remote stack finished ``action`` (Heat's ``_check_action_complete``):
    False while it is in another action or in progress.

    Raises:
        ResourceInError: it ended ``action`` FAILED, with its reason.
        ResourceUnknownStatus: its status is none Heat knows.
    """
    status_text = str(stack.get("stack_status") or "")
    current, _, status = status_text.partition("_")
    if current != action or status == "IN_PROGRESS":
        return False
    if status == "COMPLETE":
        return True
    reason = str(stack.get("stack_status_reason") or "")
    if status == "FAILED":
        raise ResourceInError(status_text, reason)
    raise ResourceUnknownStatus(status_text, reason)


class RemoteHeat:
    """Stacks of one region's Heat API, through a ``Cloud`` moved to that region."""

    CLIENT = "heat"
    SERVICE_TYPE = "orchestration"

    def __init__(self, cloud: Any, region: str, *, ca_cert: str | None = None,
                 insecure: bool = False) -> None:
        self._cloud = cloud.in_region(region)
        self.region = region
        self._tls = {"ca_cert": ca_cert, "insecure": insecure}

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """The decoded answer to ``method path`` (None for an empty one).

        Raises:
            EndpointNotFound: the region's catalog has no orchestration endpoint.
            CloudError: the classified failure, renamed as heatclient names it.
        """
        base = self._cloud.endpoint_url(self.CLIENT, self.SERVICE_TYPE)
        session = self._cloud.session(self.CLIENT, **self._tls)

        def send() -> Any:
            kwargs: dict[str, Any] = {"json": body} if body is not None else {}
            return session.request(f"{base}{path}", method, raise_exc=True,
                                   headers={"Accept": "application/json"}, **kwargs)

        try:
            response = self._cloud.call(send)
        except Exception as exc:
            if getattr(exc, "status", None) is None:
                raise
            raise _renamed(exc) from exc
        if response.status_code == 204 or not response.content:
            return None
        return response.json()

    @staticmethod
    def _path(stack_id: str) -> str:
        return f"/stacks/{quote(stack_id, safe='')}"

    def create(self, body: Mapping[str, Any]) -> str:
        """Start creating a stack; its id."""
        made = self.request("POST", "/stacks", dict(body))
        return str(made["stack"]["id"])

    def validate(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The endpoint's template validation (``template``, ``files``, ``environment``).

        Raises:
            CloudError: renamed as heatclient names it (``HTTPBadRequest``: the
                template is refused, ``ERROR: <why>``).
        """
        found: dict[str, Any] = self.request("POST", "/validate", dict(body))
        return found

    def get(self, stack_id: str) -> dict[str, Any]:
        """The stack's view (``stack_status``, ``outputs``, ...); its outputs resolved."""
        shown = self.request("GET", self._path(stack_id))
        stack: dict[str, Any] = shown["stack"]
        return stack

    def update(self, stack_id: str, body: Mapping[str, Any]) -> None:
        """Start updating the stack to a new template, parameters and environment."""
        self.request("PUT", self._path(stack_id), dict(body))

    def action(self, stack_id: str, action: str) -> None:
        """Start ``suspend``, ``resume`` or ``check`` on the stack."""
        self.request("POST", f"{self._path(stack_id)}/actions", {action: None})

    def _snapshots(self, stack_id: str) -> str:
        """The stack's snapshots' path: Heat routes it only under the stack's name and id."""
        name = str(self.get(stack_id)["stack_name"])
        return f"/stacks/{quote(name, safe='')}/{quote(stack_id, safe='')}/snapshots"

    def snapshot(self, stack_id: str) -> str:
        """Start a snapshot of the stack; its id."""
        made = self.request("POST", self._snapshots(stack_id), {})
        return str(made["id"])

    def snapshot_show(self, stack_id: str, snapshot_id: str) -> dict[str, Any]:
        shown = self.request("GET", f"{self._snapshots(stack_id)}/{quote(snapshot_id)}")
        found: dict[str, Any] = shown["snapshot"]
        return found

    def delete(self, stack_id: str) -> bool:
        """Start deleting the stack; False when it was already gone (404)."""
        try:
            self.request("DELETE", self._path(stack_id))
        except Exception as exc:
            if is_not_found(exc):
                return False
            raise
        return True

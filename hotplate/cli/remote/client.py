"""Heat's orchestration API v1 over HTTP: one method per route the commands use.

Stack lookups by name answer 302, and a client that follows the redirect
must resend the method and body; httpx, like browsers, turns a redirected
POST into a GET. So this client never follows redirects: it resolves a name
once with ``GET /stacks/{name}``, takes ``{name}/{id}`` from the
``Location`` (as heatclient does), and sends every request to the
stack's canonical path. Errors become :class:`~.errors.CommandError`s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote

import httpx

from hotplate import __version__
from hotplate.cli.remote.errors import ApiError, CommandError, Unreachable
from hotplate.cli.remote.settings import ENV_TOKEN, Connection
from hotplate.cli.remote.stack_ref import StackRef, segment

__all__ = ["HeatClient", "StackRef", "api_error"]

Query = Mapping[str, Any] | Sequence[tuple[str, Any]]
_NO_BODY = object()


class HeatClient:
    """Requests to one endpoint (``.../v1/<project>``) with one token."""

    def __init__(self, connection: Connection, *, timeout: float = 60.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.endpoint = connection.endpoint.rstrip("/")
        headers = {"Accept": "application/json", "User-Agent": f"hotplate-cli/{__version__}"}
        if connection.token:
            headers["X-Auth-Token"] = connection.token
        self._http = httpx.Client(headers=headers, timeout=timeout, follow_redirects=False,
                                  transport=transport)
        self._refs: dict[str, StackRef] = {}

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> HeatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing ---------------------------------------------------------------------
    def request(self, method: str, path: str, *, params: Query | None = None,
                body: Any = _NO_BODY) -> httpx.Response:
        """Send one request; a 4xx/5xx answer raises :class:`ApiError`."""
        url = self.endpoint + path
        kwargs: dict[str, Any] = {"params": params}
        if body is not _NO_BODY:
            kwargs["json"] = body
        try:
            resp = self._http.request(method, url, **kwargs)
        except httpx.ConnectError as exc:
            raise Unreachable(
                f"cannot connect to the hotplate API at {self.endpoint} ({exc}). Is the server "
                "running? Start one with `hotplate serve`, or point --url or HOTPLATE_URL "
                "at it.")
        except httpx.TimeoutException:
            raise Unreachable(f"the hotplate API at {self.endpoint} did not answer in time "
                              f"({method} {path}).")
        except httpx.HTTPError as exc:
            raise Unreachable(f"{method} {url} failed: {exc}")
        if resp.status_code >= 400:
            raise api_error(resp, f"{method} {path}")
        return resp

    def call(self, method: str, path: str, *, params: Query | None = None,
             body: Any = _NO_BODY) -> Any:
        """The decoded JSON answer, or None when there is no body."""
        resp = self.request(method, path, params=params, body=body)
        if not resp.content:
            return None
        try:
            return resp.json()
        except ValueError:
            raise CommandError(f"{method} {path}: the server answered something that is not "
                               "JSON")

    # -- stacks -----------------------------------------------------------------------
    def find_stack(self, name_or_id: str) -> StackRef:
        """The stack's ``name/id``: given as such, or looked up (``Stack not found: X``)."""
        if "/" in name_or_id.strip("/"):
            name, _, stack_id = name_or_id.strip("/").partition("/")
            return StackRef(name, stack_id.split("/", 1)[0])
        if name_or_id in self._refs:
            return self._refs[name_or_id]
        try:
            resp = self.request("GET", f"/stacks/{segment(name_or_id)}")
        except ApiError as exc:
            if exc.missing:
                raise ApiError(404, f"Stack not found: {name_or_id}", exc.error_type)
            raise
        location = resp.headers.get("location", "")
        if resp.status_code != 302 or "/stacks/" not in location:
            raise CommandError(f"the lookup of stack {name_or_id} answered "
                               f"{resp.status_code} without a stack location")
        tail = location.split("/stacks/", 1)[1].split("?", 1)[0].split("/")
        if len(tail) < 2:
            raise CommandError(f"the lookup of stack {name_or_id} answered a location "
                               f"without an id: {location}")
        ref = StackRef(unquote(tail[0]), unquote(tail[1]))
        self._refs[name_or_id] = ref
        return ref

    def list_stacks(self, params: Mapping[str, Any], limit: int | None = None
                    ) -> list[dict[str, Any]]:
        """Stacks, asking for the rest after the last one until ``limit`` are in hand."""
        query = {k: v for k, v in params.items() if v is not None and v != "" and v != []}
        if not limit:
            return list(self.call("GET", "/stacks", params=query)["stacks"])
        found: list[dict[str, Any]] = []
        while len(found) < limit:
            query["limit"] = limit - len(found)
            page = self.call("GET", "/stacks", params=query)["stacks"]
            if not page:
                break
            found.extend(page)
            query["marker"] = page[-1]["id"]
        return found

    def create_stack(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return dict(self.call("POST", "/stacks", body=dict(body))["stack"])

    def preview_stack(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return dict(self.call("POST", "/stacks/preview", body=dict(body))["stack"])

    def get_stack(self, ref: StackRef, *, resolve_outputs: bool = True) -> dict[str, Any]:
        params = None if resolve_outputs else {"resolve_outputs": "False"}
        return dict(self.call("GET", ref.path, params=params)["stack"])

    def update_stack(self, ref: StackRef, body: Mapping[str, Any], *, patch: bool) -> None:
        """PUT replaces template and parameters; PATCH (``--existing``) keeps what is absent."""
        self.request("PATCH" if patch else "PUT", ref.path, body=dict(body))

    def preview_update(self, ref: StackRef, body: Mapping[str, Any], *, patch: bool,
                       show_nested: bool) -> dict[str, Any]:
        params = {"show_nested": "True"} if show_nested else None
        return dict(self.call("PATCH" if patch else "PUT", ref.path + "/preview",
                              params=params, body=dict(body)))

    def delete_stack(self, ref: StackRef) -> None:
        self.request("DELETE", ref.path)

    def abandon_stack(self, ref: StackRef) -> dict[str, Any]:
        return dict(self.call("DELETE", ref.path + "/abandon"))

    def stack_action(self, ref: StackRef, action: str) -> None:
        """``suspend``, ``resume``, ``check``, ``cancel_update`` or ``cancel_without_rollback``."""
        self.request("POST", ref.path + "/actions", body={action: None})

    def template(self, ref: StackRef) -> dict[str, Any]:
        return dict(self.call("GET", ref.path + "/template"))

    def drift(self, ref: StackRef) -> dict[str, Any]:
        """hotplate's own ``GET .../drift``: each resource's live state against its template."""
        return dict(self.call("GET", ref.path + "/drift"))

    def environment(self, ref: StackRef) -> dict[str, Any]:
        return dict(self.call("GET", ref.path + "/environment"))

    def files(self, ref: StackRef) -> dict[str, Any]:
        return dict(self.call("GET", ref.path + "/files"))

    def outputs(self, ref: StackRef) -> list[dict[str, Any]]:
        return list(self.call("GET", ref.path + "/outputs")["outputs"])

    def output(self, ref: StackRef, key: str) -> dict[str, Any]:
        return dict(self.call("GET", f"{ref.path}/outputs/{segment(key)}")["output"])

    # -- resources --------------------------------------------------------------------
    def resources(self, ref: StackRef, params: Query | None = None) -> list[dict[str, Any]]:
        return list(self.call("GET", ref.path + "/resources", params=params)["resources"])

    def resource(self, ref: StackRef, name: str, *, with_attr: Sequence[str] = ()
                 ) -> dict[str, Any]:
        params = [("with_attr", a) for a in with_attr] or None
        return dict(self.call("GET", f"{ref.path}/resources/{segment(name)}",
                              params=params)["resource"])

    def resource_metadata(self, ref: StackRef, name: str) -> dict[str, Any]:
        return dict(self.call("GET", f"{ref.path}/resources/{segment(name)}/metadata")
                    ["metadata"])

    def signal(self, ref: StackRef, name: str, data: Mapping[str, Any] | None) -> None:
        """Signal a resource; no data is sent as ``null``, as heatclient does."""
        self.request("POST", f"{ref.path}/resources/{segment(name)}/signal",
                     body=dict(data) if data is not None else None)

    def mark_unhealthy(self, ref: StackRef, name: str, unhealthy: bool, reason: str) -> None:
        self.request("PATCH", f"{ref.path}/resources/{segment(name)}",
                     body={"mark_unhealthy": unhealthy, "resource_status_reason": reason})

    # -- events -----------------------------------------------------------------------
    def events(self, ref: StackRef, params: Query | None = None, *,
               resource: str | None = None) -> list[dict[str, Any]]:
        path = ref.path + (f"/resources/{segment(resource)}" if resource else "") + "/events"
        return list(self.call("GET", path, params=params)["events"])

    def event(self, ref: StackRef, resource: str, event_id: str) -> dict[str, Any]:
        path = f"{ref.path}/resources/{segment(resource)}/events/{segment(event_id)}"
        return dict(self.call("GET", path)["event"])


def api_error(resp: httpx.Response, request: str = "") -> ApiError:
    """Heat's fault body as one message; 401 and 403 also say what to check.

    A 404 or 405 from the routing itself (``HTTPNotFound``, not an engine's
    ``EntityNotFound``) means the server has no such route: the message then
    names the request, since "The resource could not be found." alone
    does not say which.
    """
    message, error_type = _fault(resp)
    if resp.status_code in (404, 405) and error_type.startswith("HTTP") and request:
        message = f"{message.rstrip('.')}: {request}"
    elif resp.status_code == 401:
        message = (f"{message.rstrip('.')}. Check the token: --token, {ENV_TOKEN} or "
                   "`hotplate login`.")
    elif resp.status_code == 403:
        message = (f"{message.rstrip('.')}. Check the token and the project in the URL "
                   "(--url, --project).")
    return ApiError(resp.status_code, message, error_type)


def _fault(resp: httpx.Response) -> tuple[str, str]:
    try:
        body = resp.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        error = body["error"] if isinstance(body.get("error"), dict) else {}
        for text in (error.get("message"), body.get("explanation"), body.get("title"),
                     body.get("detail")):
            if isinstance(text, str) and text:
                return text, str(error.get("type") or "")
    text = resp.text.strip().splitlines()[0][:200] if resp.text.strip() else ""
    return text or f"HTTP {resp.status_code} {resp.reason_phrase}", ""

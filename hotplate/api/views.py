"""Engine-format dicts turned into Heat's API views, as heat-api does.

The engine answers with Heat's engine keys (``stack_identity``,
``stack_action`` + ``stack_status``, ...). The API never shows an identity
dict: it shows ``id`` and absolute ``links``, and joins action and status
into one string (``CREATE_COMPLETE``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from starlette.requests import Request

STACK_SUMMARY_KEYS = (
    "stack_name", "description", "stack_status", "stack_status_reason", "creation_time",
    "updated_time", "deletion_time", "stack_owner", "parent", "stack_user_project_id", "tags",
)
STACK_DETAIL_KEYS = (
    "stack_name", "description", "template_description", "stack_status",
    "stack_status_reason", "creation_time", "updated_time", "deletion_time",
    "notification_topics", "capabilities", "parameters", "outputs", "disable_rollback",
    "timeout_mins", "stack_owner", "parent", "stack_user_project_id", "tags",
)
RESOURCE_HIDDEN_KEYS = frozenset({
    "resource_identity", "stack_identity", "stack_name", "resource_action", "nested_stack_id",
    "metadata",
})
"""Engine keys heat-api leaves out of a resource view (the identities become links;
metadata has its own route)."""
EVENT_SUMMARY_KEYS = (
    "event_time", "resource_name", "resource_status", "resource_status_reason",
    "physical_resource_id",
)


def base_url(request: Request) -> str:
    """``scheme://host:port`` (plus any mount point) as the request reached us."""
    return str(request.base_url).rstrip("/")


def stack_url(request: Request, identity: Mapping[str, Any], path: str = "") -> str:
    return Links(request).stack(identity) + path


_UNRESERVED = re.compile(r"[A-Za-z0-9_.~-]*")
"""What ``quote`` leaves as it is: most names and every uuid, checked for a tenth of
its cost (a listing of 1,000 events quotes 2,000 segments)."""


def _segment(name: str) -> str:
    text = str(name)
    return text if _UNRESERVED.fullmatch(text) else quote(text, safe="")


class Links:
    """The absolute URLs of one request's views: the base read once, each stack's
    URL built once (a listing of 1,000 resources links to one stack 2,000 times)."""

    def __init__(self, request: Request) -> None:
        self._base = f"{base_url(request)}/v1/"
        self._stacks: dict[tuple[str, str, str], str] = {}

    def stack(self, identity: Mapping[str, Any]) -> str:
        key = (str(identity["tenant"]), str(identity["stack_name"]), str(identity["stack_id"]))
        url = self._stacks.get(key)
        if url is None:
            tenant, name, stack_id = key
            url = self._stacks[key] = (f"{self._base}{_segment(tenant)}/stacks/"
                                       f"{_segment(name)}/{_segment(stack_id)}")
        return url


def link(href: str, rel: str = "self") -> dict[str, str]:
    return {"href": href, "rel": rel}


def joined_status(action: Any, status: Any) -> str:
    return f"{action}_{status}" if action else str(status)


def stack_created(request: Request, identity: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": identity["stack_id"], "links": [link(stack_url(request, identity))]}


def stack_view(request: Request, stack: Mapping[str, Any], *, detail: bool,
               include_project: bool = False, links_of: Links | None = None,
               ) -> dict[str, Any]:
    identity = stack["stack_identity"]
    view: dict[str, Any] = {"id": identity["stack_id"],
                            "links": [link((links_of or Links(request)).stack(identity))]}
    for key in STACK_DETAIL_KEYS if detail else STACK_SUMMARY_KEYS:
        if key == "stack_status":
            view[key] = joined_status(stack.get("stack_action"), stack.get("stack_status"))
        elif key == "description" and not detail:
            view[key] = ""
        elif key in stack:
            view[key] = stack[key]
    if include_project:
        view["project"] = identity["tenant"]
    return view


def preview_view(request: Request, stack: Mapping[str, Any]) -> dict[str, Any]:
    """A previewed stack: every key the engine gave, the identity shown as ``id`` and
    ``links`` (the id is null: nothing was stored)."""
    identity = stack["stack_identity"]
    view: dict[str, Any] = {"id": identity["stack_id"],
                            "links": [link(stack_url(request, identity))]}
    view.update((k, v) for k, v in stack.items() if k != "stack_identity")
    return view


def resource_view(request: Request, res: Mapping[str, Any], *,
                  links_of: Links | None = None) -> dict[str, Any]:
    """heat-api's resource view: every engine key but the ones it hides.

    The identities become ``links`` (``self``, ``stack``, and ``nested`` for
    a resource that owns a child stack), the name is also
    ``logical_resource_id``, and action and status join. So the detailed
    views (show, ``with_detail`` listings) carry what the engine added:
    ``description`` and ``attributes``. A listing passes one ``links_of``
    for all its views.
    """
    urls = links_of or Links(request)
    stack_href = urls.stack(res["stack_identity"])
    links = [link(f"{stack_href}/resources/{_segment(res['resource_name'])}"),
             link(stack_href, "stack")]
    nested = res.get("nested_stack_id")
    if nested:
        links.append(link(urls.stack(nested), "nested"))
    view: dict[str, Any] = {"links": links, "logical_resource_id": res["resource_name"]}
    view.update([item for item in res.items() if item[0] not in RESOURCE_HIDDEN_KEYS])
    if "resource_status" in view:
        view["resource_status"] = joined_status(res.get("resource_action"),
                                                view["resource_status"])
    return view


def event_view(request: Request, event: Mapping[str, Any], *, detail: bool,
               links_of: Links | None = None) -> dict[str, Any]:
    """heat-api's event view; a listing passes one ``links_of`` for all its views."""
    urls = links_of or Links(request)
    stack_href = urls.stack(event["stack_identity"])
    resource_href = f"{stack_href}/resources/{_segment(event['resource_name'])}"
    links = [
        link(f"{resource_href}/events/{_segment(event['id'])}"),
        link(resource_href, "resource"),
        link(stack_href, "stack"),
    ]
    root = event.get("root_stack_id")
    if root:
        links.append(link(urls.stack(root), "root_stack"))
    view: dict[str, Any] = {"id": event["id"], "links": links,
                            "logical_resource_id": event["resource_name"]}
    for key in EVENT_SUMMARY_KEYS:
        if key == "resource_status":
            view[key] = joined_status(event.get("resource_action"),
                                      event.get("resource_status"))
        elif key in event:
            view[key] = event[key]
    if detail:
        view["resource_type"] = event.get("resource_type")
        view["resource_properties"] = event.get("resource_properties", {})
    return view

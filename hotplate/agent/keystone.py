"""HEAT_SIGNAL from the server: a stack user's token and the API's resource signal URL.

A HEAT_SIGNAL deployment carries its stack user's Keystone credentials
(``deploy_auth_url``, ``deploy_user_id``, ``deploy_password``,
``deploy_project_id``, ``deploy_region_name``) and where it lives
(``deploy_stack_id``, ``deploy_resource_name``). heat-config-notify logs in
with them and calls heatclient's ``resources.signal``; here, with the
standard library only: a password token scoped to the stack user project
(``POST <auth_url>/auth/tokens``), the orchestration endpoint of its catalog
(public interface, the region when one is given), then
``<endpoint>/stacks/<stack>/resources/<resource>/signal``.

The token is asked for at each delivery, never kept: a signal kept for a
later run would otherwise carry an expired one.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

__all__ = ["KEYSTONE_INPUTS", "keystone_target", "signal_target"]

KEYSTONE_INPUTS = {"auth_url": "deploy_auth_url", "user_id": "deploy_user_id",
                   "password": "deploy_password", "project_id": "deploy_project_id",
                   "region_name": "deploy_region_name", "stack_id": "deploy_stack_id",
                   "resource_name": "deploy_resource_name"}
"""What a HEAT_SIGNAL delivery needs, and the deployment input that holds each."""


def keystone_target(inputs: Mapping[str, Any]) -> dict[str, str | None] | None:
    """The HEAT_SIGNAL details of a deployment's inputs; None when one is missing."""
    found = {key: inputs.get(name) for key, name in KEYSTONE_INPUTS.items()}
    if any(not found[key] for key in KEYSTONE_INPUTS if key != "region_name"):
        return None
    return {key: str(value) if value is not None else None for key, value in found.items()}


def _token(target: Mapping[str, str | None], timeout: float) -> tuple[str, list[Any]]:
    body = {"auth": {
        "identity": {"methods": ["password"], "password": {"user": {
            "id": target["user_id"], "password": target["password"]}}},
        "scope": {"project": {"id": target["project_id"]}}}}
    url = f"{str(target['auth_url']).rstrip('/')}/auth/tokens"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        token = answer.headers["X-Subject-Token"]
        catalog = json.loads(answer.read()).get("token", {}).get("catalog") or []
    return str(token), list(catalog)


def _endpoint(catalog: list[Any], region: str | None) -> str:
    for service in catalog:
        if service.get("type") != "orchestration":
            continue
        for endpoint in service.get("endpoints") or []:
            if endpoint.get("interface") == "public" and (
                    not region or endpoint.get("region_id", endpoint.get("region")) == region):
                return str(endpoint["url"]).rstrip("/")
    raise LookupError("no public orchestration endpoint in the stack user's catalog"
                      + (f" in region {region}" if region else ""))


def signal_target(target: Mapping[str, str | None], timeout: float) -> tuple[str, str]:
    """(signal URL, token) for one delivery.

    Raises:
        urllib.error.HTTPError: Keystone refused the login.
        urllib.error.URLError, OSError: Keystone could not be reached.
        LookupError: the catalog has no orchestration endpoint.
    """
    token, catalog = _token(target, timeout)
    base = _endpoint(catalog, target.get("region_name"))
    stack = "/".join(quote(part, safe="") for part in str(target["stack_id"]).split("/"))
    url = (f"{base}/stacks/{stack}/resources/"
           f"{quote(str(target['resource_name']), safe='')}/signal")
    return url, token

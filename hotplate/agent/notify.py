"""Signalling a deployment's outcome back through its transport.

=================  ==============================================================
deploy_signal_     what is sent
transport
=================  ==============================================================
CFN_SIGNAL         the JSON, ``deploy_signal_verb`` (POST) to the pre-signed
                   ``deploy_signal_id`` URL
TOKEN_SIGNAL       the same, with the ``deploy_auth_token`` input as X-Auth-Token
TEMP_URL_SIGNAL    the same (verb PUT): the URL carries its own signature
HEAT_SIGNAL        the JSON, POST to the API's resource signal, with a token of
                   the deployment's stack user (``keystone.py``)
NO_SIGNAL          nothing
ZAQAR_SIGNAL       nothing: it needs Zaqar (logged)
(none given)       as heat-config-notify: the URL if ``deploy_signal_id`` is there
=================  ==============================================================

A delivery either succeeds (2xx), is refused for good (another 4xx: sending
it again would be refused again) or may succeed later (no connection, a
timeout, 408, 429 or a 5xx): the caller keeps that one and sends it again.
"""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from hotplate.agent.keystone import keystone_target, signal_target
from hotplate.agent.metadata import inputs_of

__all__ = ["Delivery", "MAX_RESPONSE_SIZE", "TOKEN_INPUT", "deliver", "signal_request", "trim"]

LOG = logging.getLogger("hotplate.agent")

MAX_RESPONSE_SIZE = 950000
"""heat-config-notify's bound on a signal body (Heat's max_json_body_size is 1 MiB)."""

TOKEN_INPUT = "deploy_auth_token"
"""The input holding a TOKEN_SIGNAL deployment's API token."""

_SIGNALLED_BY_URL = ("CFN_SIGNAL", "TOKEN_SIGNAL", "TEMP_URL_SIGNAL")
_NEEDS_ZAQAR = ("ZAQAR_SIGNAL",)
_RETRIED_STATUSES = (408, 429)


class Delivery(StrEnum):
    """How one attempt to deliver a signal ended."""

    DELIVERED = "delivered"
    REFUSED = "refused"
    RETRY = "retry"


def trim(response: dict[str, Any]) -> str:
    """The signal body as JSON, ``deploy_stdout`` and ``deploy_stderr`` cut from
    the left (their ends matter most), each in proportion to its size, until it
    fits MAX_RESPONSE_SIZE, as heat-config-notify trims them."""
    trimmed = dict(response)
    text = json.dumps(trimmed, ensure_ascii=True)
    keys = [k for k in ("deploy_stdout", "deploy_stderr") if isinstance(trimmed.get(k), str)]
    for _ in range(8):  # escapes weigh unevenly: a second pass takes what is left over
        excess = len(text) - MAX_RESPONSE_SIZE
        if excess <= 0 or not any(trimmed[k] for k in keys):
            break
        sizes = {k: len(trimmed[k]) for k in keys}
        whole = sum(sizes.values())
        for key in keys:
            cut = -(-excess * sizes[key] // whole)  # rounded up: the cuts cover the excess
            trimmed[key] = trimmed[key][cut:]
        text = json.dumps(trimmed, ensure_ascii=True)
    return text


def signal_request(deployment: Mapping[str, Any],
                   signal_data: dict[str, Any]) -> dict[str, Any] | None:
    """The HTTP request that signals ``signal_data`` for ``deployment``
    (url, verb, headers, body), or None when its transport sends nothing."""
    inputs = inputs_of(deployment)
    transport = inputs.get("deploy_signal_transport")
    name = deployment.get("name") or deployment.get("id")
    if transport in _NEEDS_ZAQAR:
        LOG.error("deployment %s: signal_transport %s needs Zaqar; nothing signalled",
                  name, transport)
        return None
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if transport == "HEAT_SIGNAL":
        target = keystone_target(inputs)
        if target is None:
            LOG.error("deployment %s: HEAT_SIGNAL without its deploy_auth_url, "
                      "deploy_user_id, deploy_password, deploy_project_id, deploy_stack_id "
                      "and deploy_resource_name inputs; nothing signalled", name)
            return None
        return {"deployment": str(deployment.get("id")), "name": name, "url": None,
                "keystone": target, "verb": "POST", "headers": headers,
                "body": trim(signal_data)}
    url = inputs.get("deploy_signal_id")
    if transport not in (*_SIGNALLED_BY_URL, None) or not url:
        if transport not in ("NO_SIGNAL", None):
            LOG.error("deployment %s: signal transport %s without a deploy_signal_id; "
                      "nothing signalled", name, transport)
        return None
    if transport == "TOKEN_SIGNAL":
        token = inputs.get(TOKEN_INPUT)
        if not token:
            LOG.error("deployment %s: TOKEN_SIGNAL without a %s input; nothing signalled",
                      name, TOKEN_INPUT)
            return None
        headers["X-Auth-Token"] = str(token)
    verb = str(inputs.get("deploy_signal_verb") or "POST").upper()
    return {"deployment": str(deployment.get("id")), "name": name, "url": str(url),
            "verb": verb, "headers": headers, "body": trim(signal_data)}


def _attempt(request: Mapping[str, Any], timeout: float) -> tuple[Delivery, str]:
    url, headers = request["url"], dict(request["headers"])
    try:
        if request.get("keystone"):  # HEAT_SIGNAL: a fresh token, the catalog's URL
            url, headers["X-Auth-Token"] = signal_target(request["keystone"], timeout)
        http = urllib.request.Request(url, data=str(request["body"]).encode(),
                                      method=request["verb"], headers=headers)
        with urllib.request.urlopen(http, timeout=timeout) as answer:
            return Delivery.DELIVERED, f"{answer.status}"
    except urllib.error.HTTPError as exc:
        exc.close()
        if exc.code >= 500 or exc.code in _RETRIED_STATUSES:
            return Delivery.RETRY, f"{exc.code} {exc.reason}"
        return Delivery.REFUSED, f"{exc.code} {exc.reason}"
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        return Delivery.RETRY, str(reason)
    except LookupError as exc:  # the catalog may gain its endpoint: try again later
        return Delivery.RETRY, str(exc)


def deliver(request: Mapping[str, Any], *, retries: int, timeout: float,
            backoff: float = 0.5) -> Delivery:
    """Send the signal, trying ``retries`` more times (backoff doubling) while
    the failure may pass; logs each outcome."""
    delay = backoff
    for attempt in range(retries + 1):
        outcome, detail = _attempt(request, timeout)
        if outcome is Delivery.DELIVERED:
            LOG.info("deployment %s: signalled (%s %s)", request.get("name"),
                     request["verb"], detail)
            return outcome
        if outcome is Delivery.REFUSED:
            LOG.error("deployment %s: signal refused (%s); not sent again",
                      request.get("name"), detail)
            return outcome
        LOG.warning("deployment %s: signal not delivered (%s)%s", request.get("name"),
                    detail, "; trying again" if attempt < retries else "")
        if attempt < retries:
            time.sleep(delay)
            delay *= 2
    return Delivery.RETRY

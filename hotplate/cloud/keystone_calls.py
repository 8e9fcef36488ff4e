"""Calls the engine makes to Keystone's v3 API itself: trusts and the stack domain.

openstacksdk has no call for some of what Heat asks of Keystone (a trust's
impersonation with role ids, a user's ``options``, EC2 credentials by blob),
so these go as plain JSON requests on a keystoneauth session, each answer
checked here: 404 is ``KeystoneNotFound``, 401 ``KeystoneUnauthorized``, any
other refusal ``KeystoneRefused`` (with Keystone's own message), and a
transient failure is retried as the client layer retries any call.

Keystone's URL: the request's (``auth_url`` in Heat's context, what
``[keystone_authtoken] www_authenticate_uri`` says), else ``[clients_keystone]
auth_uri``, else ``[trustee] auth_url``, always as its ``/v3`` root.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import tenacity

from hotplate.cloud.errors import CloudError, CloudTransient
from hotplate.cloud.settings import CloudSettings

__all__ = ["KeystoneNotFound", "KeystoneRefused", "KeystoneUnauthorized", "keystone_v3",
           "request"]

LOG = logging.getLogger(__name__)


class KeystoneRefused(CloudError):
    """Keystone answered a call with an error; ``status`` and Keystone's message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message, status)


class KeystoneNotFound(KeystoneRefused):
    pass


class KeystoneUnauthorized(KeystoneRefused):
    pass


def keystone_v3(settings: CloudSettings, request_url: str | None = None) -> str | None:
    """Keystone's v3 root: the request's URL, else the configured ones; None: unknown."""
    url = request_url or settings.keystone_url or settings.trustee.auth_url
    if not url:
        return None
    trimmed = url.rstrip("/")
    if trimmed.endswith("/v2.0"):
        trimmed = trimmed[: -len("/v2.0")]
    return trimmed if trimmed.endswith("/v3") else f"{trimmed}/v3"


def request(session: Any, method: str, url: str, *, json: Any = None,
            retries: int = 2, headers: Mapping[str, str] | None = None,
            secret: bool = False) -> Any:
    """``method url`` on a keystoneauth session; the JSON answer (None when empty).
    ``secret``: the request or its answer carries a password or a key, so keystoneauth
    does not log it, even at debug level.

    Raises:
        KeystoneNotFound, KeystoneUnauthorized, KeystoneRefused: Keystone said no.
        CloudTransient: Keystone could not be reached, after ``retries`` more tries.
    """
    retrying = tenacity.Retrying(
        stop=tenacity.stop_after_attempt(retries + 1),
        wait=tenacity.wait_exponential(multiplier=0.5, max=4) + tenacity.wait_random(0, 0.5),
        retry=tenacity.retry_if_exception_type(CloudTransient), reraise=True)
    return retrying(_once, session, method, url, json, headers, not secret)


def _once(session: Any, method: str, url: str, body: Any,
          headers: Mapping[str, str] | None, log: bool) -> Any:
    from keystoneauth1 import exceptions as ks_exc

    try:
        resp = session.request(url, method, json=body, raise_exc=False,
                               headers=dict(headers or {}), log=log)
    except ks_exc.ConnectionError as exc:
        raise CloudTransient(str(exc)) from exc
    except ks_exc.HttpError as exc:  # the session's own authentication was refused
        status = int(exc.http_status or 401)
        if status >= 500:
            raise CloudTransient(str(exc)) from exc
        raise _refusal(status, str(exc)) from exc
    if resp.status_code >= 500:
        raise CloudTransient(f"Keystone answered {resp.status_code} to {method} {url}")
    if resp.status_code >= 400:
        message = _message(resp)
        LOG.debug("Keystone refused %s %s: %s %s", method, url, resp.status_code, message)
        raise _refusal(resp.status_code, message)
    if not resp.content:
        return None
    return resp.json()


def _refusal(status: int, message: str) -> KeystoneRefused:
    if status == 404:
        return KeystoneNotFound(status, message)
    if status == 401:
        return KeystoneUnauthorized(status, message)
    return KeystoneRefused(status, message)


def _message(resp: Any) -> str:
    try:
        error = resp.json().get("error") or {}
        return str(error.get("message") or resp.text)
    except ValueError:
        return str(resp.text)

"""Keystone tokens validated in the API, by keystonemiddleware's ``auth_token``.

heat-api runs ``auth_token`` as a WSGI filter. hotplate's API is ASGI, so
it runs the same filter, configured from the same ``[keystone_authtoken]``
section, on a small WSGI request made of the ASGI request's method, path and
headers, in a worker thread (the filter blocks while it asks Keystone). The
filter does everything it does in front of heat-api: it drops identity
headers the caller sent, looks the token up in its cache (memcached when
``memcached_servers`` is set, else a cache inside the process, for
``token_cache_time`` seconds), asks Keystone otherwise (``GET
/v3/auth/tokens`` with the service user's token), refuses expired tokens, and
answers a refused request itself: 401 with its JSON body and
``WWW-Authenticate: Keystone uri="..."``, or 503 when Keystone cannot be
reached. hotplate passes such an answer on unchanged, as heat-api does.

A request the filter lets through carries keystonemiddleware's view of the
token (``keystone.token_auth``: the user's AccessInfo; ``keystone.token_info``:
Keystone's token body, with the service catalog); ``KeystoneCaller`` keeps
what Heat's request context takes from it.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from oslo_config import cfg

AUTHTOKEN_GROUP = "keystone_authtoken"


@dataclass(frozen=True)
class KeystoneCaller:
    """Who a validated Keystone token says the caller is, as Heat's context keeps it."""

    auth_token: str = field(repr=False)
    token_info: Mapping[str, Any] = field(repr=False)
    user_id: str | None
    username: str | None
    user_domain_id: str | None
    user_domain_name: str | None
    project_id: str | None
    project_name: str | None
    project_domain_id: str | None
    project_domain_name: str | None
    domain_id: str | None
    roles: tuple[str, ...]
    is_admin_project: bool
    system_scope: str | None = None


@dataclass(frozen=True)
class Refusal:
    """The filter's own answer to a request it refused (401, or 503)."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes


class KeystoneTokens:
    """Validates the ``X-Auth-Token`` of a request with keystonemiddleware's ``auth_token``.

    ``conf`` is an oslo.config object holding ``[keystone_authtoken]`` (the
    filter registers its options on it); ``protocol`` is the filter class
    (a subclass in tests). Thread-safe: the filter keeps no per-request state.
    """

    def __init__(self, conf: cfg.ConfigOpts, *, protocol: Any = None) -> None:
        if protocol is None:
            from keystonemiddleware.auth_token import AuthProtocol

            protocol = AuthProtocol
        self._filter = protocol(_through, {"oslo_config_config": conf})
        self.auth_url: str | None = _auth_url(conf)

    def validate(self, method: str, path: str,
                 headers: Iterable[tuple[str, str]]) -> KeystoneCaller | Refusal:
        """The caller of a request with these headers, or the filter's refusal.

        Blocks while Keystone answers: call it from a worker thread.
        """
        environ = _environ(method, path, headers)
        answer: dict[str, Any] = {}

        def start_response(status: str, response_headers: list[tuple[str, str]],
                           exc_info: Any = None) -> Any:
            answer["status"] = int(status.split(" ", 1)[0])
            answer["headers"] = tuple(response_headers)
            return lambda data: None

        body = b"".join(self._filter(environ, start_response))
        if environ.get(_PASSED) and environ.get("HTTP_X_IDENTITY_STATUS") == "Confirmed":
            return _caller(environ)
        return Refusal(answer.get("status", 401), answer.get("headers", ()), body)


_PASSED = "hotplate.keystone.passed"


def _through(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    """The application behind the filter: notes that the request got through."""
    environ[_PASSED] = True
    start_response("204 No Content", [])
    return []


def _environ(method: str, path: str, headers: Iterable[tuple[str, str]]) -> dict[str, Any]:
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method, "PATH_INFO": path, "SCRIPT_NAME": "", "QUERY_STRING": "",
        "SERVER_NAME": "hotplate", "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(), "wsgi.errors": io.StringIO(),
        "wsgi.version": (1, 0), "wsgi.multithread": True, "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    for name, value in headers:
        key = name.upper().replace("-", "_")
        if key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            continue  # the body stays with the ASGI request
        environ[f"HTTP_{key}"] = value
    return environ


def _caller(environ: Mapping[str, Any]) -> KeystoneCaller:
    user = environ["keystone.token_auth"].user  # keystoneauth's AccessInfo
    return KeystoneCaller(
        auth_token=str(environ.get("HTTP_X_AUTH_TOKEN", "")).strip(),
        token_info=environ.get("keystone.token_info") or {},
        user_id=user.user_id,
        username=user.username,
        user_domain_id=user.user_domain_id,
        user_domain_name=user.user_domain_name,
        project_id=user.project_id,
        project_name=user.project_name,
        project_domain_id=user.project_domain_id,
        project_domain_name=user.project_domain_name,
        domain_id=user.domain_id,
        roles=tuple(user.role_names or ()),
        is_admin_project=bool(user.is_admin_project),
        system_scope="all" if user.system_scoped else None,
    )


def _auth_url(conf: cfg.ConfigOpts) -> str | None:
    """The Keystone URL users authenticate at, as Heat puts it in the context
    (``[keystone_authtoken] www_authenticate_uri``, else the plugin's ``auth_url``)."""
    group = getattr(conf, AUTHTOKEN_GROUP)
    for name in ("www_authenticate_uri", "auth_url"):
        try:
            value = group[name]
        except (cfg.NoSuchOptError, KeyError):
            continue
        if value:
            return str(value)
    return None

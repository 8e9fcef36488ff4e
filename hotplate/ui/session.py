"""The web view's session: a cookie that holds the caller's token, sealed with Fernet.

The cookie ``hotplate_ui`` carries ``{"t": token, "e": expiry, "c": csrf}``
encrypted and authenticated with a key every API process shares (``[ui]
session_key``, else one derived from ``[DEFAULT] auth_encryption_key``, else a
random key of this process). Nothing about the caller is trusted from the
cookie but the token: each request checks the token again exactly as ``/v1``
checks an ``X-Auth-Token``, so a revoked token ends the session at once. The
expiry only bounds how long a browser keeps a token it may no longer use.

The csrf value is random per session; a request authenticated by the cookie
that changes anything must echo it in ``X-CSRF-Token`` (double submit: a page
of another origin can make the browser send the cookie, never read the value).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import secrets
import time
from dataclasses import dataclass

from cryptography.fernet import Fernet, InvalidToken

LOG = logging.getLogger(__name__)

COOKIE = "hotplate_ui"
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
DEFAULT_LIFETIME = 12 * 3600
"""Seconds a session lasts at most when its token never expires ([ui] session_lifetime)."""
_CONTEXT = b"hotplate web view session key v1\0"


@dataclass(frozen=True, slots=True)
class Session:
    """What the cookie holds: the token (None in noauth mode), when the cookie
    stops being accepted (seconds since the epoch; None: never), the csrf value."""

    token: str | None
    expires_at: float | None
    csrf: str

    def expired(self, now: float | None = None) -> bool:
        return self.expires_at is not None and self.expires_at <= (now or time.time())

    def max_age(self, now: float | None = None) -> int | None:
        """The cookie's Max-Age: whole seconds until it expires (None: a browser session)."""
        if self.expires_at is None:
            return None
        return max(0, int(self.expires_at - (now or time.time())))

    def csrf_matches(self, sent: str | None) -> bool:
        return bool(sent) and hmac.compare_digest(self.csrf.encode(), (sent or "").encode())


def new_csrf() -> str:
    return secrets.token_urlsafe(24)


def derive_key(secret: str) -> bytes:
    """A Fernet key made from any secret string: the session key is never the
    secret itself, so a cookie's key says nothing about the database's."""
    digest = hashlib.sha256(_CONTEXT + secret.encode("utf-8")).digest()
    return base64.urlsafe_b64encode(digest)


class SessionCodec:
    """Seals and opens session cookies with one Fernet key."""

    def __init__(self, key: bytes) -> None:
        self._fernet = Fernet(key)

    @classmethod
    def from_settings(cls, session_key: str | None, auth_encryption_key: str | None
                      ) -> SessionCodec:
        """The codec of ``[ui] session_key``, else of ``auth_encryption_key``, else of a
        random key: then only this process accepts its cookies (said in a warning)."""
        secret = session_key or auth_encryption_key
        if not secret:
            LOG.warning("[ui] session_key and [DEFAULT] auth_encryption_key are unset: the "
                        "web view's sessions are sealed with a key of this process only, "
                        "so other API processes refuse them and a restart ends them")
            secret = secrets.token_urlsafe(32)
        return cls(derive_key(secret))

    def seal(self, session: Session) -> str:
        body = {"t": session.token, "e": session.expires_at, "c": session.csrf}
        return self._fernet.encrypt(json.dumps(body, separators=(",", ":")).encode()).decode()

    def open(self, value: str | None) -> Session | None:
        """The session a cookie holds; None when it is missing, tampered with,
        sealed with another key, malformed or expired."""
        if not value:
            return None
        try:
            body = json.loads(self._fernet.decrypt(value.encode("ascii")))
            session = Session(token=body["t"], expires_at=body["e"], csrf=str(body["c"]))
        except (InvalidToken, UnicodeError, ValueError, KeyError, TypeError):
            return None
        if session.token is not None and not isinstance(session.token, str):
            return None
        return None if session.expired() else session


def cookie_header(value: str, *, max_age: int | None, secure: bool) -> str:
    """The ``Set-Cookie`` value: HttpOnly, SameSite=Strict, the whole site's path."""
    parts = [f"{COOKIE}={value}", "HttpOnly", "SameSite=Strict", "Path=/"]
    if max_age is not None:
        parts.append(f"Max-Age={max_age}")
    if secure:
        parts.append("Secure")
    return "; ".join(parts)


def clearing_cookie_header(*, secure: bool) -> str:
    return cookie_header("", max_age=0, secure=secure)

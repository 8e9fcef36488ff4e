"""The headers every ``/ui`` response carries, and the gate that sends ``/ui`` to the web view.

The policy allows the page's own script and style files and nothing else: no
inline script or style, no other origin, no framing, no ``<base>``; forms post
only here. ``Cache-Control: no-store`` keeps sessions and pages out of caches;
static files set their own caching (hashed names are immutable).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'")

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)
_NO_STORE = (b"cache-control", b"no-store")
_REPLACED = {name for name, _ in SECURITY_HEADERS}


def is_ui_path(path: str) -> bool:
    return path == "/ui" or path.startswith("/ui/")


def with_security_headers(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """``headers`` with the security headers set (replacing any), and ``no-store``
    unless the response chose its own caching."""
    kept = [(k, v) for k, v in headers if k.lower() not in _REPLACED]
    if not any(k.lower() == b"cache-control" for k, _ in kept):
        kept.append(_NO_STORE)
    return kept + list(SECURITY_HEADERS)


class UiGate:
    """ASGI middleware: requests under ``/ui`` go to the web view's app, with the
    security headers on every response (errors too); everything else goes on
    untouched, so ``/v1`` pays one string comparison."""

    def __init__(self, app: ASGIApp, ui: ASGIApp) -> None:
        self.app = app
        self.ui = ui

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_ui_path(scope["path"]):
            await self.app(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": with_security_headers(
                    list(message.get("headers", [])))}
            await send(message)

        await self.ui(scope, receive, send_secured)

"""The built-in ``webhook`` event sink: each event POSTed as JSON to a URL.

In an environment::

    event_sinks:
      - type: webhook
        url: https://example.com/heat-events
        headers: {Authorization: Bearer ...}     # optional

The body is Heat's event body (``event.as_dict()``: ``id``, ``timestamp``,
``type: os.heat.event``, ``version`` and the ``payload``); ``Content-Type``
is ``application/json`` and the event's uuid is repeated in the
``Idempotency-Key`` header. Delivery is at least once, so a receiver
de-duplicates on that id. The sink is ``durable``: its events go through the
outbox (db/outbox.py), so they survive an engine restart and are retried
with exponential backoff (sink_delivery.py); any 2xx answer is delivery.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

__all__ = ["TIMEOUT_SECS", "WebhookSink"]

TIMEOUT_SECS = 10.0
"""How long one POST may take before it counts as failed (and is retried)."""


class WebhookError(Exception):
    """The receiver did not take the event."""


class WebhookSink:
    durable = True
    """Its events go through the outbox and are retried until taken."""

    OPTIONS = frozenset({"url", "headers"})

    def __init__(self, url: str, headers: Mapping[str, str] | None = None) -> None:
        self.url = url
        self.headers = dict(headers or {})

    @classmethod
    def problems(cls, options: Mapping[str, Any]) -> list[tuple[str, str]]:
        """What is wrong with a sink's options, as (option, message) pairs."""
        found = [(key, f'unknown option "{key}" of a webhook sink (it takes url, headers)')
                 for key in sorted(set(options) - cls.OPTIONS)]
        url = options.get("url")
        if url is None:
            found.append(("url", "a webhook sink needs a url"))
        elif not isinstance(url, str):
            found.append(("url", "must be a string"))
        else:
            parsed = urllib.parse.urlsplit(url)
            if parsed.scheme not in ("http", "https") or not parsed.netloc:
                found.append(("url", f'"{url}" is not an http or https URL'))
        headers = options.get("headers")
        if headers is not None and not (
                isinstance(headers, Mapping)
                and all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items())):
            found.append(("headers", "must be a mapping of header names to strings"))
        return found

    def consume(self, context: Any, event: Mapping[str, Any]) -> None:
        """POST ``event``; raises WebhookError unless the receiver answers 2xx."""
        data = json.dumps(event).encode()
        headers = {"Content-Type": "application/json", **self.headers}
        if event.get("id"):
            headers.setdefault("Idempotency-Key", str(event["id"]))
        request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECS) as answer:
                status = answer.status
        except urllib.error.HTTPError as exc:
            raise WebhookError(f"{self.url} answered {exc.code}") from None
        except (OSError, ValueError) as exc:
            raise WebhookError(f"{self.url}: {exc}") from None
        if not 200 <= status < 300:
            raise WebhookError(f"{self.url} answered {status}")

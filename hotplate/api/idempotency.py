"""The ``Idempotency-Key`` header: a write a client repeats is done once.

A client that did not get the answer to a write (its connection broke, it
gave up waiting) may send it again with the same key; the engine then
answers what it answered the first time and does nothing twice: a create
repeated after a timeout makes one stack. As in the IETF's
draft-ietf-httpapi-idempotency-key-header and the payment APIs it follows:

- the key is the client's (any 1 to 255 printable ASCII characters; a UUID
  serves), scoped to the URL's project, and kept for ``request_retention``
  (a day by default) after the first request;
- the same key with another request (another route, stack or body) is
  refused ``422 Unprocessable Entity`` (``RequestIdReused``), and nothing is
  done;
- the same key while its first request is still running is answered
  ``409 Conflict`` with ``Retry-After`` (``RequestInProgress``), once the API
  has waited for it within its own call timeout;
- a write without the header gets a request id of its own, so that the API
  may still ask another engine when the first does not answer (api/rpc.py).

The header is read on every route whose engine call changes something
(rpc/requests.py ``WRITES``) and ignored on reads.
"""

from __future__ import annotations

import re
from typing import Any

from starlette.requests import Request

from hotplate.api.faults import bad_request
from hotplate.rpc.requests import WRITES, keyed_request_id

HEADER = "Idempotency-Key"
_KEY = re.compile(r"^[\x20-\x7e]{1,255}$")


def keyed(request: Request, project_id: str, method: str, ctxt: dict[str, Any]) -> None:
    """Give ``ctxt`` the request id of the client's key, when ``method`` writes and the
    request carries one; a malformed key is a 400."""
    key = request.headers.get(HEADER)
    if key is None or method not in WRITES:
        return
    key = key.strip()
    if not _KEY.match(key):
        raise bad_request(f"{HEADER} must be 1 to 255 printable ASCII characters")
    ctxt["request_id"] = keyed_request_id(project_id, key)

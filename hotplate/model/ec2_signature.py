"""EC2-style request signatures (AWS SigV2 and SigV4), signed and checked. Pure.

The CFN-compatible API authenticates an in-instance agent by the signature
of its request, made with the stack user's secret key:

- **SigV2** (``SignatureVersion=2`` in the query): what Heat's pre-signed
  signal URLs carry (cfn-signal and curl send them as given) and what
  os-collect-config's ``cfn`` source signs. String to sign::

      <VERB>\\n<host[:port]>\\n<path, unquoted>\\n<canonical query>

  where the canonical query is every parameter but ``Signature``, sorted by
  key, keys and values percent-encoded (only ``-_~`` and alphanumerics kept);
  HMAC-SHA256 (``SignatureMethod=HmacSHA256``) or HMAC-SHA1, base64.
- **SigV4** (``Authorization: AWS4-HMAC-SHA256 Credential=...`` or the
  ``X-Amz-*`` query form): AWS's canonical request, string to sign and
  derived key.

Checking is lenient where signers are known to differ and strict where it
matters: the host is tried with and without its port (some clients sign
without it), a SigV4 POST is tried with and without its query string
(keystone's signer leaves it out), and digests are compared in constant time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from urllib.parse import quote

__all__ = [
    "SignedRequest",
    "access_key_id",
    "canonical_query",
    "sign_v2",
    "sign_v4",
    "verify",
]

V4_ALGORITHM = "AWS4-HMAC-SHA256"
UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"


@dataclass(frozen=True)
class SignedRequest:
    """What a signature covers: the request as the server received it."""

    verb: str
    host: str
    """The Host header as sent (``host`` or ``host:port``)."""
    path: str
    """The path, percent-decoded (as WSGI hands it over)."""
    params: Mapping[str, str]
    """The query parameters, decoded; ``Signature`` included if sent."""
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""
    raw_path: str | None = None
    """The path as sent, still percent-encoded, when known (SigV4 encodes it again)."""

    def header(self, name: str) -> str | None:
        wanted = name.lower()
        for key, value in self.headers.items():
            if key.lower() == wanted:
                return value
        return None


def canonical_query(params: Mapping[str, str], *, exclude: str = "Signature") -> str:
    """Sorted ``key=value`` pairs joined by ``&``, each side percent-encoded."""
    pairs = [f"{quote(key, safe='-_~')}={quote(value, safe='-_~')}"
             for key, value in sorted(params.items()) if key != exclude]
    return "&".join(pairs)


def sign_v2(secret: str, verb: str, host: str, path: str, params: Mapping[str, str]) -> str:
    """The SigV2 signature of a request (``params`` without ``Signature``)."""
    method = params.get("SignatureMethod", "HmacSHA256")
    digest = hashlib.sha1 if method == "HmacSHA1" else hashlib.sha256
    text = f"{verb.upper()}\n{host}\n{path}\n{canonical_query(params)}"
    mac = hmac.new(secret.encode(), text.encode(), digest).digest()
    return base64.b64encode(mac).decode()


def _v4_key(secret: str, date: str, region: str, service: str) -> bytes:
    key = f"AWS4{secret}".encode()
    for part in (date, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key


def _v4_auth(request: SignedRequest) -> dict[str, str] | None:
    """Credential, SignedHeaders, Signature and date of a SigV4 request; None if not one."""
    header = request.header("Authorization")
    if header is not None and header.startswith(V4_ALGORITHM):
        fields: dict[str, str] = {}
        for part in header[len(V4_ALGORITHM):].split(","):
            key, _, value = part.strip().partition("=")
            fields[key] = value
        date = request.header("X-Amz-Date") or request.params.get("X-Amz-Date", "")
        return {**fields, "Date": date}
    if request.params.get("X-Amz-Algorithm") == V4_ALGORITHM:
        return {name: request.params.get(f"X-Amz-{name}", "")
                for name in ("Credential", "SignedHeaders", "Signature", "Date")}
    return None


def sign_v4(secret: str, request: SignedRequest, *, credential: str, signed_headers: str,
            date: str, payload_hash: str, with_query: bool = True,
            canonical_uri: str | None = None) -> str:
    """The SigV4 signature (hex) of ``request`` under ``credential``
    (``<key id>/<yyyymmdd>/<region>/<service>/aws4_request``).

    ``canonical_uri`` defaults to the encoded raw path (AWS's rule: the path as
    sent, encoded once more), or the decoded path encoded once.
    """
    if canonical_uri is None:
        canonical_uri = _canonical_uris(request)[0]
    lowered = {key.lower().strip(): " ".join(value.split())
               for key, value in request.headers.items()}
    lowered.setdefault("host", request.host)
    names = signed_headers.split(";")
    headers = "".join(f"{name}:{lowered.get(name, '')}\n" for name in names)
    query = canonical_query(request.params, exclude="X-Amz-Signature") if with_query else ""
    canonical = "\n".join((request.verb.upper(), canonical_uri, query,
                           headers, signed_headers, payload_hash))
    scope = credential.split("/", 1)[1] if "/" in credential else ""
    to_sign = "\n".join((V4_ALGORITHM, date, scope,
                         hashlib.sha256(canonical.encode()).hexdigest()))
    parts = scope.split("/")
    if len(parts) != 4:
        return ""
    key = _v4_key(secret, parts[0], parts[1], parts[2])
    return hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()


def _canonical_uris(request: SignedRequest) -> list[str]:
    uris = [quote(request.raw_path, safe="/~")] if request.raw_path is not None else []
    once = quote(request.path, safe="/~")
    return [*uris, once] if once not in uris else uris


def access_key_id(request: SignedRequest) -> str | None:
    """The access key a request claims to be signed with; None if unsigned."""
    v4 = _v4_auth(request)
    if v4 is not None:
        return v4.get("Credential", "").split("/", 1)[0] or None
    return request.params.get("AWSAccessKeyId") or None


def _hosts(host: str) -> Iterator[str]:
    yield host
    if ":" in host and not host.endswith("]"):
        yield host.rsplit(":", 1)[0]


def verify(secret: str, request: SignedRequest) -> bool:
    """Whether ``request`` carries a valid SigV2 or SigV4 signature by ``secret``."""
    v4 = _v4_auth(request)
    if v4 is not None:
        return _verify_v4(secret, request, v4)
    given = request.params.get("Signature")
    if not given or request.params.get("SignatureVersion") != "2":
        return False
    return any(hmac.compare_digest(sign_v2(secret, request.verb, host, request.path,
                                           request.params).encode(), given.encode())
               for host in _hosts(request.host))


def _verify_v4(secret: str, request: SignedRequest, auth: Mapping[str, str]) -> bool:
    given, credential = auth.get("Signature", ""), auth.get("Credential", "")
    date = auth.get("Date", "")
    parts = credential.split("/")
    if not given or len(parts) != 5 or not date.startswith(parts[1]):
        return False
    hashes = {hashlib.sha256(request.body).hexdigest(), UNSIGNED_PAYLOAD}
    declared = request.header("X-Amz-Content-SHA256")
    if declared:
        hashes = {declared} if declared != UNSIGNED_PAYLOAD else {UNSIGNED_PAYLOAD}
    queries = (True, False) if request.verb.upper() == "POST" else (True,)
    for payload in sorted(hashes):
        for with_query in queries:
            for uri in _canonical_uris(request):
                mine = sign_v4(secret, request, credential=credential,
                               signed_headers=auth.get("SignedHeaders", ""), date=date,
                               payload_hash=payload, with_query=with_query, canonical_uri=uri)
                if hmac.compare_digest(mine.encode(), given.encode()):
                    return True
    return False

"""Keystone checks an EC2-signed request: ``POST /v3/ec2tokens``, as heat-api-cfn asks it.

In Keystone mode a stack user's secret lives only in Keystone (an ``ec2``
credential), so the CFN API sends what the signature covers (access key,
signature, host, verb, path, parameters, headers, the body's SHA-256) and
Keystone answers with a token of the key's owner when the signature is
good. The call is made as the API's service user (``[keystone_authtoken]``),
as Heat's ``[ec2authtoken]`` makes it.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hotplate.cloud.keystone_calls import KeystoneRefused, request

__all__ = ["Ec2Caller", "Ec2Tokens", "Ec2Refused"]

LOG = logging.getLogger(__name__)


class Ec2Refused(Exception):
    """Keystone did not accept the signature (or the key)."""


@dataclass(frozen=True, slots=True)
class Ec2Caller:
    """Whom Keystone found the signature to be by."""

    user_id: str
    project_id: str
    roles: tuple[str, ...]


class Ec2Tokens:
    """Keystone's ``ec2tokens``, through a session of the service user."""

    def __init__(self, session: Any, keystone_url: str) -> None:
        self._session = session
        self._url = keystone_url.rstrip("/").removesuffix("/v3") + "/v3/ec2tokens"

    def check(self, *, access: str, signature: str, host: str, verb: str, path: str,
              params: Mapping[str, str], headers: Mapping[str, str], body: bytes
              ) -> Ec2Caller:
        """The key's owner, when Keystone accepts the signature.

        Raises:
            Ec2Refused: Keystone refused the key or the signature.
            CloudError: Keystone could not be asked.
        """
        credentials = {"access": access, "signature": signature, "host": host,
                       "verb": verb, "path": path,
                       "params": {k: v for k, v in params.items() if k != "Signature"},
                       "headers": dict(headers),
                       "body_hash": hashlib.sha256(body).hexdigest()}
        try:
            answer = request(self._session, "POST", self._url,
                             json={"credentials": credentials}, secret=True)
        except KeystoneRefused as exc:
            LOG.info("AWS authentication failure: %s", exc)
            raise Ec2Refused(str(exc)) from None
        token = (answer or {}).get("token") or {}
        try:
            return Ec2Caller(str(token["user"]["id"]), str(token["project"]["id"]),
                             tuple(str(r["name"]) for r in token.get("roles") or ()))
        except (KeyError, TypeError):
            raise Ec2Refused("Keystone's answer holds no token") from None

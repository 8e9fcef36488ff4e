"""Heat's rows as hotplate stores them: secrets re-encrypted, documents in our format.

Heat and hotplate store secrets in the same format (``db/crypt.py``), but
rarely with the same key, and hotplate keeps encrypted properties as one
sealed document where Heat flags the row. So every secret is decrypted with
Heat's ``auth_encryption_key`` and encrypted again with ours; parameters and
properties are encrypted here exactly when hotplate's own
``encrypt_parameters_and_properties`` says so, whatever Heat's said.

Everything here is a pure function of the rows given and the two keys.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from hotplate.db.crypt import METHOD, EncryptionKeyError, SecretBox

ENCRYPTED_PARAM_NAMES = "encrypted_param_names"
OLDEST_METHOD = "heat_decrypt"
"""The format of Heat releases before 2016 (AES-CFB), still readable by Heat 27."""


class HeatKey:
    """Heat's ``auth_encryption_key``: what reads the secrets of Heat's database."""

    def __init__(self, key: str, *, source: str) -> None:
        self._key = key
        self._box = SecretBox(key, source=source)

    def decrypt(self, method: str | None, data: str, *, what: str) -> str:
        """The plaintext of a value Heat stored with ``method``.

        Raises:
            EncryptionKeyError: another key encrypted it, or a method Heat 27 no longer
                writes and hotplate does not read.
        """
        if method == OLDEST_METHOD:
            return self._aes_cfb(data, what)
        return self._box.decrypt(method, data, what=what)

    def decrypt_json(self, pair: Any, *, what: str) -> Any:
        if not (isinstance(pair, list | tuple) and len(pair) == 2):
            raise EncryptionKeyError(f"cannot decrypt {what}: not an encrypted value")
        return json.loads(self.decrypt(pair[0], pair[1], what=what))

    def _aes_cfb(self, data: str, what: str) -> str:
        from cryptography.hazmat.decrepit.ciphers.modes import CFB
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

        raw = base64.b64decode(data)
        key = self._key[:32].encode("utf-8")
        try:
            decryptor = Cipher(algorithms.AES(key), CFB(raw[:16])).decryptor()
            return (decryptor.update(raw[16:]) + decryptor.finalize()).decode("utf-8")
        except (ValueError, UnicodeError):
            raise EncryptionKeyError(f"cannot decrypt {what} with Heat's "
                                     "auth_encryption_key") from None


def _reencrypted(value: str | None, method: str | None, heat: HeatKey, ours: SecretBox,
                 *, what: str) -> tuple[str | None, str | None]:
    """``(value, decrypt_method)`` as hotplate stores an encrypted value."""
    if value is None or method is None:
        return value, method
    return ours.encrypt(heat.decrypt(method, value, what=what))[::-1]


def environment(env: Mapping[str, Any], heat: HeatKey, ours: SecretBox, *,
                what: str) -> dict[str, Any]:
    """A stored environment; Heat's encrypted hidden parameters (the text as given,
    encrypted) become ours (the value as JSON, encrypted) or plain text."""
    out = dict(env)
    names = list(out.pop(ENCRYPTED_PARAM_NAMES, None) or ())
    if not names:
        return out
    params = dict(out.get("parameters") or {})
    for name in names:
        value = params.get(name)
        if isinstance(value, list | tuple) and len(value) == 2:
            value = heat.decrypt(value[0], value[1],
                                 what=f"hidden parameter {name!r} of {what}")
        params[name] = ours.encrypt_json(value) if ours.parameters_and_properties else value
    out["parameters"] = params
    if ours.parameters_and_properties:
        out[ENCRYPTED_PARAM_NAMES] = sorted(names)
    return out


def plain_properties(data: Any, encrypted: bool | None, heat: HeatKey, *,
                     what: str) -> dict[str, Any] | None:
    """Heat's properties (or attributes) document in clear: an encrypted one holds a
    ``[method, token]`` of each value's JSON."""
    if data is None:
        return None
    if not encrypted:
        return dict(data)
    return {name: heat.decrypt_json(pair, what=f"{what} ({name!r})")
            for name, pair in data.items()}


def stored_properties(plain: dict[str, Any] | None, ours: SecretBox) -> dict[str, Any] | None:
    """The document as hotplate stores it: sealed when it encrypts properties."""
    if plain is None or not ours.parameters_and_properties or not plain:
        return plain
    return ours.seal(plain)


def user_creds(row: Mapping[str, Any], heat: HeatKey, ours: SecretBox) -> dict[str, Any]:
    """A ``user_creds`` row (without its id): its password or trust id re-encrypted."""
    what = f"the stored credentials {row['id']}"
    method = row.get("decrypt_method")
    password, _ = _reencrypted(row.get("password"), method, heat, ours, what=what)
    trust_id, _ = _reencrypted(row.get("trust_id"), method, heat, ours, what=what)
    secret = row.get("password") is not None or row.get("trust_id") is not None
    new_method = METHOD if method is not None and secret else method
    return {
        "username": row.get("username"), "password": password,
        "region_name": row.get("region_name"), "decrypt_method": new_method,
        "tenant": row.get("tenant"), "auth_url": row.get("auth_url"),
        "tenant_id": row.get("tenant_id"), "trust_id": trust_id,
        "trustor_user_id": row.get("trustor_user_id"),
        "created_at": row["created_at"], "updated_at": row.get("updated_at"),
    }


def resource_data(row: Mapping[str, Any], heat: HeatKey, ours: SecretBox) -> dict[str, Any]:
    """A ``resource_data`` row (without ids): a redacted value re-encrypted."""
    value, method = row.get("value"), row.get("decrypt_method")
    if row.get("redact") and value is not None:
        if method is not None:
            value = heat.decrypt(method, value, what=f"resource data {row['key']!r}")
        method, value = ours.encrypt(value)
    return {"key": row["key"], "value": value, "redact": bool(row.get("redact")),
            "decrypt_method": method if row.get("redact") else None,
            "created_at": row["created_at"], "updated_at": row.get("updated_at")}


def resource_types_in(template: Mapping[str, Any]) -> dict[str, str]:
    """Each resource's type as its template writes it (HOT or CFN)."""
    section = template.get("resources") or template.get("Resources") or {}
    out: dict[str, str] = {}
    if isinstance(section, Mapping):
        for name, body in section.items():
            if isinstance(body, Mapping):
                kind = body.get("type") or body.get("Type")
                if isinstance(kind, str):
                    out[name] = kind
    return out


def current_deps(deps: Any, ids: Mapping[int, int]) -> dict[str, Any] | None:
    """A traversal graph (``{"edges": [[[id, update], [id, update]|null], ...]}``) in our
    resource ids; edges naming a row not brought over are left out."""
    if not isinstance(deps, Mapping) or not isinstance(deps.get("edges"), list):
        return None
    edges: list[Any] = []
    for edge in deps["edges"]:
        try:
            (source, forward), target = edge[0], edge[1]
            mapped_target = None if target is None else [ids[target[0]], target[1]]
            edges.append([[ids[source], forward], mapped_target])
        except (KeyError, TypeError, IndexError, ValueError):
            continue
    return {**deps, "edges": edges}

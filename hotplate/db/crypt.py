"""Secrets at rest: Heat's ``auth_encryption_key`` and the format Heat stores with it.

What the store encrypts, always: stored credentials (``user_creds``: the password
or the trust id), stack users' EC2 secret keys, and resource data a plugin set
with ``redact=True`` (keys, signal tokens, RandomString's value). With
``encrypt_parameters_and_properties``: the values of hidden parameters in a
template's environment and every resource's properties, as Heat does.

The format is Heat's, so a value reads the same in both: the key (32
characters; 16 or 24 are doubled then cut to 32, as Heat reads them) is the
Fernet key itself, base64-encoded; a value is stored as its Fernet token with
the method ``cryptography_decrypt_v1`` beside it (a ``decrypt_method`` column,
or a ``[method, token]`` pair inside JSON).

A value that does not decrypt (another key, or no key of Heat's format) is an
``EncryptionKeyError`` naming the option, never garbage. Each database keeps an
encrypted check value (``auth_key_check``) written with the first key that
used it, so an engine given another key refuses to start rather than writing
secrets nobody else can read (``verify_key``).

Error hierarchy::

    ValueError
     +-- EncryptionKeyError   the key is malformed, or not the database's key
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cryptography.fernet import Fernet

LOG = logging.getLogger(__name__)

OPTION = "[DEFAULT]/auth_encryption_key"
"""How errors name the option (its variable: ``HOTPLATE_AUTH_ENCRYPTION_KEY``)."""
METHOD = "cryptography_decrypt_v1"
"""Heat's name for the format a value is stored in (its ``decrypt_method``)."""
HEAT_DEFAULT_KEY = "notgood but just long enough i t"
"""Heat's default key, the key of a ``SecretBox()`` built without one (tests, library
use). The commands never use it: they use the option or the data directory's key
file."""
KEY_FILE = "auth_encryption_key"
"""The file in the data directory holding the key made when the option is unset."""
SEALED = "__encrypted__"
"""The one key of a JSON document whose values are stored encrypted: resource
properties and attributes with ``encrypt_parameters_and_properties``, as
``{"__encrypted__": {name: [method, token], ...}}`` (Heat marks the same shape with a
column of its own)."""
KEY_LENGTHS = (16, 24, 32)
"""The lengths Heat accepts; 16 and 24 only with a warning."""


class EncryptionKeyError(ValueError):
    """The key is not usable, or does not decrypt what the database holds. One line
    for the user, naming the option; never a secret's value."""


def fernet_key(key: str) -> bytes:
    """The Fernet key of an ``auth_encryption_key``, derived as Heat derives it.

    Raises:
        EncryptionKeyError: a length Heat refuses, or characters that make it more
            than 32 bytes.
    """
    if len(key) not in KEY_LENGTHS:
        raise EncryptionKeyError(f"{OPTION} must be 32 characters, not {len(key)}")
    fixed = (key * 2 if len(key) < 32 else key)[:32].encode("utf-8")
    if len(fixed) != 32:
        raise EncryptionKeyError(f"{OPTION} must be 32 ASCII characters (its characters "
                                 f"take {len(fixed)} bytes)")
    return base64.urlsafe_b64encode(fixed)


def new_key() -> str:
    """A fresh 32-character key (192 random bits)."""
    return secrets.token_urlsafe(24)


def key_file(data_dir: str | Path) -> tuple[str, Path]:
    """The key kept in ``data_dir``, made (mode 0600) the first time it is needed.

    Several processes starting together agree: the file appears whole or not at
    all (written aside, then linked into place; the link fails if another won).

    Raises:
        EncryptionKeyError: the file exists but holds no usable key.
    """
    path = Path(data_dir) / KEY_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        aside = path.with_name(f".{KEY_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w") as out:
                out.write(new_key() + "\n")
            with contextlib.suppress(FileExistsError):
                os.link(aside, path)
        finally:
            aside.unlink()
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        LOG.warning("the key file %s is readable by others (mode %o): make it 0600", path, mode)
    key = path.read_text(encoding="utf-8").strip()
    try:
        fernet_key(key)
    except EncryptionKeyError as exc:
        raise EncryptionKeyError(f"the key file {path}: {exc}") from None
    return key, path


class SecretBox:
    """Encrypts and decrypts with one key; says what the store encrypts.

    ``source`` names where the key came from, for error texts (never the key).
    """

    __slots__ = ("_cipher", "_key", "parameters_and_properties", "source")

    def __init__(self, key: str = HEAT_DEFAULT_KEY, *,
                 encrypt_parameters_and_properties: bool = False,
                 source: str = "Heat's default key") -> None:
        self._key = fernet_key(key)
        self._cipher: Fernet | None = None
        self.parameters_and_properties = encrypt_parameters_and_properties
        """Whether hidden parameters and resource properties are encrypted when written."""
        self.source = source

    def __repr__(self) -> str:  # never the key
        return f"SecretBox(source={self.source!r})"

    @property
    def _fernet(self) -> Fernet:
        # Made (and cryptography imported, ~7 MB) only when a secret is first touched:
        # an engine converging stacks without secrets never pays for it.
        if self._cipher is None:
            from cryptography.fernet import Fernet

            self._cipher = Fernet(self._key)
        return self._cipher

    def encrypt(self, value: str) -> tuple[str, str]:
        """``(decrypt_method, token)`` of ``value``."""
        return METHOD, self._fernet.encrypt(value.encode("utf-8")).decode("ascii")

    def decrypt(self, method: str | None, data: str, *, what: str = "a stored secret") -> str:
        """The plaintext of ``data`` stored with ``method``.

        Raises:
            EncryptionKeyError: ``data`` was encrypted with another key, or with a
                method hotplate does not read; the text names ``what`` and the option.
        """
        if method != METHOD:
            raise EncryptionKeyError(f"cannot decrypt {what}: unknown decrypt_method "
                                     f"{method!r} (hotplate reads {METHOD})")
        from cryptography.fernet import InvalidToken

        try:
            return self._fernet.decrypt(data.encode("ascii")).decode("utf-8")
        except (InvalidToken, UnicodeError):
            raise EncryptionKeyError(wrong_key_text(what, self.source)) from None

    def encrypt_json(self, value: Any) -> list[str]:
        """``[method, token]`` of ``value`` as JSON: an encrypted value inside a
        JSON document (a hidden parameter, a property), as Heat stores it."""
        method, token = self.encrypt(json.dumps(value))
        return [method, token]

    def decrypt_json(self, pair: Any, *, what: str) -> Any:
        """The value ``encrypt_json`` gave ``pair`` for."""
        if not (isinstance(pair, list | tuple) and len(pair) == 2):
            raise EncryptionKeyError(f"cannot decrypt {what}: not an encrypted value")
        return json.loads(self.decrypt(pair[0], pair[1], what=what))

    def seal(self, document: dict[str, Any]) -> dict[str, Any]:
        """``document`` with each value encrypted (``is_sealed`` tells it apart)."""
        return {SEALED: {name: self.encrypt_json(value) for name, value in document.items()}}

    def unseal(self, document: dict[str, Any], *, what: str) -> dict[str, Any]:
        """The document ``seal`` was given."""
        return {name: self.decrypt_json(pair, what=f"{what} ({name!r})")
                for name, pair in document[SEALED].items()}


def is_sealed(document: Any) -> bool:
    """Whether ``document`` is one ``SecretBox.seal`` made (cheap: the read path asks
    it of every resource row)."""
    return type(document) is dict and SEALED in document


def wrong_key_text(what: str, source: str) -> str:
    """The error text for a value another key encrypted."""
    return (f"cannot decrypt {what}: {OPTION} ({source}) is not the key it was "
            "encrypted with. Set auth_encryption_key (HOTPLATE_AUTH_ENCRYPTION_KEY) to "
            "the key in use when it was written")

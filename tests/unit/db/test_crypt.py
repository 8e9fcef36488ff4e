"""The auth_encryption_key and the format secrets are stored in: Heat's, so a value one
encrypts the other reads, with Heat's rules for the key's length; a wrong key is an error
naming the option, never garbage or a traceback's worth of cryptography."""

from __future__ import annotations

import base64
import os
import stat
import threading
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from hotplate.db.crypt import (
    HEAT_DEFAULT_KEY,
    KEY_FILE,
    METHOD,
    EncryptionKeyError,
    SecretBox,
    fernet_key,
    key_file,
)

KEY = "0123456789abcdef0123456789abcdef"


def heat_encrypt(value: str, key: str) -> str:
    """What Heat 27.0.1's crypt.encrypt stores for ``value`` (its algorithm, restated)."""
    fixed = (key * 2 if len(key) < 32 else key)[:32]
    return Fernet(base64.b64encode(fixed.encode("utf-8"))).encrypt(value.encode()).decode()


def test_a_value_goes_in_and_comes_out() -> None:
    box = SecretBox(KEY)
    method, token = box.encrypt("s3cret")
    assert method == METHOD == "cryptography_decrypt_v1"
    assert "s3cret" not in token
    assert box.decrypt(method, token) == "s3cret"
    assert box.encrypt("s3cret")[1] != token  # a fresh IV each time


@pytest.mark.parametrize("key", [KEY, KEY[:16], KEY[:24], HEAT_DEFAULT_KEY])
def test_heat_and_hotplate_read_each_others_values(key: str) -> None:
    box = SecretBox(key)
    assert box.decrypt(METHOD, heat_encrypt("from heat", key)) == "from heat"
    fixed = (key * 2 if len(key) < 32 else key)[:32]
    heat = Fernet(base64.b64encode(fixed.encode()))
    assert heat.decrypt(box.encrypt("from hotplate")[1].encode()) == b"from hotplate"


def test_json_values_keep_their_type() -> None:
    box = SecretBox(KEY)
    for value in ("text", 42, ["a", "b"], {"k": [1, None]}):
        assert box.decrypt_json(box.encrypt_json(value), what="x") == value


@pytest.mark.parametrize("key", ["", "short", "x" * 31, "x" * 33, "é" * 32])
def test_a_key_heat_would_refuse_is_refused_naming_the_option(key: str) -> None:
    with pytest.raises(EncryptionKeyError, match=r"\[DEFAULT\]/auth_encryption_key must be 32"):
        fernet_key(key)


def test_another_key_is_an_error_naming_the_option_and_what_it_was_reading() -> None:
    method, token = SecretBox(KEY).encrypt("s3cret")
    other = SecretBox("f" * 32, source="the key file /x/auth_encryption_key")
    with pytest.raises(EncryptionKeyError) as caught:
        other.decrypt(method, token, what="resource data 'secret_key' of resource 7")
    text = str(caught.value)
    assert "resource data 'secret_key' of resource 7" in text
    assert "[DEFAULT]/auth_encryption_key (the key file /x/auth_encryption_key)" in text
    assert "s3cret" not in text and "f" * 32 not in text
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_an_unknown_method_or_a_damaged_value_is_the_same_kind_of_error() -> None:
    box = SecretBox(KEY)
    with pytest.raises(EncryptionKeyError, match="unknown decrypt_method 'heat_decrypt'"):
        box.decrypt("heat_decrypt", "abc")
    with pytest.raises(EncryptionKeyError, match="is not the key"):
        box.decrypt(METHOD, "not a token")
    with pytest.raises(EncryptionKeyError, match="not an encrypted value"):
        box.decrypt_json("plain", what="parameter 'p'")


def test_the_box_never_shows_its_key() -> None:
    box = SecretBox(KEY, source="[DEFAULT]/auth_encryption_key")
    assert KEY not in repr(box) and KEY not in str(box)


def test_the_key_file_is_made_once_readable_by_its_owner_only(tmp_path: Path) -> None:
    key, path = key_file(tmp_path / "var")
    assert path == tmp_path / "var" / KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(key) == 32
    fernet_key(key)
    assert key_file(tmp_path / "var") == (key, path)
    assert [p.name for p in path.parent.iterdir()] == [KEY_FILE]  # nothing left aside


def test_processes_starting_together_agree_on_one_key(tmp_path: Path) -> None:
    found: list[str] = []
    start = threading.Barrier(8)

    def make() -> None:
        start.wait()
        found.append(key_file(tmp_path)[0])

    threads = [threading.Thread(target=make) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(found)) == 1 and len(found) == 8


def test_a_damaged_key_file_is_refused_naming_it(tmp_path: Path) -> None:
    (tmp_path / KEY_FILE).write_text("too short\n")
    os.chmod(tmp_path / KEY_FILE, 0o600)
    with pytest.raises(EncryptionKeyError, match=f"the key file {tmp_path / KEY_FILE}: "):
        key_file(tmp_path)

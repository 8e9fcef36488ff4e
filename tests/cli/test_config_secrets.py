"""auth_encryption_key and encrypt_parameters_and_properties from the configuration, Heat's
rules for the key's length, the key the commands make when it is unset, and what a
command says when its key is not the database's: one line naming the option."""

from __future__ import annotations

import logging
import stat
from pathlib import Path

import pytest

from hotplate.config import ConfigError, load
from hotplate.db.crypt import KEY_FILE
from tests.cli.test_config_sample import run

KEY = "0123456789abcdef0123456789abcdef"


def test_the_file_sets_the_key_and_the_switch(tmp_path: Path) -> None:
    path = tmp_path / "h.conf"
    path.write_text(f"[DEFAULT]\nauth_encryption_key = {KEY}\n"
                    "encrypt_parameters_and_properties = true\n")
    secrets = load([str(path)], environ={}, search=()).secrets
    assert (secrets.auth_encryption_key, secrets.encrypt_parameters_and_properties) == (
        KEY, True)
    assert KEY not in repr(secrets)
    unset = load([], environ={}, search=()).secrets
    assert (unset.auth_encryption_key, unset.encrypt_parameters_and_properties) == (
        None, False)


def test_a_key_naming_an_unknown_option_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "h.conf"
    path.write_text("[DEFAULT]\nauth_encryption_key = $nonesuch\n")
    with pytest.raises(ConfigError,
                       match=r"^\[DEFAULT\]/auth_encryption_key: its value names an option"):
        load([str(path)], environ={}, search=())


def test_a_key_of_another_length_is_refused_as_heat_refuses_it() -> None:
    with pytest.raises(ConfigError) as caught:
        load([], environ={"HOTPLATE_AUTH_ENCRYPTION_KEY": "tooshort"}, search=())
    assert str(caught.value) == "[DEFAULT]/auth_encryption_key must be 32 characters, not 8"


@pytest.mark.parametrize("length", [16, 24])
def test_a_short_key_heat_accepts_is_accepted_with_heats_warning(
        length: int, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        secrets = load([], environ={"HOTPLATE_AUTH_ENCRYPTION_KEY": KEY[:length]},
                       search=()).secrets
    assert secrets.auth_encryption_key == KEY[:length]
    assert "Please update auth_encryption_key to be 32 characters." in caplog.text
    assert KEY[:length] not in caplog.text


def test_unset_a_key_is_made_once_in_the_data_directory(tmp_path: Path) -> None:
    done = run("db", "sync", home=tmp_path)
    assert done.returncode == 0, done.stderr
    key_file = tmp_path / "var" / KEY_FILE
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = key_file.read_text().strip()
    assert run("db", "sync", home=tmp_path).returncode == 0
    assert key_file.read_text().strip() == key
    # The same key given as the option is the same key.
    same = run("db", "sync", home=tmp_path, env={"HOTPLATE_AUTH_ENCRYPTION_KEY": key})
    assert same.returncode == 0, same.stderr


def test_another_key_stops_the_command_with_one_line(tmp_path: Path) -> None:
    assert run("db", "sync", home=tmp_path).returncode == 0
    for command in (["db", "sync"], ["serve", "--port", "0"]):
        done = run(*command, home=tmp_path, env={"HOTPLATE_AUTH_ENCRYPTION_KEY": KEY})
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr
        assert done.stderr.splitlines()[-1] == (
            "error: [DEFAULT]/auth_encryption_key (as configured) is not the key this "
            "database's secrets are encrypted with: every process on one database needs "
            "the same key. Set auth_encryption_key (HOTPLATE_AUTH_ENCRYPTION_KEY) to the "
            "key they were written with")
        assert KEY not in done.stderr


def test_a_lost_key_file_is_named(tmp_path: Path) -> None:
    assert run("db", "sync", home=tmp_path).returncode == 0
    (tmp_path / "var" / KEY_FILE).unlink()
    done = run("db", "sync", home=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].startswith(
        "error: [DEFAULT]/auth_encryption_key (unset: the key file "
        f"{tmp_path / 'var' / KEY_FILE}) is not the key this database's secrets are "
        "encrypted with")


def test_commands_that_read_no_secret_make_no_key(tmp_path: Path) -> None:
    done = run("token", "create", "--project", "p", "--role", "admin", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "var" / KEY_FILE).exists()


def test_a_bad_key_stops_the_command_with_one_line(tmp_path: Path) -> None:
    done = run("db", "sync", home=tmp_path, env={"HOTPLATE_AUTH_ENCRYPTION_KEY": "x" * 40})
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "error: [DEFAULT]/auth_encryption_key must be 32 characters, not 40")

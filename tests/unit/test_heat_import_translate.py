"""Heat's stored rows and secrets as an import turns them into hotplate's."""

from __future__ import annotations

import base64
import json
import os
from datetime import UTC, datetime, timedelta

import pytest
from cryptography.hazmat.decrepit.ciphers.modes import CFB
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

from hotplate.db.crypt import METHOD, EncryptionKeyError, SecretBox, is_sealed
from hotplate.heat_import.run import alive_engines, busy
from hotplate.heat_import.source import HeatService, HeatTree, driver_url, shown_url
from hotplate.heat_import.translate import (
    HeatKey,
    current_deps,
    environment,
    plain_properties,
    resource_data,
    resource_types_in,
    stored_properties,
    user_creds,
)

HEAT = "heat-key-heat-key-heat-key-heat!"
OURS = "ours-key-ours-key-ours-key-ours!"
NOW = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


def heat_encrypted(value: str) -> tuple[str, str]:
    return SecretBox(HEAT).encrypt(value)


def test_a_value_heat_encrypted_is_encrypted_again_with_our_key() -> None:
    heat, ours = HeatKey(HEAT, source="Heat's"), SecretBox(OURS)
    method, token = heat_encrypted("trust-1234")
    row = {"id": 7, "username": None, "password": None, "region_name": "RegionOne",
           "decrypt_method": method, "tenant": "demo", "auth_url": "http://k/v3",
           "tenant_id": "p1", "trust_id": token, "trustor_user_id": "u1",
           "created_at": NOW, "updated_at": None}
    moved = user_creds(row, heat, ours)
    assert moved["decrypt_method"] == METHOD
    assert moved["trust_id"] != token
    assert ours.decrypt(METHOD, moved["trust_id"]) == "trust-1234"
    assert moved["password"] is None and moved["trustor_user_id"] == "u1"


def test_heats_oldest_format_is_read_too() -> None:
    iv = os.urandom(16)
    encryptor = Cipher(algorithms.AES(HEAT.encode()), CFB(iv)).encryptor()
    token = base64.b64encode(iv + encryptor.update(b"s3cret") + encryptor.finalize()).decode()
    assert HeatKey(HEAT, source="Heat's").decrypt("heat_decrypt", token, what="x") == "s3cret"


def test_a_wrong_heat_key_is_named_not_garbage() -> None:
    method, token = heat_encrypted("value")
    with pytest.raises(EncryptionKeyError, match="resource data 'password'"):
        resource_data({"key": "password", "value": token, "redact": True,
                       "decrypt_method": method, "created_at": NOW},
                      HeatKey(OURS, source="Heat's"), SecretBox(OURS))


def test_redacted_resource_data_is_reencrypted_and_plain_data_kept() -> None:
    heat, ours = HeatKey(HEAT, source="Heat's"), SecretBox(OURS)
    method, token = heat_encrypted("abc")
    secret = resource_data({"key": "value", "value": token, "redact": True,
                            "decrypt_method": method, "created_at": NOW}, heat, ours)
    assert ours.decrypt(secret["decrypt_method"], secret["value"]) == "abc"
    plain = resource_data({"key": "k", "value": "v", "redact": False, "decrypt_method": None,
                           "created_at": NOW}, heat, ours)
    assert (plain["value"], plain["decrypt_method"], plain["redact"]) == ("v", None, False)


@pytest.mark.parametrize("encrypt_here", [False, True])
def test_hidden_parameters_follow_our_setting(encrypt_here: bool) -> None:
    heat = HeatKey(HEAT, source="Heat's")
    ours = SecretBox(OURS, encrypt_parameters_and_properties=encrypt_here)
    env = {"parameters": {"password": list(heat_encrypted("hunter2")), "size": "3"},
           "encrypted_param_names": ["password"], "resource_registry": {}}
    moved = environment(env, heat, ours, what="t")
    assert moved["parameters"]["size"] == "3"
    if encrypt_here:
        assert moved["encrypted_param_names"] == ["password"]
        assert ours.decrypt_json(moved["parameters"]["password"], what="p") == "hunter2"
    else:
        assert "encrypted_param_names" not in moved
        assert moved["parameters"]["password"] == "hunter2"


def test_properties_heat_encrypted_are_sealed_here_or_plain() -> None:
    heat = HeatKey(HEAT, source="Heat's")
    data = {"length": list(heat_encrypted(json.dumps(8))),
            "salt": list(heat_encrypted(json.dumps("x")))}
    plain = plain_properties(data, True, heat, what="a property")
    assert plain == {"length": 8, "salt": "x"}
    assert stored_properties(plain, SecretBox(OURS)) == plain
    sealed = stored_properties(plain, SecretBox(OURS, encrypt_parameters_and_properties=True))
    assert is_sealed(sealed)
    assert SecretBox(OURS).unseal(sealed, what="p") == plain
    assert plain_properties({"a": 1}, False, heat, what="p") == {"a": 1}


def test_a_traversal_graph_is_carried_over_in_our_row_ids() -> None:
    deps = {"edges": [[[5, True], [6, True]], [[6, True], None], [[9, False], [5, True]]]}
    assert current_deps(deps, {5: 50, 6: 60}) == {
        "edges": [[[50, True], [60, True]], [[60, True], None]]}
    assert current_deps(None, {}) is None


def test_types_are_read_from_hot_and_cfn_templates() -> None:
    assert resource_types_in({"resources": {"a": {"type": "OS::Heat::None"}}}) == {
        "a": "OS::Heat::None"}
    assert resource_types_in({"Resources": {"b": {"Type": "AWS::EC2::Instance"}}}) == {
        "b": "AWS::EC2::Instance"}


def test_an_engine_is_alive_as_heat_counts_it() -> None:
    def seen(ago: int) -> HeatService:
        return HeatService("e", "h", "heat-engine", NOW - timedelta(seconds=ago), 60)

    assert alive_engines([seen(119)], NOW) != []
    assert alive_engines([seen(121)], NOW) == []


def test_a_tree_heat_is_working_on_is_named_busy() -> None:
    root = {"id": "r", "name": "r", "action": "UPDATE", "status": "IN_PROGRESS"}
    assert "UPDATE_IN_PROGRESS" in (busy(HeatTree(stacks=[root])) or "")
    calm = {**root, "status": "COMPLETE"}
    child = {"id": "c", "name": "kid", "action": "CREATE", "status": "IN_PROGRESS"}
    assert "nested stack kid" in (busy(HeatTree(stacks=[calm, child])) or "")
    assert busy(HeatTree(stacks=[calm])) is None


def test_heats_urls_get_our_drivers_and_lose_their_password() -> None:
    assert driver_url("postgresql+psycopg2://heat:pw@db/heat").startswith(
        "postgresql+psycopg://heat:pw@")
    assert driver_url("mysql://heat:pw@db/heat?charset=utf8").startswith("mysql+pymysql://")
    assert "pw" not in shown_url("mysql+pymysql://heat:pw@db/heat")

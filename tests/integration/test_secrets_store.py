"""Secrets at rest, on every backend: what the store encrypts (redacted resource data,
stack users' secret keys, stored credentials) is unreadable in its row and reads back as
written; another key is an error naming the option; each database knows its key."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine, select

from hotplate.db import schema as s
from hotplate.db.crypt import METHOD, EncryptionKeyError, SecretBox
from hotplate.db.key_check import verify_key
from hotplate.db.store import SqlStore
from hotplate.model.ids import EngineId, ResourceId
from hotplate.model.stack_users import ResourceOwner
from tests.integration.helpers import FakeClock, make_resource, make_stack

KEY = "k" * 32
OTHER = "o" * 32


@pytest.fixture
def keyed(store: SqlStore, db_engine: Engine, clock: FakeClock) -> SqlStore:
    """The store of the ``store`` fixture (empty tables), on KEY."""
    return SqlStore(db_engine, clock, SecretBox(KEY))


def _rows(engine: Engine, table: Any) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        return [dict(row._mapping) for row in conn.execute(select(table))]


def _resource(store: SqlStore, clock: FakeClock) -> ResourceId:
    return make_resource(store, make_stack(store, clock))


def test_redacted_data_is_encrypted_in_its_row_and_reads_back(
        keyed: SqlStore, clock: FakeClock, db_engine: Engine) -> None:
    rid = _resource(keyed, clock)
    keyed.set_resource_data(rid, "secret_key", "s3cret-value", redact=True)
    keyed.set_resource_data(rid, "hook", "pre-create")
    rows = {row["key"]: row for row in _rows(db_engine, s.resource_data)}
    assert rows["secret_key"]["decrypt_method"] == METHOD and rows["secret_key"]["redact"]
    assert "s3cret" not in rows["secret_key"]["value"]
    assert rows["hook"]["value"] == "pre-create" and not rows["hook"]["decrypt_method"]
    assert keyed.get_resource_data(rid) == {"secret_key": "s3cret-value", "hook": "pre-create"}
    keyed.set_resource_data(rid, "secret_key", "now plain")  # redact off: stored as is
    assert keyed.get_resource_data(rid)["secret_key"] == "now plain"
    assert {r["key"]: r["decrypt_method"] for r in _rows(db_engine, s.resource_data)} == {
        "secret_key": "", "hook": ""}


def test_data_written_under_the_lock_is_encrypted_too(
        keyed: SqlStore, clock: FakeClock, db_engine: Engine) -> None:
    rid = _resource(keyed, clock)
    engine_id = EngineId("e1")
    assert keyed.acquire_resource(rid, engine_id, 0, {}) is not None
    assert keyed.update_resource_locked(rid, engine_id, {"resource_data": {
        "token": ("tok-123", True), "plain": ("p", False)}}, release=True) is not None
    rows = {row["key"]: row for row in _rows(db_engine, s.resource_data)}
    assert "tok-123" not in rows["token"]["value"] and rows["plain"]["value"] == "p"
    assert keyed.get_resource_data(rid) == {"token": "tok-123", "plain": "p"}


def test_another_key_is_an_error_naming_the_option(
        keyed: SqlStore, clock: FakeClock, db_engine: Engine) -> None:
    rid = _resource(keyed, clock)
    keyed.set_resource_data(rid, "value", "s3cret", redact=True)
    other = SqlStore(db_engine, clock, SecretBox(OTHER, source="unset: the key file /k"))
    with pytest.raises(EncryptionKeyError) as caught:
        other.get_resource_data(rid)
    assert str(caught.value).startswith(
        f"cannot decrypt resource data 'value' of resource {rid}: "
        "[DEFAULT]/auth_encryption_key (unset: the key file /k) is not the key")
    assert "s3cret" not in str(caught.value)


def test_a_stack_users_secret_is_encrypted_and_signs_as_before(
        keyed: SqlStore, clock: FakeClock, db_engine: Engine) -> None:
    stack = make_stack(keyed, clock)
    rid = make_resource(keyed, stack, "server")
    key = keyed.stack_user_key(ResourceOwner(rid, stack.id, stack.name, "server", "p"))
    [row] = _rows(db_engine, s.stack_user_key)
    assert row["access_key"] == key.access_key
    assert row["decrypt_method"] == METHOD and key.secret not in row["secret"]
    assert keyed.find_stack_user_key(key.access_key) == key
    assert keyed.stack_user_key_of(rid) == key


def test_stored_credentials_are_encrypted_as_heat_stores_them(
        keyed: SqlStore, db_engine: Engine) -> None:
    with_trust = keyed.create_user_creds({"trust_id": "trust-0123", "trustor_user_id": "u1",
                                          "tenant": "demo", "auth_url": "http://ks/v3"})
    with_password = keyed.create_user_creds({"username": "demo", "password": "pa55word"})
    rows = {row["id"]: row for row in _rows(db_engine, s.user_creds)}
    assert rows[with_trust]["trust_id"] != "trust-0123"
    assert rows[with_password]["password"] != "pa55word"
    assert {row["decrypt_method"] for row in rows.values()} == {METHOD}
    creds = keyed.get_user_creds(with_trust)
    assert creds is not None
    assert (creds.trust_id, creds.trustor_user_id, creds.password) == (
        "trust-0123", "u1", None)
    assert getattr(keyed.get_user_creds(with_password), "password", None) == "pa55word"
    assert keyed.get_user_creds(with_password + with_trust + 1) is None
    with pytest.raises(ValueError, match="the password is too long"):
        keyed.create_user_creds({"username": "demo", "password": "x" * 200})


def test_a_database_keeps_the_first_key_and_refuses_another(
        store: SqlStore, db_engine: Engine) -> None:
    verify_key(db_engine, SecretBox(KEY))
    verify_key(db_engine, SecretBox(KEY))  # the same key again: fine
    with pytest.raises(EncryptionKeyError) as caught:
        verify_key(db_engine, SecretBox(OTHER, source="as configured"))
    assert str(caught.value).startswith(
        "[DEFAULT]/auth_encryption_key (as configured) is not the key this "
        "database's secrets are encrypted with")
    assert OTHER not in str(caught.value) and KEY not in str(caught.value)


@pytest.fixture
def sealing(store: SqlStore, db_engine: Engine, clock: FakeClock) -> SqlStore:
    """A store on KEY with encrypt_parameters_and_properties."""
    return SqlStore(db_engine, clock,
                    SecretBox(KEY, encrypt_parameters_and_properties=True))


def test_hidden_parameters_are_encrypted_and_read_back_with_their_type(
        sealing: SqlStore, keyed: SqlStore, db_engine: Engine) -> None:
    env = {"parameters": {"password": "pa55-s3cret", "size": 3, "list": ["a", 1]},
           "parameter_defaults": {"other": "x"}}
    tid = sealing.create_raw_template({"heat_template_version": "2021-04-16"}, {}, env,
                                      hidden={"password", "list", "not_given"})
    with db_engine.connect() as conn:
        stored = conn.execute(select(s.raw_template.c.environment)).scalar_one()
    assert "pa55-s3cret" not in repr(stored)
    assert stored["encrypted_param_names"] == ["list", "password"]
    assert stored["parameters"]["size"] == 3
    raw = sealing.get_raw_template(tid)
    assert raw is not None and raw.environment == env  # as given: no encrypted_param_names
    # Switched off since: still read back; new templates are stored as given.
    assert (keyed.get_raw_template(tid) or raw).environment == env
    plain = keyed.create_raw_template({}, {}, env, hidden={"password"})
    with db_engine.connect() as conn:
        stored = conn.execute(select(s.raw_template.c.environment)
                              .where(s.raw_template.c.id == plain)).scalar_one()
    assert stored == env


def test_properties_and_attributes_are_encrypted_and_read_back(
        sealing: SqlStore, keyed: SqlStore, clock: FakeClock, db_engine: Engine) -> None:
    rid = _resource(sealing, clock)
    engine_id = EngineId("e1")
    props = {"value": "s3cret-prop", "count": 2, "nested": {"k": ["v"]}}
    attrs = {"output": "s3cret-attr"}
    assert sealing.acquire_resource(rid, engine_id, 0, {"properties_data": props}) is not None
    written = sealing.update_resource_locked(rid, engine_id, {"attr_data": attrs},
                                             release=True)
    assert written is not None and written.properties_data == props
    assert written.attr_data == attrs
    raw = repr(_rows(db_engine, s.resource)) + repr(_rows(db_engine, s.resource_properties_data))
    assert "s3cret" not in raw
    for reader in (sealing, keyed):  # switched off since: still read back
        row = reader.get_resource(rid)
        assert row is not None and (row.properties_data, row.attr_data) == (props, attrs)
        loaded, _ = reader.load_node(rid)
        assert loaded is not None and loaded.properties_data == props
    other = SqlStore(db_engine, clock, SecretBox(OTHER))
    with pytest.raises(EncryptionKeyError, match=f"a property of resource {rid}"):
        other.get_resource(rid)

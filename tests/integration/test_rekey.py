"""``hotplate db rotate-key`` and ``update-params`` on every backend: every secret moves to
the new key and reads back as written; a second run changes nothing; running engines and
a key that opens nothing are refused before anything changes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, select

from hotplate.db import schema as s
from hotplate.db.crypt import SEALED, EncryptionKeyError, SecretBox
from hotplate.db.key_check import verify_key
from hotplate.db.rekey import EnginesRunning, hidden_names, rotate_key, update_params
from hotplate.db.store import SqlStore
from hotplate.engine.clock import SystemClock
from hotplate.model.ids import EngineId
from hotplate.model.stack_users import ResourceOwner
from tests.integration.helpers import FakeClock, make_stack, new_resource

OLD, NEW, WRONG = "o" * 32, "n" * 32, "w" * 32
TEMPLATE = {"heat_template_version": "2021-04-16",
            "parameters": {"pw": {"type": "string", "hidden": True}, "name": {"type": "string"}}}
ENV = {"parameters": {"pw": "pa55", "name": "web"}}
PROPS = {"password": "pa55", "size": 3}


def _box(key: str, encrypt: bool = True) -> SecretBox:
    return SecretBox(key, encrypt_parameters_and_properties=encrypt)


@pytest.fixture
def written(store: SqlStore, db_engine: Engine, clock: FakeClock) -> Iterator[dict[str, Any]]:
    """One of each secret, written by a store on OLD (parameters and properties encrypted)."""
    old = SqlStore(db_engine, clock, _box(OLD))
    with db_engine.connect() as conn:
        verify_key(conn, _box(OLD))
        conn.commit()
    stack = make_stack(old, clock)
    tid = old.create_raw_template(TEMPLATE, {}, ENV, hidden=["pw"])
    [rid] = old.create_resources([new_resource(stack, "server")])
    old.set_resource_data(rid, "token", "t0k3n", redact=True)
    assert old.acquire_resource(rid, EngineId("e1"), 0, {}) is not None
    assert old.update_resource_locked(rid, EngineId("e1"), {"attr_data": {"key": "v4lue"},
                                                               "properties_data": PROPS},
                                      release=True) is not None
    key = old.stack_user_key(ResourceOwner(rid, stack.id, stack.name, "server", "p"))
    creds = old.create_user_creds({"trust_id": "trust-1", "password": "pw-1"})
    yield {"tid": tid, "rid": rid, "key": key, "creds": creds}
    with db_engine.begin() as conn:
        conn.execute(s.auth_key_check.delete())


def _read(store: SqlStore, made: dict[str, Any]) -> tuple[Any, ...]:
    template = store.get_raw_template(made["tid"])
    resource = store.get_resource(made["rid"])
    creds = store.get_user_creds(made["creds"])
    assert template is not None and resource is not None and creds is not None
    return (template.environment, resource.properties_data, resource.attr_data,
            store.get_resource_data(made["rid"]), store.find_stack_user_key(
                made["key"].access_key), creds.trust_id, creds.password)


def _raw(engine: Engine) -> str:
    with engine.connect() as conn:
        return repr([conn.execute(select(t)).all() for t in (
            s.raw_template, s.resource, s.resource_properties_data, s.resource_data,
            s.stack_user_key, s.user_creds, s.auth_key_check)])


def test_rotate_key_moves_every_secret_and_a_second_run_moves_none(
        written: dict[str, Any], db_engine: Engine, clock: FakeClock) -> None:
    before = _read(SqlStore(db_engine, clock, _box(OLD)), written)
    assert before[0] == ENV and before[1] == PROPS and before[2] == {"key": "v4lue"}
    moved = rotate_key(db_engine, _box(OLD), _box(NEW))
    assert moved == {"stored credentials": 1, "stack users' secret keys": 1,
                     "redacted resource data": 1, "templates' hidden parameters": 1,
                     "resources' properties": 1, "properties and attributes rows": 1,
                     "the database's key check": 1}
    assert _read(SqlStore(db_engine, clock, _box(NEW)), written) == before
    with pytest.raises(EncryptionKeyError):
        SqlStore(db_engine, clock, _box(OLD)).get_resource_data(written["rid"])
    with db_engine.connect() as conn:
        verify_key(conn, _box(NEW))
        with pytest.raises(EncryptionKeyError):
            verify_key(conn, _box(OLD))
    raw = _raw(db_engine)
    assert rotate_key(db_engine, _box(OLD), _box(NEW)) == {}
    assert _raw(db_engine) == raw
    for secret in ("pa55", "t0k3n", "v4lue", "trust-1", "pw-1"):
        assert secret not in raw


def test_rotate_key_with_a_key_that_opens_nothing_changes_nothing(
        written: dict[str, Any], db_engine: Engine) -> None:
    raw = _raw(db_engine)
    with pytest.raises(EncryptionKeyError, match="the database's key check"):
        rotate_key(db_engine, _box(WRONG), _box(NEW))
    assert _raw(db_engine) == raw


def test_running_engines_are_refused(written: dict[str, Any], db_engine: Engine) -> None:
    live = SqlStore(db_engine, SystemClock())  # reported just now
    live.register_service(EngineId("e-live"), "h", "h", "hotplate-engine", "engine", 60)
    raw = _raw(db_engine)
    with pytest.raises(EnginesRunning, match="stop every engine first"):
        rotate_key(db_engine, _box(OLD), _box(NEW))
    with pytest.raises(EnginesRunning):
        update_params(db_engine, "decrypt", _box(OLD))
    assert _raw(db_engine) == raw


def test_update_params_decrypts_then_encrypts_as_heat_manage_does(
        written: dict[str, Any], db_engine: Engine, clock: FakeClock) -> None:
    before = _read(SqlStore(db_engine, clock, _box(OLD)), written)
    moved = update_params(db_engine, "decrypt", _box(NEW), _box(OLD))
    assert moved == {"templates' hidden parameters": 1, "resources' properties": 1,
                     "properties and attributes rows": 1}
    with db_engine.connect() as conn:
        env = conn.execute(select(s.raw_template.c.environment).where(
            s.raw_template.c.id == written["tid"])).scalar_one()
        props = conn.execute(select(s.resource.c.properties_data)).scalar_one()
    assert env == ENV and props == PROPS  # plaintext, no encrypted_param_names
    plain = SqlStore(db_engine, clock, _box(OLD, encrypt=False))
    assert _read(plain, written) == before  # the other secrets stay under OLD
    assert update_params(db_engine, "encrypt", _box(OLD)) == moved
    with db_engine.connect() as conn:
        env = conn.execute(select(s.raw_template.c.environment).where(
            s.raw_template.c.id == written["tid"])).scalar_one()
        props = conn.execute(select(s.resource.c.properties_data)).scalar_one()
    assert env["encrypted_param_names"] == ["pw"] and env["parameters"]["name"] == "web"
    assert "pa55" not in repr(env) and SEALED in props
    assert _read(SqlStore(db_engine, clock, _box(OLD)), written) == before
    assert update_params(db_engine, "encrypt", _box(OLD)) == {}


def test_hidden_names_read_hot_and_cfn_templates() -> None:
    assert hidden_names(TEMPLATE) == ["pw"]
    assert hidden_names({"Parameters": {"a": {"NoEcho": "true"}, "b": {"NoEcho": "false"},
                                        "c": {"Type": "String"}}}) == ["a"]
    assert hidden_names({"parameters": "nonsense"}) == []

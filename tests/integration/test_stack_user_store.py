"""Stack users in the database, on every backend: one keypair per resource however many
ask at once, lookup by access key, signal tokens scoped to one resource, and both gone
with their resource row."""

from __future__ import annotations

from sqlalchemy import Engine

from hotplate.db.auth_store import AuthStore
from hotplate.db.store import SqlStore
from hotplate.model.stack_users import ResourceOwner, SignalScope
from tests.integration.helpers import FakeClock, make_resource, make_stack, race


def _owner(store: SqlStore, clock: FakeClock, name: str = "server") -> ResourceOwner:
    stack = make_stack(store, clock)
    rid = make_resource(store, stack, name)
    return ResourceOwner(rid, stack.id, stack.name, name, "project-a")


def test_one_keypair_per_resource_even_when_raced(store: SqlStore, clock: FakeClock) -> None:
    owner = _owner(store, clock)
    keys = race(6, lambda _: store.stack_user_key(owner))
    assert len({(k.access_key, k.secret) for k in keys}) == 1
    key = keys[0]
    assert len(key.secret) >= 40 and key.access_key != key.secret
    found = store.find_stack_user_key(key.access_key)
    assert found == key
    assert (found.stack_id, found.resource_name, found.project) == (
        owner.stack_id, "server", "project-a")
    assert store.find_stack_user_key("NOSUCHKEY") is None
    other = store.stack_user_key(_owner(store, clock, "other"))
    assert other.access_key != key.access_key


def test_signal_tokens_are_scoped_and_go_with_their_resource(
        store: SqlStore, clock: FakeClock, db_engine: Engine) -> None:
    owner = _owner(store, clock)
    key = store.stack_user_key(owner)
    token = store.issue_signal_token(owner)
    auth = AuthStore(db_engine)
    assert auth.authenticate(token) == ("project-a", "signal")
    assert auth.signal_scope(token) == SignalScope(owner.stack_id, owner.stack_name, "server")
    plain = auth.create_token("project-a", "member")
    assert auth.signal_scope(plain) is None

    store.delete_resource(owner.resource_id)
    assert store.find_stack_user_key(key.access_key) is None
    assert auth.signal_scope(token) is None


def test_forgetting_a_stack_user_revokes_its_token(store: SqlStore, clock: FakeClock,
                                                   db_engine: Engine) -> None:
    owner = _owner(store, clock)
    key = store.stack_user_key(owner)
    token = store.issue_signal_token(owner)
    store.forget_stack_user(owner.resource_id)
    assert store.find_stack_user_key(key.access_key) is None
    assert AuthStore(db_engine).authenticate(token) is None
    assert store.stack_user_key(owner).access_key != key.access_key  # a new pair


def test_tokens_issued_at_once_for_a_new_project_all_work(
        store: SqlStore, clock: FakeClock, db_engine: Engine) -> None:
    owners = [_owner(store, clock, f"r{i}") for i in range(4)]
    owners = [ResourceOwner(o.resource_id, o.stack_id, o.stack_name, o.resource_name,
                            "brand-new") for o in owners]
    tokens = race(4, lambda i: store.issue_signal_token(owners[i]))
    auth = AuthStore(db_engine)
    assert [auth.authenticate(t) for t in tokens] == [("brand-new", "signal")] * 4

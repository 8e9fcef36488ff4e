"""Request ids: which methods write, the ids keys and tokens name, what makes two askings
the same request."""

from __future__ import annotations

from hotplate.api_cfn.app import _context
from hotplate.engine.service.endpoint import EngineService
from hotplate.model.stack_users import StackUserKey
from hotplate.rpc.requests import (
    READS,
    WRITES,
    fingerprint,
    keyed_request_id,
    request_id_of,
    request_uuid,
)


def test_every_engine_topic_method_is_a_read_or_a_write() -> None:
    assert READS | WRITES == EngineService.ALLOWED
    assert not READS & WRITES


def test_a_key_names_one_request_per_project() -> None:
    assert keyed_request_id("p", "k") == keyed_request_id("p", "k")
    assert keyed_request_id("p", "k") != keyed_request_id("q", "k")
    assert keyed_request_id("p", "k").startswith("req-")
    ctxt = {"request_id": keyed_request_id("p", "k")}
    assert request_uuid(ctxt, "stack") == request_uuid(dict(ctxt), "stack")
    assert request_uuid(ctxt, "stack") != request_uuid(ctxt, "software_config")
    assert request_uuid({}, "stack") is None
    assert request_id_of({"request_id": "x" * 256}) is None


def test_the_fingerprint_is_method_project_and_arguments() -> None:
    base = fingerprint("delete_stack", {"project_id": "p"}, {"stack_identity": {"a": 1}})
    assert base == fingerprint("delete_stack", {"project_id": "p", "user": "u"},
                               {"stack_identity": {"a": 1}})
    assert base != fingerprint("stack_check", {"project_id": "p"}, {"stack_identity": {"a": 1}})
    assert base != fingerprint("delete_stack", {"project_id": "q"}, {"stack_identity": {"a": 1}})
    assert base != fingerprint("delete_stack", {"project_id": "p"}, {"stack_identity": {"a": 2}})


def test_a_client_request_token_names_one_request_of_the_stack_users_project() -> None:
    key = StackUserKey.__new__(StackUserKey)
    object.__setattr__(key, "access_key", "AK")
    object.__setattr__(key, "project", "p")
    object.__setattr__(key, "resource_name", "r")
    assert _context(key, "tok-1")["request_id"] == _context(key, "tok-1")["request_id"]
    assert _context(key, "tok-1")["request_id"] != keyed_request_id("p", "tok-1")
    assert _context(key)["request_id"] != _context(key)["request_id"]

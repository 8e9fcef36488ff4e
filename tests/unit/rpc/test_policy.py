"""The allowlist, and the package's public surface."""

from __future__ import annotations

import pytest

import hotplate.rpc
from hotplate.rpc import AccessPolicy, NoSuchMethod, topics


def test_only_listed_public_methods_pass() -> None:
    policy = AccessPolicy.of(["create_stack", "_private", "__call__"])
    policy.check("create_stack")
    assert policy.permits("create_stack")
    for method in ("delete_stack", "_private", "__call__", ""):
        assert not policy.permits(method)
        with pytest.raises(NoSuchMethod) as info:
            policy.check(method)
        assert info.value.method == method


def test_refusal_says_why() -> None:
    policy = AccessPolicy(frozenset({"_private"}))
    with pytest.raises(NoSuchMethod, match="private"):
        policy.check("_private")
    with pytest.raises(NoSuchMethod, match="not allowed"):
        policy.check("other")


def test_heat_topics_and_versions() -> None:
    assert (topics.ENGINE_TOPIC, topics.WORKER_TOPIC, topics.LISTENER_TOPIC) == (
        "engine", "engine_worker", "heat-engine-listener")
    assert (topics.ENGINE_API_VERSION, topics.WORKER_API_VERSION,
            topics.LISTENER_API_VERSION) == ("1.36", "1.9", "1.0")


def test_exports() -> None:
    assert sorted(hotplate.rpc.__all__) == sorted(set(hotplate.rpc.__all__))
    for name in hotplate.rpc.__all__:
        assert getattr(hotplate.rpc, name) is not None

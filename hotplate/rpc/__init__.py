"""Transports (in-process; deterministic for tests), the wire codec and the access policy.

Every transport implements ``hotplate.ports.Transport``: JSON both ways,
only allowlisted methods callable, errors from ``hotplate.model.errors``
re-raised by class at the caller.
"""

from hotplate.rpc.deterministic import DeterministicTransport, Failure, Pending
from hotplate.rpc.dispatch import Counters
from hotplate.rpc.errors import (
    MessagingTimeout,
    NoSuchMethod,
    NotSerializable,
    RemoteError,
    RpcError,
)
from hotplate.rpc.inprocess import InProcessTransport
from hotplate.rpc.policy import AccessPolicy
from hotplate.rpc.topics import (
    ENGINE_API_VERSION,
    ENGINE_TOPIC,
    LISTENER_API_VERSION,
    LISTENER_TOPIC,
    WORKER_API_VERSION,
    WORKER_TOPIC,
)

__all__ = [
    "ENGINE_API_VERSION",
    "ENGINE_TOPIC",
    "LISTENER_API_VERSION",
    "LISTENER_TOPIC",
    "WORKER_API_VERSION",
    "WORKER_TOPIC",
    "AccessPolicy",
    "Counters",
    "DeterministicTransport",
    "Failure",
    "InProcessTransport",
    "MessagingTimeout",
    "NoSuchMethod",
    "NotSerializable",
    "Pending",
    "RemoteError",
    "RpcError",
]

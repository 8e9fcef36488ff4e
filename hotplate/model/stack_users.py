"""Records of stack users: whom a keypair or a signal token speaks for (db/stack_users.py)."""

from __future__ import annotations

from dataclasses import dataclass

from hotplate.model.ids import ResourceId

__all__ = ["ResourceOwner", "SignalScope", "StackUserKey"]


@dataclass(frozen=True, slots=True)
class ResourceOwner:
    """Which resource a credential is for: its row and its names."""

    resource_id: ResourceId
    stack_id: str
    stack_name: str
    resource_name: str
    project: str


@dataclass(frozen=True, slots=True)
class StackUserKey:
    """A resource's stack-user keypair and whom it speaks for."""

    access_key: str
    secret: str
    resource_id: int
    stack_id: str
    stack_name: str
    resource_name: str
    project: str

    @property
    def keystone_held(self) -> bool:
        """Keystone holds the secret (Keystone mode): only Keystone checks signatures."""
        return not self.secret


@dataclass(frozen=True, slots=True)
class SignalScope:
    """The one resource a signal token may act on."""

    stack_id: str
    stack_name: str
    resource_name: str

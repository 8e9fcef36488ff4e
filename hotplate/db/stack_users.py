"""Stack users, standalone: EC2-style keys per resource and resource-scoped signal tokens.

Heat creates a Keystone user per signalled resource and an EC2 keypair for
it; the CFN API asks Keystone (ec2tokens) to check each signature. hotplate
has no Keystone, so it keeps the pair itself:

- ``stack_user_key``: one (access key, secret) per resource row, made on
  first use. The secret is kept encrypted with ``auth_encryption_key``
  (db/crypt.py) rather than hashed, because checking an HMAC needs the secret
  itself; the CFN API looks the pair up by access key, which is stored as it
  is. Deleting the resource row deletes its keys (cascade).
- In Keystone mode the keypair is a Keystone EC2 credential of a stack domain
  user (``engine/hosting/keystone_users.py``): the row only says which
  resource its access key speaks for, with an empty secret, and Keystone
  checks its signatures.
- ``signal_token``: the scope of a TOKEN_SIGNAL token, an ``api_token`` of
  role ``signal`` that may only signal, and read the metadata of, one
  resource. Only the token's hash is stored, as for every token.
"""

from __future__ import annotations

import contextlib
import secrets
import uuid

from sqlalchemy import Connection, delete, insert, select
from sqlalchemy.exc import IntegrityError

from hotplate.db.auth_store import new_token, token_hash  # one token format
from hotplate.db.base import StoreBase
from hotplate.db.schema import api_token, project, resource, signal_token, stack_user_key
from hotplate.model.ids import ResourceId
from hotplate.model.stack_users import ResourceOwner, StackUserKey

SIGNAL_ROLE = "signal"
"""The role of a TOKEN_SIGNAL token."""
KEYSTONE_HELD = ""
"""The secret of a key Keystone holds (Keystone mode): never a secret to sign with."""


def _new_access_key() -> str:
    # 20 upper-case hex characters, shaped like the keys agents usually see.
    return secrets.token_hex(16).upper()


class StackUserStore(StoreBase):
    """Keys and signal tokens of stack users (a SqlStore mixin)."""

    def stack_user_key(self, owner: ResourceOwner) -> StackUserKey:
        """The resource's keypair, made on first use (a racing maker's pair wins once)."""
        found = self.stack_user_key_of(owner.resource_id)
        if found is not None:
            return found
        method, secret = self._secrets.encrypt(secrets.token_hex(20))
        values = {
            "access_key": _new_access_key(), "secret": secret, "decrypt_method": method,
            "resource_id": int(owner.resource_id), "stack_id": owner.stack_id,
            "stack_name": owner.stack_name, "resource_name": owner.resource_name,
            "project": owner.project, "created_at": self._now(),
        }
        # Made meanwhile for the same row: the insert fails and the read below finds it.
        with contextlib.suppress(IntegrityError):
            self._tx.write(lambda conn: conn.execute(insert(stack_user_key).values(**values)))
        made = self.stack_user_key_of(owner.resource_id)
        if made is None:
            raise LookupError(f"resource {owner.resource_id} is gone")
        return made

    def record_stack_user_key(self, owner: ResourceOwner, access_key: str) -> None:
        """Note whose a Keystone EC2 key is (Keystone mode): no secret is kept, Keystone
        checks the key's signatures (``ec2tokens``)."""
        values = {
            "access_key": access_key, "secret": KEYSTONE_HELD,
            "resource_id": int(owner.resource_id), "stack_id": owner.stack_id,
            "stack_name": owner.stack_name, "resource_name": owner.resource_name,
            "project": owner.project, "created_at": self._now(),
        }
        with contextlib.suppress(IntegrityError):  # noted already (a retry)
            self._tx.write(lambda conn: conn.execute(insert(stack_user_key).values(**values)))

    def stack_user_key_of(self, resource_id: ResourceId) -> StackUserKey | None:
        query = select(stack_user_key).where(stack_user_key.c.resource_id == int(resource_id))
        row = self._tx.read(lambda conn: conn.execute(query).first())
        return self._key(row) if row is not None else None

    def find_stack_user_key(self, access_key: str) -> StackUserKey | None:
        """The keypair of ``access_key``; None if unknown or its resource is gone."""
        query = (select(stack_user_key)
                 .select_from(stack_user_key.join(
                     resource, resource.c.id == stack_user_key.c.resource_id))
                 .where(stack_user_key.c.access_key == access_key))
        row = self._tx.read(lambda conn: conn.execute(query).first())
        return self._key(row) if row is not None else None

    def issue_signal_token(self, owner: ResourceOwner) -> str:
        """A new token that may only signal this resource; the plaintext, once."""
        plaintext = new_token()
        token_id = str(uuid.uuid4())

        def write(conn: Connection) -> None:
            conn.execute(insert(api_token).values(
                id=token_id, token_hash=token_hash(plaintext),
                project_id=self._project_id(conn, owner.project), role=SIGNAL_ROLE,
                created_at=self._now()))
            conn.execute(insert(signal_token).values(
                token_id=token_id, resource_id=int(owner.resource_id),
                stack_id=owner.stack_id, stack_name=owner.stack_name,
                resource_name=owner.resource_name))

        try:
            self._tx.write(write)
        except IntegrityError:
            # Its project was made meanwhile by another writer: it exists now.
            self._tx.write(write)
        return plaintext

    def forget_stack_user(self, resource_id: ResourceId) -> None:
        """Drop the resource's keys and signal tokens (its row stays)."""
        tokens = select(signal_token.c.token_id).where(
            signal_token.c.resource_id == int(resource_id))

        def write(conn: Connection) -> None:
            ids = [row.token_id for row in conn.execute(tokens)]
            conn.execute(delete(stack_user_key).where(
                stack_user_key.c.resource_id == int(resource_id)))
            if ids:
                conn.execute(delete(signal_token).where(signal_token.c.token_id.in_(ids)))
                conn.execute(delete(api_token).where(api_token.c.id.in_(ids)))

        self._tx.write(write)

    def forget_stack_user_key(self, access_key: str) -> None:
        """Drop one key, leaving its resource's other keys and tokens (an IAM access
        key deleted while its user stays)."""
        self._tx.write(lambda conn: conn.execute(
            delete(stack_user_key).where(stack_user_key.c.access_key == access_key)))

    def _project_id(self, conn: Connection, name: str) -> str:
        found = conn.execute(select(project.c.id).where(project.c.name == name)).scalar()
        if found is not None:
            return str(found)
        new_id = str(uuid.uuid4())
        conn.execute(insert(project).values(id=new_id, name=name, created_at=self._now()))
        return new_id

    def _key(self, row: object) -> StackUserKey:
        mapping = row._mapping  # type: ignore[attr-defined]
        secret = str(mapping["secret"])
        if mapping["decrypt_method"]:
            secret = self._secrets.decrypt(
                mapping["decrypt_method"], secret,
                what=f"the secret key of stack user {mapping['access_key']}")
        return StackUserKey(
            access_key=str(mapping["access_key"]), secret=secret,
            resource_id=int(mapping["resource_id"]), stack_id=str(mapping["stack_id"]),
            stack_name=str(mapping["stack_name"]), resource_name=str(mapping["resource_name"]),
            project=str(mapping["project"]))

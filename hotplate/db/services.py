"""The engine registry (service rows with a heartbeat) and stored user credentials.

A stack's trust id is written by ``create_user_creds`` and read back by
``get_user_creds`` only: the two places that encrypt and decrypt it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, update

from hotplate.db import schema as s
from hotplate.db.base import StoreBase
from hotplate.db.rows import inserted_id, to_service
from hotplate.model.ids import EngineId
from hotplate.model.records import ServiceRecord, UserCreds

USER_CREDS_FIELDS = frozenset(
    {
        "username",
        "password",
        "region_name",
        "decrypt_method",
        "tenant",
        "auth_url",
        "tenant_id",
        "trust_id",
        "trustor_user_id",
    }
)
_USER_CREDS_ALIASES = {"decryption_method": "decrypt_method"}
_SECRET_CREDS = ("password", "trust_id")
_CREDS_LENGTH = 255
"""The width of the password and trust_id columns, which hold them encrypted."""


class ServiceStore(StoreBase):
    def register_service(
        self,
        engine_id: EngineId,
        host: str,
        hostname: str,
        binary: str,
        topic: str,
        report_interval: int,
    ) -> None:
        row = {
            "id": str(uuid.uuid4()),
            "engine_id": engine_id,
            "host": host,
            "hostname": hostname,
            "binary": binary,
            "topic": topic,
            "report_interval": report_interval,
            "created_at": self._now(),
        }
        self._tx.write(lambda conn: conn.execute(insert(s.service), row))

    def heartbeat_service(self, engine_id: EngineId) -> bool:
        sv = s.service
        statement = (
            update(sv)
            .where(sv.c.engine_id == engine_id, sv.c.deleted_at.is_(None))
            .values(updated_at=self._now())
        )
        return bool(self._tx.write(lambda conn: conn.execute(statement).rowcount))

    def delete_service(self, engine_id: EngineId) -> None:
        """Soft delete, as Heat does: the row stays, hidden from list_services."""
        sv = s.service
        statement = (
            update(sv)
            .where(sv.c.engine_id == engine_id, sv.c.deleted_at.is_(None))
            .values(deleted_at=self._now())
        )
        self._tx.write(lambda conn: conn.execute(statement))

    def delete_stale_services(self, host: str, hostname: str, binary: str,
                              reported_before: datetime) -> int:
        """Soft delete the rows of ``host``/``hostname``/``binary`` whose last report
        (their start, if they never reported) is older than ``reported_before``.

        Heat's service_manage_cleanup: an engine of this host that stopped
        reporting is taken for dead. Returns how many rows went.
        """
        sv = s.service
        statement = (
            update(sv)
            .where(sv.c.host == host, sv.c.hostname == hostname, sv.c.binary == binary,
                   sv.c.deleted_at.is_(None),
                   func.coalesce(sv.c.updated_at, sv.c.created_at) < reported_before)
            .values(deleted_at=self._now())
        )
        return int(self._tx.write(lambda conn: conn.execute(statement).rowcount))

    def delete_services_down(self, now: datetime) -> list[ServiceRecord]:
        """Soft delete every service row that reads ``down`` at ``now``
        (``ServiceRecord.is_up``): ``heat-manage service clean``. Returns them.

        Each row goes only if it is still silent when it is deleted: an engine
        that reports between the read and the write keeps its row.
        """
        sv = s.service
        down = [row for row in self.list_services() if not row.is_up(now)]
        deleted = self._now()

        def run(conn: Connection) -> list[ServiceRecord]:
            gone = []
            for row in down:
                cutoff = now - timedelta(seconds=2 * row.report_interval)
                still_silent = conn.execute(
                    update(sv)
                    .where(sv.c.id == row.id, sv.c.deleted_at.is_(None),
                           func.coalesce(sv.c.updated_at, sv.c.created_at) < cutoff)
                    .values(deleted_at=deleted)).rowcount
                if still_silent:
                    gone.append(row)
            return gone

        return self._tx.write(run) if down else []

    def list_services(self) -> list[ServiceRecord]:
        sv = s.service
        query = select(sv).where(sv.c.deleted_at.is_(None)).order_by(sv.c.created_at, sv.c.id)
        rows = self._tx.read(lambda conn: conn.execute(query).mappings().all())
        return [to_service(row) for row in rows]

    # -- user credentials ----------------------------------------------------
    def create_user_creds(self, values: Mapping[str, Any]) -> int:
        """Insert credentials; keys are user_creds column names. The password and the
        trust id are stored encrypted, as Heat stores them (``decrypt_method``).

        Raises:
            ValueError: an unknown field, or a password too long to store encrypted.
        """
        row: dict[str, Any] = {}
        for key, value in values.items():
            column = _USER_CREDS_ALIASES.get(key, key)
            if column not in USER_CREDS_FIELDS:
                raise ValueError(f"user_creds has no field {key!r}")
            row[column] = value
        row["decrypt_method"] = None
        for column in _SECRET_CREDS:
            if row.get(column) is not None:
                row["decrypt_method"], row[column] = self._secrets.encrypt(str(row[column]))
                if len(row[column]) > _CREDS_LENGTH:
                    raise ValueError(f"the {column} is too long: encrypted, it exceeds "
                                     f"the {_CREDS_LENGTH} characters it is stored in")
        row["created_at"] = self._now()

        def run(conn: Connection) -> int:
            return int(inserted_id(conn.execute(insert(s.user_creds).values(row))))

        return self._tx.write(run)

    def get_user_creds(self, creds_id: int) -> UserCreds | None:
        """The stored credentials (the trust, in Keystone mode), the password and trust
        id decrypted; None once deleted.

        Raises:
            EncryptionKeyError: they were encrypted with another key.
        """
        uc = s.user_creds
        query = select(uc.c.id, *(uc.c[name] for name in sorted(USER_CREDS_FIELDS))).where(
            uc.c.id == creds_id)
        row = self._tx.read(lambda conn: conn.execute(query).mappings().first())
        if row is None:
            return None
        creds = dict(row)
        method = creds.pop("decrypt_method")
        for column in _SECRET_CREDS:
            if method and creds[column] is not None:
                creds[column] = self._secrets.decrypt(
                    method, creds[column], what=f"the {column} of user_creds {creds_id}")
        return UserCreds(id=int(creds["id"]), trust_id=creds["trust_id"],
                         trustor_user_id=creds["trustor_user_id"], tenant_id=creds["tenant_id"],
                         tenant=creds["tenant"], auth_url=creds["auth_url"],
                         region_name=creds["region_name"], username=creds["username"],
                         password=creds["password"])

    def replace_user_creds(self, old_id: int, new_id: int) -> int:
        """Every stack holding ``old_id`` (a root and its nested stacks) now holds
        ``new_id``; the old row goes. Returns how many stacks changed."""
        st, uc = s.stack, s.user_creds

        def run(conn: Connection) -> int:
            moved = conn.execute(update(st).where(st.c.user_creds_id == old_id)
                                 .values(user_creds_id=new_id)).rowcount
            conn.execute(delete(uc).where(uc.c.id == old_id))
            return int(moved)

        return self._tx.write(run)

    def orphan_user_creds(self, created_before: datetime, limit: int = 100) -> list[int]:
        """Credentials no stack holds, made before ``created_before``: a create whose
        engine died between making its trust and writing its stack left them."""
        st, uc = s.stack, s.user_creds
        held = select(st.c.id).where(st.c.user_creds_id == uc.c.id).exists()
        query = (select(uc.c.id).where(uc.c.created_at < created_before, ~held)
                 .order_by(uc.c.id).limit(limit))
        return [int(i) for i in self._tx.read(lambda conn: conn.execute(query).scalars().all())]

    def user_creds_held_elsewhere(self, creds_id: int, stack_id: str) -> bool:
        """Whether a live stack other than ``stack_id`` holds the credentials (a stack
        an OS::Heat::Stack made in this region acts with its parent's)."""
        st = s.stack
        query = select(st.c.id).where(st.c.user_creds_id == creds_id, st.c.id != stack_id,
                                      st.c.deleted_at.is_(None)).limit(1)
        return self._tx.read(lambda conn: conn.execute(query).first()) is not None

    def delete_user_creds(self, creds_id: int) -> None:
        """Delete the credentials; stacks that pointed at them keep a NULL reference."""
        st, uc = s.stack, s.user_creds

        def run(conn: Connection) -> None:
            unlink = update(st).where(st.c.user_creds_id == creds_id).values(user_creds_id=None)
            conn.execute(unlink)
            conn.execute(delete(uc).where(uc.c.id == creds_id))

        self._tx.write(run)

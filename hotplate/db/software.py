"""Software configs and deployments in the database, and the metadata push to a server.

Every public method is one transaction. The one compare-and-swap here writes a
server's deployments into its resource row's metadata (SPEC.md 5.3)::

    method                   statement and condition                    loser gets
    -----------------------  -----------------------------------------  ----------
    push_server_metadata     UPDATE resource SET rsrc_metadata = ?,     re-reads and
                               atomic_key = atomic_key + 1               asks again,
                               WHERE id = ? AND atomic_key = <read>      up to RETRIES

As in Heat, the swap is on ``atomic_key`` alone: it serialises against every
other write of the row (signals, convergence writes all bump the key), so two
pushes for one server never lose each other's deployments.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy import Connection, RowMapping, delete, insert, select, update

from hotplate.db import schema as s
from hotplate.db.base import StoreBase
from hotplate.model.software import SoftwareConfigRecord, SoftwareDeploymentRecord

__all__ = ["CONFIG_REFERENCED", "PUSH_RETRIES", "SoftwareStore"]

PUSH_RETRIES = 50
"""Compare-and-swap rounds a metadata push tries before it gives up on a busy row."""

CONFIG_REFERENCED = "referenced"
"""``delete_software_config``'s answer when a deployment still uses the config."""

_DEPLOYMENT_FIELDS = frozenset({
    "config_id", "input_values", "output_values", "action", "status", "status_reason",
    "updated_at",
})


def _config(row: RowMapping) -> SoftwareConfigRecord:
    return SoftwareConfigRecord(
        id=row["id"], name=row["name"], group=row["group"], config=dict(row["config"] or {}),
        tenant=row["tenant"], created_at=row["created_at"], updated_at=row["updated_at"])


def _deployment(row: RowMapping) -> SoftwareDeploymentRecord:
    return SoftwareDeploymentRecord(
        id=row["id"], config_id=row["config_id"], server_id=row["server_id"],
        input_values=row["input_values"], output_values=row["output_values"],
        action=row["action"], status=row["status"], status_reason=row["status_reason"],
        tenant=row["tenant"], stack_user_project_id=row["stack_user_project_id"],
        created_at=row["created_at"], updated_at=row["updated_at"])


def _visible(table: Any, project: str | None) -> list[Any]:
    """Rows a project sees: its own, and (deployments) those of its stack-user project."""
    if project is None:
        return []
    if table is s.software_deployment:
        return [(table.c.tenant == project) | (table.c.stack_user_project_id == project)]
    return [table.c.tenant == project]


class SoftwareStore(StoreBase):
    """The software_config and software_deployment tables. ``project`` None: an admin,
    who sees every project's rows."""

    # -- configs -------------------------------------------------------------------
    def create_software_config(self, config_id: str, *, name: str | None, group: str | None,
                               config: Mapping[str, Any], tenant: str) -> SoftwareConfigRecord:
        record = SoftwareConfigRecord(id=config_id, name=name, group=group,
                                      config=dict(config), tenant=tenant,
                                      created_at=self._now())
        row: dict[str, Any] = {field: getattr(record, field)
                               for field in SoftwareConfigRecord.__slots__}
        self._tx.write(lambda conn: conn.execute(insert(s.software_config), row))
        return record

    def get_software_config(self, config_id: str,
                            project: str | None = None) -> SoftwareConfigRecord | None:
        t = s.software_config
        query = select(t).where(t.c.id == config_id, *_visible(t, project))
        row = self._tx.read(lambda conn: conn.execute(query).mappings().first(),
                            single_statement=True)
        return _config(row) if row is not None else None

    def list_software_configs(self, project: str | None, *, limit: int | None = None,
                              marker: str | None = None) -> list[SoftwareConfigRecord]:
        """Oldest first, as Heat pages them; ``marker`` the id the page starts after."""
        t = s.software_config

        def run(conn: Connection) -> list[SoftwareConfigRecord]:
            query = select(t).where(*_visible(t, project))
            if marker:
                start = conn.execute(select(t.c.created_at, t.c.id).where(
                    t.c.id == marker)).first()
                if start is not None:
                    query = query.where((t.c.created_at > start[0])
                                        | ((t.c.created_at == start[0]) & (t.c.id > start[1])))
            query = query.order_by(t.c.created_at, t.c.id)
            if limit is not None:
                query = query.limit(limit)
            return [_config(row) for row in conn.execute(query).mappings()]

        return self._tx.read(run)

    def delete_software_config(self, config_id: str, project: str | None = None
                               ) -> str | None:
        """"deleted"; ``CONFIG_REFERENCED`` when a deployment uses it; None if not found."""
        t, d = s.software_config, s.software_deployment

        def run(conn: Connection) -> str | None:
            found = conn.execute(select(t.c.id).where(t.c.id == config_id,
                                                      *_visible(t, project))).first()
            if found is None:
                return None
            if conn.execute(select(d.c.id).where(d.c.config_id == config_id)).first():
                return CONFIG_REFERENCED
            conn.execute(delete(t).where(t.c.id == config_id))
            return "deleted"

        return self._tx.write(run)

    # -- deployments ---------------------------------------------------------------
    def create_software_deployment(self, values: Mapping[str, Any]
                                   ) -> SoftwareDeploymentRecord | None:
        """Insert a deployment; None when its config does not exist (or is not visible)."""
        t = s.software_config
        row: dict[str, Any] = {
            "input_values": None, "output_values": None, "action": None, "status": None,
            "status_reason": None, "stack_user_project_id": None, **values,
            "created_at": self._now(), "updated_at": None}

        def run(conn: Connection) -> bool:
            if conn.execute(select(t.c.id).where(t.c.id == row["config_id"])).first() is None:
                return False
            conn.execute(insert(s.software_deployment), row)
            return True

        return SoftwareDeploymentRecord(**row) if self._tx.write(run) else None

    def get_software_deployment(self, deployment_id: str, project: str | None = None
                                ) -> SoftwareDeploymentRecord | None:
        d = s.software_deployment
        query = select(d).where(d.c.id == deployment_id, *_visible(d, project))
        row = self._tx.read(lambda conn: conn.execute(query).mappings().first(),
                            single_statement=True)
        return _deployment(row) if row is not None else None

    def list_software_deployments(self, project: str | None, server_id: str | None = None
                                  ) -> list[SoftwareDeploymentRecord]:
        d = s.software_deployment
        query = select(d).where(*_visible(d, project))
        if server_id:
            query = query.where(d.c.server_id == server_id)
        query = query.order_by(d.c.created_at, d.c.id)
        return self._tx.read(lambda conn: [_deployment(r) for r in
                                           conn.execute(query).mappings()])

    def server_configs(self, server_id: str, project: str | None = None
                       ) -> list[SoftwareConfigRecord]:
        """The configs of every deployment to ``server_id``, in deployment order."""
        d, t = s.software_deployment, s.software_config
        query = (select(t).join(d, d.c.config_id == t.c.id)
                 .where(d.c.server_id == server_id, *_visible(d, project))
                 .order_by(d.c.created_at, d.c.id))
        return self._tx.read(lambda conn: [_config(r) for r in conn.execute(query).mappings()])

    def update_software_deployment(self, deployment_id: str, values: Mapping[str, Any]
                                   ) -> SoftwareDeploymentRecord | None:
        """Write the given fields (``updated_at`` defaults to now); None if not found."""
        unknown = set(values) - _DEPLOYMENT_FIELDS
        if unknown:
            raise ValueError(f"not a deployment field: {', '.join(sorted(unknown))}")
        d = s.software_deployment
        changes = {"updated_at": self._now(), **values}

        def run(conn: Connection) -> RowMapping | None:
            if conn.execute(update(d).where(d.c.id == deployment_id)
                            .values(changes)).rowcount == 0:
                return None
            return conn.execute(select(d).where(d.c.id == deployment_id)).mappings().first()

        row = self._tx.write(run)
        return _deployment(row) if row is not None else None

    def delete_software_deployment(self, deployment_id: str) -> bool:
        d = s.software_deployment
        return bool(self._tx.write(
            lambda conn: conn.execute(delete(d).where(d.c.id == deployment_id)).rowcount))

    # -- the metadata push -------------------------------------------------------------
    def server_exists(self, server_id: str, project: str) -> bool:
        """Whether a resource of a live stack of ``project`` has the physical id
        ``server_id``, not replaced and not deleted: one SELECT."""
        r, st = s.resource, s.stack
        find = (select(r.c.id).join(st, st.c.id == r.c.stack_id)
                .where(r.c.nova_instance == server_id, r.c.replaced_by.is_(None),
                       st.c.deleted_at.is_(None), st.c.tenant == project,
                       ~((r.c.action == "DELETE") & (r.c.status == "COMPLETE")))
                .limit(1))
        return self._tx.read(lambda conn: conn.execute(find).first(),
                             single_statement=True) is not None

    def push_server_metadata(self, server_id: str, project: str | None,
                             deployments: Callable[[], list[dict[str, Any]]]) -> bool:
        """Set ``deployments`` into the metadata of the resource whose physical id is
        ``server_id`` (in a live stack of ``project``; any project for None).

        ``deployments()`` is asked again after each lost swap, so what is written
        is what the database held when the swap won. A server being deleted is
        left alone, as Heat does. False: no such server, or it stayed busy.
        """
        r, st = s.resource, s.stack
        find = (select(r.c.id, r.c.rsrc_metadata, r.c.atomic_key, r.c.action)
                .join(st, st.c.id == r.c.stack_id)
                .where(r.c.nova_instance == server_id, r.c.replaced_by.is_(None),
                       st.c.deleted_at.is_(None),
                       *([st.c.tenant == project] if project is not None else []))
                .order_by(r.c.id.desc()).limit(1))
        for _ in range(PUSH_RETRIES):
            row = self._tx.read(lambda conn: conn.execute(find).mappings().first(),
                                single_statement=True)
            if row is None or row["action"] == "DELETE":
                return False
            metadata = dict(row["rsrc_metadata"] or {})
            metadata["deployments"] = deployments()
            swap = (update(r).where(r.c.id == row["id"], r.c.atomic_key == row["atomic_key"])
                    .values(rsrc_metadata=metadata, atomic_key=r.c.atomic_key + 1))
            if self._swap(swap):
                return True
        return False

    def _swap(self, statement: Any) -> bool:
        return bool(self._tx.write(lambda conn: conn.execute(statement).rowcount))

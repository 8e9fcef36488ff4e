"""One import: which of Heat's stacks come over, which are refused and why.

Each root stack with everything nested under it is one unit: read from Heat
in one read-only transaction, checked, then written here in one transaction
with its import record, so a failure at any point leaves each tree either
as it was or wholly imported. Refusals name the stack and say what blocks it;
the other trees are imported all the same.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, delete, insert, select, update

from hotplate.db import schema as s
from hotplate.db.crypt import EncryptionKeyError, SecretBox
from hotplate.db.purge import purge_stacks
from hotplate.db.tx import Rollback, Transactions
from hotplate.heat_import.analysis import TreeAnalysis, analyse
from hotplate.heat_import.source import HeatDatabase, HeatService, HeatTree, shown_url
from hotplate.heat_import.translate import HeatKey
from hotplate.heat_import.writer import (
    TreeWriter,
    heat_fingerprint,
    local_fingerprint,
    local_stack_ids,
)

LOG = logging.getLogger(__name__)

IMPORTED, UPDATED, UNCHANGED, REFUSED, REMOVED = (
    "imported", "updated", "unchanged", "refused", "removed")


class HeatStillRunning(RuntimeError):
    """A Heat engine still reports alive: nothing is imported while Heat may change it."""


@dataclass(frozen=True)
class Outcome:
    stack_id: str
    name: str
    verdict: str
    detail: str = ""

    def line(self) -> str:
        text = f"{self.verdict:<9} {self.name} ({self.stack_id})"
        return f"{text}: {self.detail}" if self.detail else text


def alive_engines(services: Iterable[HeatService], now: datetime) -> list[HeatService]:
    """Heat's own test of a service being up: seen within twice its report interval."""
    return [svc for svc in services
            if svc.binary in ("heat-engine", "heat_engine", "heat.engine")
            and now - svc.last_seen <= timedelta(seconds=2 * svc.report_interval)]


def busy(tree: HeatTree) -> str | None:
    """Why Heat may still be working on the tree, or None."""
    for stack in tree.stacks:
        if stack["status"] == "IN_PROGRESS":
            where = "" if stack is tree.root else f" (nested stack {stack['name']})"
            return (f"{stack['action']}_IN_PROGRESS in Heat{where}: import it once the "
                    "operation has finished")
    for snap in tree.snapshots:
        if snap["status"] == "IN_PROGRESS":
            return f"its snapshot {snap['id']} is {snap['action']}_IN_PROGRESS in Heat"
    if tree.locks:
        return f"its stack lock is held by Heat engine {tree.locks[0]['engine_id']}"
    return None


@dataclass
class Importer:
    heat: HeatDatabase
    engine: Engine
    heat_key: HeatKey
    ours: SecretBox
    types: Any
    implicit: Any
    clock: Callable[[], datetime]
    dry_run: bool = False

    def run(self) -> list[Outcome]:
        self.heat.check_schema()
        now = self.clock()
        alive = alive_engines(self.heat.services(), now)
        if alive:
            names = ", ".join(f"{svc.engine_id} on {svc.host} (last seen "
                              f"{svc.last_seen:%Y-%m-%d %H:%M:%S})" for svc in alive)
            raise HeatStillRunning(f"Heat engines still report alive: {names}. Stop every "
                                   "heat-engine before importing (they report down after "
                                   "twice their report_interval)")
        stacks = self.heat.live_stacks()
        live = {row["id"] for row in stacks}
        outcomes = [self._one(row) for row in stacks
                    if row["owner_id"] is None or row["owner_id"] not in live]
        outcomes += self._gone({row["id"] for row in stacks if row["owner_id"] is None})
        if not self.dry_run:
            self._software()
        return outcomes

    def _one(self, root: dict[str, Any]) -> Outcome:
        def outcome(verdict: str, detail: str = "") -> Outcome:
            return Outcome(root["id"], root["name"], verdict, detail)

        if root["owner_id"] is not None:
            return outcome(REFUSED, f"its parent stack {root['owner_id']} is deleted in Heat")
        tree = self.heat.tree(root["id"])
        if tree is None:
            return outcome(REFUSED, "deleted in Heat while this import ran")
        why = busy(tree)
        if why is not None:
            return outcome(REFUSED, why)
        try:
            analysis = analyse(tree, self.heat_key, self.types, self.implicit)
            if analysis.unavailable:
                return outcome(REFUSED,
                               "hotplate cannot serve " + "; ".join(analysis.unavailable))
            verdict, detail = Transactions(self.engine).write(
                lambda conn: self._write(conn, tree, analysis))
        except EncryptionKeyError as exc:
            return outcome(REFUSED, str(exc))
        except Exception as exc:  # this tree only: nothing of it written, the others go on
            LOG.exception("stack %s (%s) could not be imported", root["name"], root["id"])
            return outcome(REFUSED, f"could not be brought over ({type(exc).__name__}: "
                                    f"{str(exc)[:300]}); nothing of it was written")
        return outcome(verdict, detail)

    def _write(self, conn: Connection, tree: HeatTree, analysis: TreeAnalysis,
               ) -> tuple[str, str]:
        root = tree.root
        heat_fp = heat_fingerprint(tree)
        record = conn.execute(select(s.heat_import).where(
            s.heat_import.c.stack_id == root["id"])).first()
        verdict = IMPORTED
        if record is not None:
            if record.heat_fingerprint == heat_fp:
                return UNCHANGED, ""
            ours = local_stack_ids(conn, root["id"])
            if local_fingerprint(conn, ours) != record.local_fingerprint:
                raise Rollback((REFUSED, "changed in Heat and in hotplate since it was "
                                         "imported: hotplate's copy is left as it is"))
            if not self.dry_run:
                purge_stacks(conn, ours)
            verdict = UPDATED
        else:
            clash = self._clash(conn, tree)
            if clash is not None:
                raise Rollback((REFUSED, clash))
        if self.dry_run:
            raise Rollback((verdict, f"{len(tree.stacks)} stacks, {len(tree.resources)} "
                                     "resources (dry run: nothing written)"))
        now = self.clock()
        written = TreeWriter(conn, tree, analysis, self.heat_key, self.ours, now).write()
        local = local_fingerprint(conn, local_stack_ids(conn, root["id"]))
        values = {"heat_fingerprint": heat_fp, "local_fingerprint": local,
                  "source": shown_url(self.heat.url)}
        if record is None:
            conn.execute(insert(s.heat_import).values(stack_id=root["id"], created_at=now,
                                                      **values))
        else:
            conn.execute(update(s.heat_import).where(s.heat_import.c.stack_id == root["id"])
                         .values(updated_at=now, **values))
        return verdict, (f"{written.stacks} stacks, {written.resources} resources, "
                         f"{written.events} events, {written.snapshots} snapshots")

    def _clash(self, conn: Connection, tree: HeatTree) -> str | None:
        st = s.stack
        ids = [row["id"] for row in tree.stacks]
        taken = conn.execute(select(st.c.id, st.c.name).where(st.c.id.in_(ids))).first()
        if taken is not None:
            return (f"hotplate already has a stack with id {taken.id} ({taken.name}) "
                    "that no import made")
        root = tree.root
        named = conn.execute(select(st.c.id).where(
            st.c.name == root["name"], st.c.tenant == root["tenant"],
            st.c.owner_id.is_(None), st.c.deleted_at.is_(None))).first()
        if named is not None:
            return (f"hotplate already has a stack named {root['name']} in project "
                    f"{root['tenant']} (id {named.id})")
        return None

    def _gone(self, heat_roots: set[str]) -> list[Outcome]:
        """Trees imported before from this database whose root it no longer has: deleted
        in Heat, they go here too, unless hotplate has acted on them since."""
        def read(conn: Connection) -> list[Any]:
            return list(conn.execute(select(s.heat_import)).all())

        outcomes: list[Outcome] = []
        source = shown_url(self.heat.url)
        for record in Transactions(self.engine).read(read):
            if record.stack_id in heat_roots or record.source != source:
                continue  # another Heat's stacks are not this one's to remove
            outcomes.append(self._remove(record))
        return outcomes

    def _remove(self, record: Any) -> Outcome:
        def write(conn: Connection) -> Outcome:
            ours = local_stack_ids(conn, record.stack_id)
            name = conn.execute(select(s.stack.c.name).where(
                s.stack.c.id == record.stack_id)).scalar() or "?"
            if local_fingerprint(conn, ours) != record.local_fingerprint:
                return Outcome(record.stack_id, name, REFUSED,
                               "deleted in Heat, but hotplate has acted on it since it was "
                               "imported: hotplate's copy is left as it is")
            if self.dry_run:
                raise Rollback(Outcome(record.stack_id, name, REMOVED, "dry run"))
            purge_stacks(conn, ours)
            conn.execute(delete(s.heat_import).where(
                s.heat_import.c.stack_id == record.stack_id))
            return Outcome(record.stack_id, name, REMOVED, "deleted in Heat since the import")

        result: Outcome = Transactions(self.engine).write(write)
        return result

    def _software(self) -> None:
        configs, deployments = self.heat.software()

        def write(conn: Connection) -> None:
            known = set(conn.execute(select(s.software_config.c.id)).scalars())
            for row in configs:
                if row["id"] not in known:
                    conn.execute(insert(s.software_config).values(**row))
            have = {r.id: r for r in conn.execute(select(s.software_deployment))}
            for row in deployments:
                if row["id"] not in have:
                    conn.execute(insert(s.software_deployment).values(**row))
                elif _differs(have[row["id"]], row):
                    conn.execute(update(s.software_deployment)
                                 .where(s.software_deployment.c.id == row["id"])
                                 .values(**{k: v for k, v in row.items() if k != "id"}))

        Transactions(self.engine).write(write)


def _differs(ours: Any, heat: dict[str, Any]) -> bool:
    return any(getattr(ours, key) != value for key, value in heat.items()
               if key in ("action", "status", "status_reason", "output_values",
                          "input_values", "config_id"))

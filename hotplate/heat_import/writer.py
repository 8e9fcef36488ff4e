"""Writing one Heat stack tree into hotplate's database, inside the caller's transaction.

Ids Heat's users see stay as they are: stack, resource and event uuids,
snapshot, software config and deployment ids. Integer ids (templates,
credentials, resource rows) are hotplate's own, and every reference to them
(a row's ``requires``, ``replaces``, ``current_template_id``, a traversal's
graph) is carried over through the maps built here.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func, insert, select, update

from hotplate.db import schema as s
from hotplate.db.crypt import SecretBox, is_sealed
from hotplate.db.rows import inserted_id
from hotplate.db.stack_users import KEYSTONE_HELD
from hotplate.heat_import.analysis import TreeAnalysis
from hotplate.heat_import.source import HeatTree
from hotplate.heat_import.translate import (
    HeatKey,
    current_deps,
    environment,
    plain_properties,
    resource_data,
    resource_types_in,
    stored_properties,
    user_creds,
)

ACCESS_KEY = "access_key"
"""The resource data key under which Heat keeps a stack user's EC2 access key."""
FALLBACK_TYPE = "OS::Heat::None"
"""A row's type when no template nor event of its stack names it (a leftover row)."""


@dataclass(frozen=True)
class Written:
    stacks: int
    resources: int
    events: int
    snapshots: int


def heat_fingerprint(tree: HeatTree) -> str:
    """A digest of everything read from Heat for the tree: equal digests, nothing changed."""
    document = json.dumps(tree.__dict__, sort_keys=True, default=str)
    return hashlib.sha256(document.encode("utf-8")).hexdigest()


def local_stack_ids(conn: Connection, root_id: str) -> list[str]:
    """The stack ``root_id`` here and every stack nested under it, deleted ones too."""
    st = s.stack
    found: list[str] = []
    layer = [root_id] if conn.execute(select(st.c.id).where(st.c.id == root_id)).first() \
        else []
    while layer:
        found += layer
        layer = list(conn.execute(select(st.c.id).where(st.c.owner_id.in_(layer))).scalars())
    return found


def local_fingerprint(conn: Connection, stack_ids: list[str]) -> str:
    """A digest of what hotplate's own actions change in a tree: its stacks' states and
    traversals, their resources' states and lock keys, their events."""
    if not stack_ids:
        return hashlib.sha256(b"[]").hexdigest()
    st, r, ev = s.stack, s.resource, s.event
    stacks = conn.execute(select(
        st.c.id, st.c.action, st.c.status, st.c.status_reason, st.c.current_traversal,
        st.c.raw_template_id, st.c.updated_at, st.c.deleted_at,
    ).where(st.c.id.in_(stack_ids)).order_by(st.c.id)).all()
    rows = conn.execute(select(r.c.uuid, r.c.action, r.c.status, r.c.atomic_key,
                               r.c.nova_instance).where(r.c.stack_id.in_(stack_ids))
                        .order_by(r.c.uuid)).all()
    events = conn.execute(select(ev.c.stack_id, func.count(), func.max(ev.c.id))
                          .where(ev.c.stack_id.in_(stack_ids))
                          .group_by(ev.c.stack_id).order_by(ev.c.stack_id)).all()
    document = json.dumps([[list(x) for x in stacks], [list(x) for x in rows],
                           [list(x) for x in events]], default=str)
    return hashlib.sha256(document.encode("utf-8")).hexdigest()


class TreeWriter:
    """Inserts one tree; ``write`` returns what it wrote."""

    def __init__(self, conn: Connection, tree: HeatTree, analysis: TreeAnalysis,
                 heat: HeatKey, ours: SecretBox, now: datetime) -> None:
        self.conn = conn
        self.tree = tree
        self.analysis = analysis
        self.heat = heat
        self.ours = ours
        self.now = now
        self.templates: dict[int, int] = {}
        self.creds: dict[int, int] = {}
        self.rows: dict[int, int] = {}

    def write(self) -> Written:
        for heat_id, raw in sorted(self.tree.templates.items()):
            self.templates[heat_id] = self._template(heat_id, raw)
        for heat_id, cred in sorted(self.tree.user_creds.items()):
            self.creds[heat_id] = inserted_id(self.conn.execute(
                insert(s.user_creds).values(**user_creds(cred, self.heat, self.ours))))
        for stack in self.tree.stacks:
            self._stack(stack)
        resources = self._resources()
        self._events()
        self._snapshots()
        return Written(len(self.tree.stacks), resources, len(self.tree.events),
                       len(self.tree.snapshots))

    def _template(self, heat_id: int, raw: Mapping[str, Any]) -> int:
        env = environment(raw["environment"], self.heat, self.ours,
                          what=f"Heat's template {heat_id}")
        return int(inserted_id(self.conn.execute(insert(s.raw_template).values(
            template=raw["template"], files=raw["files"], environment=env,
            created_at=raw.get("created_at") or self.now))))

    def _stack(self, row: Mapping[str, Any]) -> None:
        creds = self.tree.user_creds.get(row["user_creds_id"] or -1) or {}
        self.conn.execute(insert(s.stack).values(
            id=row["id"], name=row["name"],
            raw_template_id=self.templates[row["raw_template_id"]],
            prev_raw_template_id=self.templates.get(row["prev_raw_template_id"] or -1),
            username=row["username"], user_id=creds.get("trustor_user_id"),
            tenant=row["tenant"], user_creds_id=self.creds.get(row["user_creds_id"] or -1),
            owner_id=row["owner_id"], parent_resource_name=row["parent_resource_name"],
            timeout=row["timeout"], disable_rollback=bool(row["disable_rollback"]),
            stack_user_project_id=row["stack_user_project_id"],
            nested_depth=row["nested_depth"] or 0, convergence=bool(row["convergence"]),
            current_traversal=row["current_traversal"] or "", current_deps=None,
            action=row["action"], status=row["status"], status_reason=row["status_reason"],
            created_at=row["created_at"], updated_at=row["updated_at"], deleted_at=None))
        tags = [{"stack_id": row["id"], "tag": tag, "created_at": self.now}
                for tag in self.tree.tags.get(row["id"], ())]
        if tags:
            self.conn.execute(insert(s.stack_tag), tags)

    def _resources(self) -> int:
        stacks = {st["id"]: st for st in self.tree.stacks}
        written = 0
        for row in self.tree.resources:
            if row["id"] in self.analysis.dropped:
                continue
            stack = stacks[row["stack_id"]]
            self.rows[row["id"]] = self._resource(row, stack)
            written += 1
        for row in self.tree.resources:
            new_id = self.rows.get(row["id"])
            if new_id is None:
                continue
            heat_requires = self.analysis.legacy_requires.get(row["id"], row["requires"] or ())
            values = {
                "requires": [self.rows[i] for i in heat_requires if i in self.rows],
                "replaces": self.rows.get(row["replaces"] or -1),
                "replaced_by": self.rows.get(row["replaced_by"] or -1),
            }
            if any(values.values()):
                self.conn.execute(update(s.resource).where(s.resource.c.id == new_id)
                                  .values(**values))
        for stack in self.tree.stacks:
            deps = current_deps(stack["current_deps"], self.rows)
            if deps is not None:
                self.conn.execute(update(s.stack).where(s.stack.c.id == stack["id"])
                                  .values(current_deps=deps))
        for data in self.tree.resource_data:
            new_id = self.rows.get(data["resource_id"])
            if new_id is not None:
                self.conn.execute(insert(s.resource_data).values(
                    resource_id=new_id, **resource_data(data, self.heat, self.ours)))
                if data["key"] == ACCESS_KEY and data["value"]:
                    self._stack_user_key(data, new_id, stacks)
        return written

    def _stack_user_key(self, data: Mapping[str, Any], new_id: int,
                        stacks: Mapping[str, Mapping[str, Any]]) -> None:
        """Note whose EC2 key it is, as hotplate notes the keys it makes in Keystone: the
        CFN API then lets the agents of an imported server sign with it (Keystone checks
        the signature)."""
        access = data["value"]
        if data.get("redact") and data.get("decrypt_method"):
            access = self.heat.decrypt(data["decrypt_method"], access,
                                       what=f"resource data {ACCESS_KEY!r}")
        row = next(r for r in self.tree.resources if r["id"] == data["resource_id"])
        stack = stacks[row["stack_id"]]
        self.conn.execute(insert(s.stack_user_key).values(
            access_key=access, secret=KEYSTONE_HELD, decrypt_method=None, resource_id=new_id,
            stack_id=stack["id"], stack_name=stack["name"], resource_name=row["name"],
            project=stack["tenant"], created_at=self.now))

    def _resource(self, row: Mapping[str, Any], stack: Mapping[str, Any]) -> int:
        what = f"resource {row['name']!r} of stack {stack['name']!r}"
        template_id = self.analysis.legacy_templates.get(row["id"], row["current_template_id"])
        properties = self._properties(row, what)
        attr_id = None
        attr = self.tree.properties.get(row["attr_data_id"] or -1)
        if attr is not None:
            plain = plain_properties(attr["data"], attr["encrypted"], self.heat,
                                     what=f"an attribute of {what}")
            stored = stored_properties(plain, self.ours)
            attr_id = inserted_id(self.conn.execute(insert(s.resource_properties_data).values(
                data=stored, encrypted=is_sealed(stored), created_at=attr["created_at"])))
        return int(inserted_id(self.conn.execute(insert(s.resource).values(
            uuid=row["uuid"], nova_instance=row["nova_instance"], name=row["name"],
            type=self._type_of(row, stack), action=row["action"], status=row["status"],
            status_reason=row["status_reason"], stack_id=row["stack_id"],
            rsrc_metadata=row["rsrc_metadata"], properties_data=properties, engine_id=None,
            atomic_key=row["atomic_key"] or 0, requires=[],
            current_template_id=self.templates.get(template_id or -1),
            root_stack_id=row["root_stack_id"], attr_data_id=attr_id,
            created_at=row["created_at"], updated_at=row["updated_at"]))))

    def _properties(self, row: Mapping[str, Any], what: str) -> dict[str, Any] | None:
        found = self.tree.properties.get(row["rsrc_prop_data_id"] or -1)
        if found is not None:
            plain = plain_properties(found["data"], found["encrypted"], self.heat,
                                     what=f"a property of {what}")
        else:
            plain = plain_properties(row["properties_data"], row["properties_data_encrypted"],
                                     self.heat, what=f"a property of {what}")
        cls = self.analysis.classes.get(row["id"])
        if cls is not None:  # Heat stores none at all for a resource given no properties
            # else kept as Heat stored them: an update then compares with these
            with contextlib.suppress(Exception):
                plain = cls.validate(plain or {}, ("resources", row["name"], "properties"))
        return stored_properties(plain, self.ours)

    def _type_of(self, row: Mapping[str, Any], stack: Mapping[str, Any]) -> str:
        for template_id in (row["current_template_id"], stack["raw_template_id"],
                            stack["prev_raw_template_id"]):
            raw = self.tree.templates.get(template_id or -1)
            if raw is not None:
                kind = resource_types_in(raw["template"]).get(row["name"])
                if kind:
                    return kind
        for event in reversed(self.tree.events):
            if (event["stack_id"] == row["stack_id"] and event["resource_name"] == row["name"]
                    and event["resource_type"]):
                return str(event["resource_type"])
        return FALLBACK_TYPE

    def _events(self) -> None:
        rows = [{
            "uuid": e["uuid"], "stack_id": e["stack_id"],
            "resource_action": e["resource_action"], "resource_status": e["resource_status"],
            "resource_name": e["resource_name"], "physical_resource_id": e["physical_resource_id"],
            "resource_status_reason": e["resource_status_reason"],
            "resource_type": e["resource_type"], "rsrc_prop_data_id": None,
            "created_at": e["created_at"], "updated_at": e["updated_at"],
        } for e in self.tree.events]
        if rows:
            self.conn.execute(insert(s.event), rows)

    def _snapshots(self) -> None:
        for snap in self.tree.snapshots:
            self.conn.execute(insert(s.snapshot).values(
                id=snap["id"], stack_id=snap["stack_id"], name=snap["name"],
                data=self._sealed(snap["data"]), tenant=snap["tenant"], action=snap["action"],
                status=snap["status"], status_reason=snap["status_reason"],
                created_at=snap["created_at"], updated_at=snap["updated_at"]))
        for part in self.tree.resource_snapshots:
            self.conn.execute(insert(s.resource_snapshot).values(
                id=part["id"], snapshot_id=part["snapshot_id"],
                resource_name=part["resource_name"], data=self._sealed(part["data"]),
                created_at=part["created_at"], updated_at=part["updated_at"]))

    def _sealed(self, document: Any) -> Any:
        return self.ours.seal(dict(document)) if isinstance(document, Mapping) else document

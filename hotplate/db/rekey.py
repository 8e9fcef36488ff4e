"""Changing what the stored secrets are encrypted with, while the engines are stopped.

Two operator commands, ``hotplate db`` ... (cli/main.py):

- ``rotate-key PREVIOUS_KEY``: every secret stored under the previous
  ``auth_encryption_key`` (stored credentials, stack users' secret keys,
  redacted resource data, encrypted hidden parameters, properties and
  attributes) is stored again under the configured one, and the database's
  key check (``auth_key_check``) follows last. A value already under the new
  key is left as it is, so a rotation that stopped half-way is finished by
  running it again.
- ``update-params encrypt|decrypt [PREVIOUS_KEY]``: Heat's ``heat-manage
  update_params``. After ``encrypt_parameters_and_properties`` is switched on,
  ``encrypt`` stores the hidden parameters and the properties and attributes
  written before in encrypted form (those under PREVIOUS_KEY are moved to the
  configured key); ``decrypt`` stores them all in plaintext again (read with
  PREVIOUS_KEY when given), before the option is switched off.

Rows are read and written in chunks, one transaction each. Both refuse to
run while an engine reports to the database: an engine would write with the
key being replaced, or read values it cannot.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, Table, func, select, update

from hotplate.db import schema as s
from hotplate.db.crypt import METHOD, OPTION, SEALED, EncryptionKeyError, SecretBox, is_sealed
from hotplate.db.key_check import CHECK_TEXT

__all__ = ["EnginesRunning", "hidden_names", "rotate_key", "update_params"]

CHUNK = 200
LIVE_WITHIN = timedelta(minutes=2)
"""An engine that reported this recently may still be running."""
PARAM_NAMES = "encrypted_param_names"


class EnginesRunning(RuntimeError):
    """Engines report to the database: stop them first. One line for the operator."""


def _check_stopped(engine: Engine) -> None:
    since = datetime.now(UTC) - LIVE_WITHIN
    sv = s.service
    with engine.connect() as conn:
        live = conn.execute(select(sv.c.engine_id).where(
            sv.c.deleted_at.is_(None),
            func.coalesce(sv.c.updated_at, sv.c.created_at) >= since)).scalars().all()
    if live:
        raise EnginesRunning(
            f"{len(live)} engine(s) reported to this database in the last "
            f"{int(LIVE_WITHIN.total_seconds())} s ({', '.join(sorted(live)[:3])}...): "
            "stop every engine first")


class _Keys:
    """Reads a stored value with whichever of the keys opens it; writes with ``to``."""

    def __init__(self, to: SecretBox | None, *read: SecretBox | None) -> None:
        self.to = to
        self._read = [box for box in read if box is not None]

    def opens(self, method: str | None, token: str, what: str) -> tuple[str, bool]:
        """The plaintext, and whether ``to`` (the key written with) already opened it."""
        for box in self._read:
            try:
                return box.decrypt(method, token, what=what), box is self.to
            except EncryptionKeyError:
                continue
        raise EncryptionKeyError(f"cannot decrypt {what}: neither key given opens it "
                                 f"({OPTION} and the previous key)")

    def moved(self, method: str | None, token: str, what: str) -> str | None:
        """``token`` under ``to``; None when it is already."""
        plain, current = self.opens(method, token, what)
        if current or self.to is None:
            return None
        return self.to.encrypt(plain)[1]

    def pair(self, pair: Any, what: str) -> tuple[Any, bool]:
        """The JSON value inside an encrypted ``[method, token]`` pair, and whether it is
        under ``to`` already."""
        if not (isinstance(pair, list | tuple) and len(pair) == 2):
            raise EncryptionKeyError(f"cannot decrypt {what}: not an encrypted value")
        plain, current = self.opens(pair[0], pair[1], what)
        return json.loads(plain), current


def _chunks(engine: Engine, table: Table, key: Any, *columns: Any,
            where: Any = None) -> Iterator[tuple[Connection, Sequence[Any]]]:
    """Rows of ``table`` by ``key`` order, a chunk per transaction."""
    after: Any = None
    while True:
        with engine.begin() as conn:
            query = select(key, *columns).order_by(key).limit(CHUNK)
            if where is not None:
                query = query.where(where)
            if after is not None:
                query = query.where(key > after)
            rows = conn.execute(query).all()
            if not rows:
                return
            yield conn, rows
            after = rows[-1][0]


# -- rotate-key ----------------------------------------------------------------------------
def rotate_key(engine: Engine, previous: SecretBox, current: SecretBox) -> Counter[str]:
    """Every secret under ``previous`` stored again under ``current``; how many of each
    kind moved.

    Raises:
        EnginesRunning: an engine reported to the database lately.
        EncryptionKeyError: a value neither key opens, or the database's key check is
            neither key (nothing is changed then).
    """
    _check_stopped(engine)
    keys = _Keys(current, current, previous)
    with engine.connect() as conn:
        row = conn.execute(select(s.auth_key_check)).first()
    checked_new = row is None or keys.opens(row.decrypt_method, row.value,
                                            "the database's key check")[1]
    moved: Counter[str] = Counter()
    _rotate_columns(engine, keys, moved)
    _rotate_parameters(engine, keys, moved, encrypt=None)
    _rotate_documents(engine, keys, moved, encrypt=None)
    if not checked_new:  # last: until here, engines on the new key refuse to start
        method, value = current.encrypt(CHECK_TEXT)
        with engine.begin() as conn:
            conn.execute(update(s.auth_key_check).values(decrypt_method=method, value=value))
        moved["the database's key check"] += 1
    return moved


def _rotate_columns(engine: Engine, keys: _Keys, moved: Counter[str]) -> None:
    """The secrets kept in columns of their own, beside a ``decrypt_method``."""
    places: list[tuple[str, Table, Any, tuple[str, ...]]] = [
        ("stored credentials", s.user_creds, s.user_creds.c.id, ("password", "trust_id")),
        ("stack users' secret keys", s.stack_user_key, s.stack_user_key.c.access_key,
         ("secret",)),
        ("redacted resource data", s.resource_data, s.resource_data.c.id, ("value",)),
    ]
    for kind, table, key, names in places:
        columns = [table.c[name] for name in names]
        for conn, rows in _chunks(engine, table, key, table.c.decrypt_method, *columns,
                                  where=table.c.decrypt_method == METHOD):
            for row in rows:
                changed = {}
                for name in names:
                    value = getattr(row, name)
                    if value is not None:
                        token = keys.moved(row.decrypt_method, value, f"{kind} {row[0]}")
                        if token is not None:
                            changed[name] = token
                if changed:
                    conn.execute(update(table).where(key == row[0]).values(changed))
                    moved[kind] += 1


# -- update-params ---------------------------------------------------------------------------
def update_params(engine: Engine, operation: str, current: SecretBox,
                  previous: SecretBox | None = None) -> Counter[str]:
    """Heat's ``update_params``: hidden parameters, properties and attributes all stored
    encrypted under ``current`` (``encrypt``), or all in plaintext (``decrypt``, read
    with ``previous`` when given, else ``current``). How many rows changed, by kind.

    Raises:
        EnginesRunning: an engine reported to the database lately.
        EncryptionKeyError: a value the key(s) given do not open.
        ValueError: ``operation`` is neither ``encrypt`` nor ``decrypt``.
    """
    if operation not in ("encrypt", "decrypt"):
        raise ValueError(f"update-params: {operation!r} is neither encrypt nor decrypt")
    _check_stopped(engine)
    encrypt = operation == "encrypt"
    keys = (_Keys(current, current, previous) if encrypt
            else _Keys(None, previous or current))
    moved: Counter[str] = Counter()
    _rotate_parameters(engine, keys, moved, encrypt=encrypt)
    _rotate_documents(engine, keys, moved, encrypt=encrypt)
    return moved


def hidden_names(template: Mapping[str, Any]) -> list[str]:
    """The parameters a stored template declares hidden (HOT ``hidden``, CFN ``NoEcho``)."""
    found = []
    for section, flag in (("parameters", "hidden"), ("Parameters", "NoEcho")):
        params = template.get(section)
        if not isinstance(params, Mapping):
            continue
        for name, schema in params.items():
            value = schema.get(flag) if isinstance(schema, Mapping) else None
            if value is True or str(value).lower() == "true":
                found.append(str(name))
    return sorted(found)


def _rotate_parameters(engine: Engine, keys: _Keys, moved: Counter[str], *,
                       encrypt: bool | None) -> None:
    """Hidden parameters in templates' environments. ``encrypt`` None: only move the
    encrypted ones to the new key; True: encrypt every hidden one; False: decrypt all."""
    rt = s.raw_template
    for conn, rows in _chunks(engine, rt, rt.c.id, rt.c.template, rt.c.environment):
        for row in rows:
            env = row.environment
            if not isinstance(env, dict):
                continue
            changed = _parameters_of(row.id, row.template or {}, env, keys, encrypt)
            if changed is not None:
                conn.execute(update(rt).where(rt.c.id == row.id).values(environment=changed))
                moved["templates' hidden parameters"] += 1


def _parameters_of(template_id: int, template: Mapping[str, Any], env: dict[str, Any],
                   keys: _Keys, encrypt: bool | None) -> dict[str, Any] | None:
    names = list(env.get(PARAM_NAMES) or ())
    params = dict(env.get("parameters") or {})
    wanted = names
    if encrypt:
        wanted = sorted(set(names) | {n for n in hidden_names(template) if n in params})
    if not wanted and not names:
        return None
    out = copy.deepcopy(env)
    dirty = False
    for name in wanted:
        what = f"parameter {name!r} of template {template_id}"
        if name in names:
            value, current = keys.pair(params[name], what)
            if current and encrypt is not False:
                continue
        else:
            value = params[name]
        params[name] = keys.to.encrypt_json(value) if keys.to is not None else value
        dirty = True
    if not dirty:
        return None
    out["parameters"] = params
    if keys.to is None:
        out.pop(PARAM_NAMES, None)
    else:
        out[PARAM_NAMES] = wanted
    return out


def _rotate_documents(engine: Engine, keys: _Keys, moved: Counter[str], *,
                      encrypt: bool | None) -> None:
    """Resources' properties and attribute rows (sealed documents, crypt.py)."""
    places: list[tuple[str, Table, Any, Any]] = [
        ("resources' properties", s.resource, s.resource.c.id, s.resource.c.properties_data),
        ("properties and attributes rows", s.resource_properties_data,
         s.resource_properties_data.c.id, s.resource_properties_data.c.data),
    ]
    for kind, table, key, column in places:
        for conn, rows in _chunks(engine, table, key, column, where=column.is_not(None)):
            for row in rows:
                document = _document_of(f"{kind} {row[0]}", row[1], keys, encrypt)
                if document is not None:
                    conn.execute(update(table).where(key == row[0])
                                 .values({column.name: document}))
                    moved[kind] += 1


def _document_of(what: str, document: Any, keys: _Keys, encrypt: bool | None) -> Any:
    if not isinstance(document, dict) or not document:
        return None
    if not is_sealed(document):
        if not encrypt or keys.to is None:
            return None
        return keys.to.seal(document)
    plain: dict[str, Any] = {}
    current = True
    for name, pair in document[SEALED].items():
        plain[name], opened_by_new = keys.pair(pair, f"{what} ({name!r})")
        current = current and opened_by_new
    if keys.to is None:
        return plain
    return None if current else keys.to.seal(plain)


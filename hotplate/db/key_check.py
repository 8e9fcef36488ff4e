"""Which ``auth_encryption_key`` a database's secrets are encrypted with.

The first process that brings a key to a database records a known text
encrypted with it (``auth_key_check``, one row). Every process after it must
decrypt that text with its own key, or it stops before it starts, with a
message naming the option: an engine on another key would read other engines'
secrets as errors and write secrets nobody else could read.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Connection, Engine, insert, select
from sqlalchemy.exc import IntegrityError

from hotplate.db.crypt import OPTION, EncryptionKeyError, SecretBox
from hotplate.db.schema import auth_key_check

CHECK_TEXT = "hotplate auth_encryption_key check"
_ROW = 1


def verify_key(db: Connection | Engine, box: SecretBox) -> None:
    """Record ``box``'s key as the database's, or check that it is the one recorded.

    Raises:
        EncryptionKeyError: the database's secrets were encrypted with another key.
    """
    if isinstance(db, Engine):
        with db.connect() as conn:
            verify_key(conn, box)
            conn.commit()
        return
    found = _stored(db)
    if found is None:
        method, value = box.encrypt(CHECK_TEXT)
        try:
            with db.begin_nested():
                db.execute(insert(auth_key_check).values(
                    id=_ROW, decrypt_method=method, value=value, created_at=datetime.now(UTC)))
            return
        except IntegrityError:
            found = _stored(db)  # another process recorded its key meanwhile: check it
            assert found is not None
    method, value = found
    try:
        matches = box.decrypt(method, value) == CHECK_TEXT
    except EncryptionKeyError:
        matches = False
    if not matches:
        raise EncryptionKeyError(
            f"{OPTION} ({box.source}) is not the key this database's secrets are "
            "encrypted with: every process on one database needs the same key. Set "
            "auth_encryption_key (HOTPLATE_AUTH_ENCRYPTION_KEY) to the key they were "
            "written with")


def _stored(conn: Connection) -> tuple[str, str] | None:
    row = conn.execute(select(auth_key_check.c.decrypt_method, auth_key_check.c.value)
                       .where(auth_key_check.c.id == _ROW)).first()
    return (str(row.decrypt_method), str(row.value)) if row is not None else None

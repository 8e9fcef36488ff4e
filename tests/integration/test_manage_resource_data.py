"""resource_data_list (heat-manage's) reads a resource's data through the store: redacted
values decrypted; one the key does not open shown as stored, as Heat shows it."""

from __future__ import annotations

import pytest

from hotplate.db.crypt import EncryptionKeyError, SecretBox
from hotplate.db.store import SqlStore
from tests.integration.helpers import FakeClock, make_resource, make_stack

OTHER_KEY = "fedcba9876543210fedcba9876543210"


def test_redacted_data_is_decrypted_or_shown_as_stored(store: SqlStore, clock: FakeClock,
                                                       ) -> None:
    resource = make_resource(store, make_stack(store, clock))
    store.set_resource_data(resource, "plain", "visible")
    store.set_resource_data(resource, "secret", "hush", redact=True)
    assert store.list_resource_data(resource) == {
        "plain": "visible", "secret": "hush"}

    other = SqlStore(store.engine, clock, SecretBox(OTHER_KEY))
    with pytest.raises(EncryptionKeyError):
        other.get_resource_data(resource)
    shown = other.list_resource_data(resource)
    assert shown["plain"] == "visible"
    assert shown["secret"] not in ("hush", "") and shown["secret"].startswith("gAAAA")

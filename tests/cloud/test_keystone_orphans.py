"""Nothing left in Keystone by a create whose engine died half-way, on the real cloud.

A root stack's create makes its trust and its stack domain project before it
writes the stack row. An engine that dies in between leaves them; the create
asked again under the same request id (same stack id) takes the project over,
and the sweep deletes credentials no stack holds, trust first.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hotplate.cloud import Clouds, CloudSettings, TrusteeSettings
from hotplate.cloud.settings import StackDomain
from hotplate.db import migrate
from hotplate.db.engine import make_engine
from hotplate.db.store import SqlStore
from hotplate.engine.clock import SystemClock
from hotplate.engine.stack_credentials import StackCredentials
from tests.cloud.locate import Cloud
from tests.cloud.serving import SERVICE_PASSWORD, SERVICE_USER
from tests.cloud.test_keystone_trusts import DOMAIN_ADMIN, STACK_DOMAIN, _login, _trusts_of


def _credentials(cloud: Cloud, tmp_path: Path) -> tuple[StackCredentials, SqlStore]:
    url = f"sqlite:///{tmp_path / 'hotplate.db'}"
    migrate.upgrade(url)
    root = cloud.auth_url.removesuffix("/v3")
    settings = CloudSettings(
        keystone_url=root,
        trustee=TrusteeSettings(auth_url=root, username=SERVICE_USER,
                                password=SERVICE_PASSWORD, user_domain_name="Default"),
        stack_domain=StackDomain(domain_name=STACK_DOMAIN, admin=DOMAIN_ADMIN,
                                 admin_password=SERVICE_PASSWORD))
    store = SqlStore(make_engine(url), SystemClock())
    return StackCredentials(store, Clouds(settings)), store


def _context(cloud: Cloud) -> dict[str, Any]:
    token, body = _login(cloud)
    return {"auth_token": token, "auth_token_info": {"token": body},
            "user_id": body["user"]["id"], "project_id": body["project"]["id"],
            "project_name": body["project"]["name"], "auth_url": cloud.auth_url,
            "roles": [role["name"] for role in body["roles"]]}


def test_a_create_asked_again_takes_its_project_over_and_the_sweep_ends_its_trust(
        cloud: Cloud, admin_conn: Any, tmp_path: Path) -> None:
    credentials, store = _credentials(cloud, tmp_path)
    ctxt = _context(cloud)
    stack_id = str(uuid.uuid4())
    first = credentials.create_for(ctxt)  # the first asking: its engine dies here
    project = credentials.create_project_for(ctxt, stack_id)
    try:
        assert first is not None and project is not None
        stored = store.get_user_creds(first)
        assert stored is not None and stored.trust_id
        made = {stored.trust_id}  # other suites may make trusts of this user meanwhile
        assert made <= {t["id"] for t in _trusts_of(admin_conn, ctxt["user_id"])}

        # The second asking: the same stack id finds the same project.
        assert credentials.create_project_for(ctxt, stack_id) == project

        # Held by no stack: kept while young, deleted once old enough.
        now = datetime.now(UTC)
        assert credentials.forget_orphans(now - timedelta(hours=1)) == 0
        assert made <= {t["id"] for t in _trusts_of(admin_conn, ctxt["user_id"])}
        assert credentials.forget_orphans(now + timedelta(seconds=5)) == 1
        assert not made & {t["id"] for t in _trusts_of(admin_conn, ctxt["user_id"])}
        assert credentials.forget_orphans(now + timedelta(seconds=5)) == 0
        assert store.get_user_creds(first) is None
    finally:
        credentials.forget_new(None, project)
        credentials.forget_orphans(datetime.now(UTC) + timedelta(seconds=5))
    gone = admin_conn.session.get(f"/projects/{project}", endpoint_filter={
        "service_type": "identity"}, raise_exc=False)
    assert gone.status_code == 404

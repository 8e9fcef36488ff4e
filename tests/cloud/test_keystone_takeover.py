"""A takeover acts as the stack's owner through its trust, on the real cloud.

Two real ``hotplate engine`` processes on PostgreSQL and RabbitMQ, configured
for Keystone as the cloud's Heat is (``[trustee]``, the stack domain). A stack
is created with a Keystone token that is revoked as soon as the create is
accepted; its one resource asks the cloud only at the end of its create. The
engine running that create is killed; the other takes the resource over and
finishes it: the cloud saw the stack's owner, through the trust, from the
engine that took over. The trust goes with the stack.
"""

from __future__ import annotations

import os
import signal
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hotplate.db.crypt import SecretBox
from hotplate.db.engine import make_engine
from hotplate.db.store import SqlStore
from hotplate.engine.clock import SystemClock
from hotplate.model.ids import StackId
from tests.cloud.locate import Cloud
from tests.cloud.test_keystone_trusts import _extra, _login, _revoke, _trusts_of
from tests.cloud.trust_probe import TYPE, probe_plugin_path
from tests.distributed.broker_proxy import private_vhost
from tests.distributed.engine_cluster import Cluster, private_database, wait_until
from tests.real_services import POSTGRES, RABBIT, url_or_skip

HOLD_SECS = 8
KEY = "takeover-test-key-of-32-chars-ok"
TEMPLATE = {"heat_template_version": "2021-04-16",
            "resources": {"probe": {"type": TYPE, "properties": {"hold": HOLD_SECS}}}}


@pytest.fixture(scope="module")
def engines(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    root = Path(tmp_path_factory.mktemp("keystone-takeover"))
    home = root / "home"
    (home / ".hotplate").mkdir(parents=True)
    (home / ".hotplate" / "hotplate.conf").write_text(_extra(cloud))
    plugins = probe_plugin_path(root / "plugins")
    repo = Path(__file__).resolve().parents[2]
    path = os.pathsep.join(p for p in (str(plugins), str(repo), os.environ.get("PYTHONPATH"))
                           if p)
    with private_database(url_or_skip(POSTGRES), "hotplate_ks_takeover") as db_url, \
            private_vhost(url_or_skip(RABBIT), "hotplate-ks-takeover") as broker:
        cluster = Cluster(db_url, broker, broker, root)
        cluster.env.update({"HOME": str(home), "PYTHONPATH": path,
                            "HOTPLATE_AUTH_ENCRYPTION_KEY": KEY})
        try:
            cluster.start_all("e1", "e2")
            yield cluster
        finally:
            cluster.stop()


def _context(token: str, body: dict[str, Any], cloud: Cloud) -> dict[str, Any]:
    """What hotplate api hands the engine for a request with this token."""
    return {"auth_token": token, "auth_token_info": {"token": body},
            "user_id": body["user"]["id"], "username": body["user"]["name"],
            "project_id": body["project"]["id"], "project_name": body["project"]["name"],
            "tenant_id": body["project"]["id"], "auth_url": cloud.auth_url,
            "roles": [role["name"] for role in body["roles"]], "is_admin": False,
            "request_id": f"req-{uuid.uuid4()}"}


def test_an_engine_killed_mid_create_is_taken_over_through_the_trust(
        engines: Cluster, cloud: Cloud, admin_conn: Any) -> None:
    token, body = _login(cloud)
    user_id, project = body["user"]["id"], body["project"]["id"]
    made = engines.rpc.call(_context(token, body, cloud), "create_stack",
                            stack_name=f"takeover-{uuid.uuid4().hex[:8]}",
                            template=TEMPLATE, params={}, files={},
                            args={"disable_rollback": True})
    sid = StackId(made["stack_id"])
    _revoke(admin_conn, token)
    try:
        victim = engines.busiest(sid)
        killed = engines.command_of(victim).current.pid
        os.kill(killed, signal.SIGKILL)
        stack = engines.settle(sid, 120.0)
        assert f"{stack.action}_{stack.status}" == "CREATE_COMPLETE", stack.status_reason
        probe = engines.store.resources_named(sid, "probe")[0]
        seen = engines.store.get_resource_data(probe.id)
        assert seen["seen_create"].split()[:2] == [user_id, project]
        assert int(seen["seen_create_pid"]) != killed
        assert any(f"engine {victim} stopped answering" in r for r in engines.reasons(sid))
        db = make_engine(engines.db_url, pool_size=1)
        try:
            creds = SqlStore(db, SystemClock(), SecretBox(KEY)).get_user_creds(
                stack.user_creds_id or 0)
        finally:
            db.dispose()
        assert creds is not None and creds.trust_id
        trust = creds.trust_id
        assert trust in {t["id"] for t in _trusts_of(admin_conn, user_id)}
    finally:
        token, body = _login(cloud)
        engines.rpc.call(_context(token, body, cloud), "delete_stack", stack_identity=sid)
        wait_until(lambda: engines.stack(sid).action == "DELETE"
                   and engines.stack(sid).status == "COMPLETE", "the stack's delete", 120.0)
    wait_until(lambda: trust not in {t["id"] for t in _trusts_of(admin_conn, user_id)},
               "the trust outlived its stack", 30.0)

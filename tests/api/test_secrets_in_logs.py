"""No token, password or secret in logs, events, notifications or error texts.

Stacks that use every kind of secret hotplate keeps run with logging at DEBUG and
encrypt_parameters_and_properties on: a hidden parameter, a TOKEN_SIGNAL wait condition
handle signalled with its token, a CFN wait condition handle signalled through its
pre-signed URL (a stack user's EC2 keys), a RandomString, a signal with a wrong token and
a forged signature, a wait condition failed by its signal. Every log record (formatted,
with any traceback), every event, every notification payload and every error text is
then searched for each secret's value.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from heatclient import exc as heat_exc
from sqlalchemy import select

from hotplate.api import EngineRpc, create_app
from hotplate.api.background import BackgroundServer, free_port
from hotplate.api_cfn import create_cfn_app
from hotplate.app import embedded
from hotplate.db import schema as s
from hotplate.db.auth_store import AuthStore
from hotplate.db.crypt import SecretBox
from hotplate.db.engine import make_engine
from hotplate.engine.options import EngineOptions
from hotplate.model.ids import StackId
from hotplate.model.notifications import Notification
from tests.api.helpers import wait_status

KEY = "K3y-0f-th1s-test-Kept-s3cret-32"[:32].ljust(32, "!")
PASSWORD = "Hidden-Pa55word-0f-the-test"
TEMPLATE = {
    "heat_template_version": "2016-10-14",
    "parameters": {"db_password": {"type": "string", "hidden": True}},
    "resources": {
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
        "wait": {"type": "OS::Heat::WaitCondition",
                 "properties": {"handle": {"get_resource": "handle"}, "timeout": 60}},
        "cfn_handle": {"type": "AWS::CloudFormation::WaitConditionHandle"},
        "cfn_wait": {"type": "AWS::CloudFormation::WaitCondition",
                     "properties": {"Handle": {"get_resource": "cfn_handle"},
                                    "Timeout": 60}},
        "value": {"type": "OS::Heat::Value",
                  "properties": {"value": {"get_param": "db_password"}}},
        "random": {"type": "OS::Heat::RandomString"},
    },
    "outputs": {"cfn_url": {"value": {"get_resource": "cfn_handle"}}},
}
CLIENT_LOGGERS = ("heatclient", "httpx", "httpcore", "urllib3", "keystoneauth")
"""The test's own HTTP clients: they log what they send (a password in a request's
body), which is theirs, not hotplate's."""


class Collected(logging.Handler):
    """Every record, as a formatter writes it (message, arguments, traceback)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith(CLIENT_LOGGERS):
            self.lines.append(self.format(record))


class Notifications:
    def __init__(self) -> None:
        self.sent: list[Notification] = []

    def send(self, notification: Notification) -> None:
        self.sent.append(notification)

    def close(self) -> None:
        pass


class World:
    def __init__(self, **parts: Any) -> None:
        self.__dict__.update(parts)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    url = f"sqlite:///{Path(tmp_path_factory.mktemp('secrets')) / 'hotplate.sqlite'}"
    logs = Collected()
    root = logging.getLogger()
    level = root.level
    root.addHandler(logs)
    root.setLevel(logging.DEBUG)
    api_port, cfn_port = free_port(), free_port()
    options = EngineOptions(
        heat_metadata_server_url=f"http://127.0.0.1:{cfn_port}/v1/",
        heat_waitcondition_server_url=f"http://127.0.0.1:{cfn_port}/v1/waitcondition",
        heat_url=f"http://127.0.0.1:{api_port}/v1/%(tenant_id)s")
    notes = Notifications()
    box = SecretBox(KEY, encrypt_parameters_and_properties=True, source="as configured")
    engine, transport = embedded(url, workers=8, options=options, notifier=notes,
                                 secrets=box)
    db = make_engine(url, pool_size=4)
    auth = AuthStore(db)
    admin = auth.create_token("admin", "admin")
    rpc = EngineRpc(transport, host=engine.deps.host)
    try:
        with BackgroundServer(create_app(rpc, auth=auth), port=api_port) as base, \
                BackgroundServer(create_cfn_app(rpc, engine.deps.store),  # type: ignore[arg-type]
                                 port=cfn_port):
            from heatclient.client import Client

            yield World(hc=Client("1", endpoint=f"{base}/v1/admin", token=admin),
                        admin=admin, logs=logs, notes=notes, engine=engine, db=db)
    finally:
        engine.stop()
        transport.stop()
        db.dispose()
        root.removeHandler(logs)
        root.setLevel(level)


def _signal_token_handle(world: World, stack_id: str, errors: list[str]) -> str:
    handle = world.hc.resources.get(stack_id, "handle")
    token, endpoint = handle.attributes["token"], handle.attributes["endpoint"]
    wrong = httpx.post(endpoint, headers={"X-Auth-Token": token[:-4] + "xxxx"},
                       json={"status": "SUCCESS"}, timeout=10)
    assert wrong.status_code == 401, wrong.text
    errors.append(wrong.text)
    done = httpx.post(endpoint, headers={"X-Auth-Token": token},
                      json={"status": "SUCCESS", "reason": "ready", "data": "d", "id": "1"},
                      timeout=10)
    assert done.status_code == 200, done.text
    return str(token)


def _signal_cfn_handle(world: World, stack_id: str, errors: list[str]) -> str:
    url = world.hc.stacks.output_show(stack_id, "cfn_url")["output"]["output_value"]
    forged = url.replace("Signature=", "Signature=AAAA")
    refused = httpx.put(forged, content=json.dumps({"Status": "SUCCESS", "UniqueId": "x",
                                                    "Data": "d", "Reason": "r"}), timeout=10)
    assert refused.status_code == 403, refused.text
    errors.append(refused.text)
    failed = httpx.put(url, content=json.dumps({"Status": "FAILURE", "UniqueId": "1",
                                                "Data": "d", "Reason": "agent broke"}),
                       timeout=10)
    assert failed.status_code == 200, failed.text
    access_key = parse_qs(urlsplit(url).query)["AWSAccessKeyId"][0]
    found = world.engine.deps.store.find_stack_user_key(access_key)
    assert found is not None
    return str(found.secret)


def _secrets_written(world: World, stack_id: str) -> list[str]:
    store = world.engine.deps.store
    [random] = [r for r in store.list_resources(StackId(stack_id)) if r.name == "random"]
    value = store.get_resource_data(random.id)["value"]
    with world.db.connect() as conn:
        raw = repr(list(conn.execute(select(s.raw_template)))) + repr(
            list(conn.execute(select(s.resource)))) + repr(
            list(conn.execute(select(s.resource_data))))
    assert PASSWORD not in raw and value not in raw  # and at rest, encrypted
    return [value]


def test_no_secret_in_logs_events_notifications_or_errors(world: World) -> None:
    errors: list[str] = []
    created = world.hc.stacks.create(stack_name="secretive", template=TEMPLATE,
                                     parameters={"db_password": PASSWORD})
    stack_id = created["stack"]["id"]
    deadline = time.monotonic() + 30
    for handle in ("handle", "cfn_handle"):
        while world.hc.resources.get(stack_id, handle).resource_status != "CREATE_COMPLETE":
            assert time.monotonic() < deadline
            time.sleep(0.05)
    secrets = [PASSWORD, KEY, world.admin, _signal_token_handle(world, stack_id, errors),
               _signal_cfn_handle(world, stack_id, errors)]
    done = wait_status(world.hc, stack_id)
    assert done.stack_status == "CREATE_FAILED"
    errors.append(done.stack_status_reason)
    shown = world.hc.stacks.get(stack_id)
    assert shown.parameters["db_password"] == "******"  # as Heat shows it, and as before
    for call in (lambda: world.hc.stacks.create(stack_name="secretive", template=TEMPLATE,
                                                parameters={"db_password": PASSWORD}),
                 lambda: world.hc.stacks.update(stack_id, template=TEMPLATE, parameters={
                     "db_password": PASSWORD, "nonesuch": PASSWORD})):
        with pytest.raises(heat_exc.HTTPException) as caught:
            call()
        errors.append(str(caught.value))
    secrets += _secrets_written(world, stack_id)
    events = [repr(e.to_dict()) for e in world.hc.events.list(stack_id)]
    resources = [repr(r.to_dict()) for r in world.hc.resources.list(stack_id)]
    payloads = [repr(n.payload) for n in world.notes.sent]
    assert events and payloads and len(world.logs.lines) > 10 and len(errors) == 5
    for secret in secrets:
        assert len(secret) >= 16
        for where, texts in (("log", world.logs.lines), ("event", events),
                             ("notification", payloads), ("error", errors),
                             ("resource list", resources)):
            leaked = [text for text in texts if secret in text]
            assert not leaked, f"a secret in a {where}: {leaked[0][:300]}"

"""Scale-out for real: ``hotplate api`` and two ``hotplate engine`` processes on
RabbitMQ and PostgreSQL, driven through python-heatclient, one engine killed
with SIGKILL in the middle of a create.

What is checked is what a user of Heat sees: the stack converges across
processes; a killed engine's resources do not stay IN_PROGRESS (as they would
in Heat until an update): the other engine takes their locks over, recording
"Worker went down during resource CREATE" with both engines named, and
finishes the create by itself; the service list shows the survivor up.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from hotplate.api.background import free_port
from tests.api.helpers import wait_status, wait_until_serving

pytestmark = pytest.mark.timeout(240)


@dataclass
class Cluster:
    endpoint: str
    token: str
    engines: dict[str, int] = field(default_factory=dict)
    """host -> the pid of its engine process (the child of its ``hotplate engine``)."""

    def client(self) -> Any:
        from heatclient.client import Client

        return Client("1", endpoint=self.endpoint, token=self.token)

    def kill(self, name: str) -> None:
        """SIGKILL the engine process; its parent starts another, with a new engine id."""
        os.kill(self.engines[name], signal.SIGKILL)


def _start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[str]:
    with log.open("w") as sink:  # the child keeps its own copy of the descriptor
        return subprocess.Popen([sys.executable, "-m", "hotplate.cli.main", *args], env=env,
                                stdout=subprocess.PIPE, stderr=sink, text=True)


def _first_line(proc: subprocess.Popen[str], log: Path) -> str:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, f"process ended: {log.read_text()}"
    return line


@pytest.fixture(scope="module")
def cluster(broker_url: str, server_db_url: str,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    root = tmp_path_factory.mktemp("cluster")
    env = {**os.environ, "HOTPLATE_DB_URL": server_db_url,
           "HOTPLATE_TRANSPORT_URL": broker_url,
           # Recovery within seconds: a killed engine is found dead after two missed
           # reports and a life check, and its work taken over.
           "HOTPLATE_PERIODIC_INTERVAL": "2", "HOTPLATE_ENGINE_LIFE_CHECK_TIMEOUT": "1"}
    procs: list[subprocess.Popen[str]] = []
    try:
        engines = {}
        for name in ("e1", "e2"):
            proc = _start(["engine", "--engine-host", name, "--workers", "1", "--threads", "8"],
                          env, root / f"{name}.log")
            procs.append(proc)
            engines[name] = proc
        pids = {}
        for name, proc in engines.items():
            line = _first_line(proc, root / f"{name}.log")
            assert f"(host {name})" in line
            words = line.split()
            pids[name] = int(words[words.index("pid") + 1])
        port = free_port()
        api = _start(["api", "--port", str(port)], env, root / "api.log")
        procs.append(api)
        assert _first_line(api, root / "api.log").startswith("hotplate API at")
        command = _first_line(api, root / "api.log") + _first_line(api, root / "api.log")
        words = command.split()
        token = words[words.index("--os-token") + 1]
        endpoint = words[words.index("--os-endpoint") + 1]
        wait_until_serving(f"http://127.0.0.1:{port}/", api, timeout=30,
                           log=(root / "api.log").read_text)
        yield Cluster(endpoint, token, pids)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
            if proc.stdout is not None:
                proc.stdout.close()


def fan_template(count: int, value: str, *, wait_secs: float = 0.0) -> dict[str, Any]:
    resources: dict[str, Any] = {
        f"r{n}": {"type": "OS::Heat::TestResource",
                  "properties": {"value": f"{value}-{n}", "wait_secs": wait_secs}}
        for n in range(count)
    }
    resources["last"] = {
        "type": "OS::Heat::Value",
        "properties": {"value": {"list_join": [",", [{"get_attr": [f"r{n}", "output"]}
                                                     for n in range(count)]]}},
    }
    return {"heat_template_version": "2021-04-16", "resources": resources,
            "outputs": {"joined": {"value": {"get_attr": ["last", "value"]}}}}


def output(hc: Any, stack: str) -> Any:
    return hc.stacks.output_show(stack, "joined")["output"]["output_value"]


def test_a_stack_lives_its_whole_life_across_processes(cluster: Cluster) -> None:
    hc = cluster.client()
    hc.stacks.create(stack_name="spread", template=fan_template(20, "a"))
    created = wait_status(hc, "spread", timeout=60)
    assert created.stack_status == "CREATE_COMPLETE", created.stack_status_reason
    assert output(hc, "spread") == ",".join(f"a-{n}" for n in range(20))
    hc.stacks.update("spread", template=fan_template(20, "b"))
    time.sleep(0.2)
    updated = wait_status(hc, "spread", timeout=60)
    assert updated.stack_status == "UPDATE_COMPLETE", updated.stack_status_reason
    assert output(hc, "spread") == ",".join(f"b-{n}" for n in range(20))
    assert len(hc.resources.list("spread")) == 21
    hc.stacks.delete("spread")
    deadline = time.monotonic() + 60
    while any(s.stack_name == "spread" for s in hc.stacks.list()):
        assert time.monotonic() < deadline, "delete did not finish"
        time.sleep(0.1)


def test_engine_errors_reach_the_client_with_heats_status(cluster: Cluster) -> None:
    from heatclient import exc

    hc = cluster.client()
    with pytest.raises(exc.HTTPNotFound, match="could not be found"):
        hc.stacks.get("nowhere")
    with pytest.raises(exc.HTTPBadRequest, match=r"resources\.bad"):
        hc.stacks.validate(template={"heat_template_version": "2021-04-16",
                                     "resources": {"bad": {"type": "OS::No::Such"}}})
    hc.stacks.create(stack_name="twice", template=fan_template(1, "x"))
    with pytest.raises(exc.HTTPConflict):
        hc.stacks.create(stack_name="twice", template=fan_template(1, "x"))
    assert wait_status(hc, "twice").stack_status == "CREATE_COMPLETE"


def test_both_engines_are_registered_and_up(cluster: Cluster) -> None:
    services = cluster.client().services.list()
    hosts = {s.host: s.status for s in services}
    assert hosts == {"e1": "up", "e2": "up"}


def test_an_engine_killed_mid_create_is_taken_over(cluster: Cluster,
                                                   server_db_url: str) -> None:
    """No stuck stack: the engine working on the resources is killed, and the other
    takes its locks over and finishes the create, with nobody touching the stack."""
    import sqlalchemy as sa

    hc = cluster.client()
    hc.stacks.create(stack_name="crash", template=fan_template(8, "c", wait_secs=4))
    deadline = time.monotonic() + 20
    while sum(r.resource_status == "CREATE_IN_PROGRESS"
              for r in hc.resources.list("crash")) < 8:
        assert time.monotonic() < deadline, "the slow resources never all started"
        time.sleep(0.05)
    db = sa.create_engine(server_db_url)
    with db.connect() as conn:
        holders = set(conn.execute(sa.text(
            "SELECT DISTINCT engine_id FROM resource WHERE engine_id IS NOT NULL")).scalars())
        hosts = dict(conn.execute(sa.text(
            "SELECT engine_id, host FROM service WHERE deleted_at IS NULL")).all())
    victim = hosts[sorted(holders)[0]]
    cluster.kill(victim)

    done = wait_status(hc, "crash", timeout=90)
    assert done.stack_status == "CREATE_COMPLETE", done.stack_status_reason
    assert output(hc, "crash") == ",".join(f"c-{n}" for n in range(8))
    reasons = [e.resource_status_reason or "" for e in hc.events.list("crash")]
    assert any(r.startswith("Worker went down during resource CREATE") and "took over" in r
               for r in reasons), reasons
    with db.connect() as conn:
        assert conn.execute(sa.text(
            "SELECT count(*) FROM resource WHERE engine_id IS NOT NULL")).scalar() == 0
    db.dispose()
    survivor = next(host for host in ("e1", "e2") if host != victim)
    assert {s.host: s.status for s in hc.services.list()}[survivor] == "up"


KID = """\
heat_template_version: 2021-04-16
parameters:
  word: {type: string}
resources:
  inner:
    type: OS::Heat::TestResource
    properties: {value: {get_param: word}}
outputs:
  said: {value: {get_attr: [inner, output]}}
"""


def test_nested_stacks_are_made_through_the_broker(cluster: Cluster) -> None:
    hc = cluster.client()
    parent = {"heat_template_version": "2021-04-16",
              "resources": {f"kid{n}": {"type": "kid.yaml", "properties": {"word": f"w{n}"}}
                            for n in range(3)},
              "outputs": {"said": {"value": {"list_join": [",", [
                  {"get_attr": [f"kid{n}", "said"]} for n in range(3)]]}}}}
    hc.stacks.create(stack_name="family", template=parent, files={"kid.yaml": KID})
    done = wait_status(hc, "family", timeout=60)
    assert done.stack_status == "CREATE_COMPLETE", done.stack_status_reason
    assert hc.stacks.output_show("family", "said")["output"]["output_value"] == "w0,w1,w2"
    names = {r.resource_name for r in hc.resources.list("family", nested_depth=1)}
    assert names == {"kid0", "kid1", "kid2", "inner"}


def test_fifty_signals_at_once_across_engines_are_each_counted_once(cluster: Cluster) -> None:
    """The signals reach both engines; each applies its share under the handle row's
    compare-and-swap on PostgreSQL, and the wait condition parked on one of them
    completes."""
    hc = cluster.client()
    template = {"heat_template_version": "2021-04-16", "resources": {
        "handle": {"type": "OS::Heat::WaitConditionHandle",
                   "properties": {"signal_transport": "NO_SIGNAL"}},
        "wait": {"type": "OS::Heat::WaitCondition", "properties": {
            "handle": {"get_resource": "handle"}, "count": 50, "timeout": 120}}}}
    sid = hc.stacks.create(stack_name="signalled", template=template)["stack"]["id"]
    deadline = time.monotonic() + 60
    while hc.resources.get(sid, "handle").resource_status != "CREATE_COMPLETE":
        assert time.monotonic() < deadline, "the handle was never created"
        time.sleep(0.1)
    errors: list[BaseException] = []

    def send(i: int) -> None:
        try:
            cluster.client().resources.signal(sid, "handle", data={"id": f"s{i}"})
            cluster.client().resources.signal(sid, "handle", data={"id": f"s{i}"})  # again
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    done = wait_status(hc, sid, timeout=60)
    assert done.stack_status == "CREATE_COMPLETE", done.stack_status_reason
    assert sorted(hc.resources.metadata(sid, "handle")) == sorted(f"s{i}" for i in range(50))
    signals = [e for e in hc.events.list(sid, resource_name="handle")
               if e.resource_status_reason.startswith("Signal: ")]
    assert len(signals) == 50

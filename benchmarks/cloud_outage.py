"""A cloud API away in the middle of a create: how long the stack waits, what it leaves.

The cloud suites stop nova-api for 20 seconds (tests/cloud/test_cloud_outage.py); this
stops any API of the project's cloud (``make cloud``) for a minute, or ``--secs``, too
slow to run in ``make test`` for each: a stack of a network, a subnet, a port, a volume and two
servers (one on the port), the second server and the volume held back by a
10-second resource so that their creates fall in the outage, is created on an
embedded engine with the demo user's token; ``--api`` is stopped ``--secs`` seconds
(under the cloud's lock, started again whatever happens), then the stack is awaited,
checked (one server per server resource) and deleted, and what it left in the
project is listed::

    flock /tmp/hotplate-cloud-ports.lock \\
        python benchmarks/cloud_outage.py [--api neutron-api] [--secs 60] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.cloud.clients import token_context
from tests.cloud.engine import engine_on
from tests.cloud.leaks import leaked, other_snapshot, snapshot
from tests.cloud.locate import _choose
from tests.cloud.outage import api_away


def template(prefix: str) -> dict[str, Any]:
    def server(name: str, networks: list[dict[str, Any]]) -> dict[str, Any]:
        return {"type": "OS::Nova::Server",
                "properties": {"name": name, "image": "cirros-fake", "flavor": "m1.tiny",
                               "user_data_format": "RAW", "networks": networks}}

    late = server(f"{prefix}-2", [{"allocate_network": "none"}])
    late["depends_on"] = ["slow"]
    return {"heat_template_version": "2021-04-16", "resources": {
        "slow": {"type": "OS::Heat::TestResource", "properties": {"wait_secs": 10}},
        "net": {"type": "OS::Neutron::Net", "properties": {"name": f"{prefix}-net"}},
        "subnet": {"type": "OS::Neutron::Subnet",
                   "properties": {"network": {"get_resource": "net"},
                                  "cidr": "10.250.0.0/24"}},
        "port": {"type": "OS::Neutron::Port", "depends_on": ["subnet"],
                 "properties": {"network": {"get_resource": "net"}}},
        "volume": {"type": "OS::Cinder::Volume", "depends_on": ["slow"],
                   "properties": {"name": f"{prefix}-vol", "size": 1}},
        "first": server(f"{prefix}-1", [{"port": {"get_resource": "port"}}]),
        "second": late,
    }}


def settle(engine: Any, ctxt: Any, identity: Any, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while (shown := engine.service.show_stack(ctxt, identity)[0])["stack_status"] == \
            "IN_PROGRESS" and time.monotonic() < deadline:
        time.sleep(1.0)
    return dict(shown)


def run(api: str, secs: float) -> dict[str, Any]:
    cloud, how = _choose()
    if cloud is None:
        raise SystemExit(how)
    conn = cloud.connect()
    project = conn.current_project_id
    prefix = f"bo-{uuid.uuid4().hex[:8]}"
    before, before_other = snapshot(conn, project), other_snapshot(conn, project, prefix)
    result: dict[str, Any] = {"api": api, "outage_secs": secs}
    with tempfile.TemporaryDirectory() as tmp, engine_on(Path(tmp), cloud.region,
                                                     trustee_of=cloud.auth_url) as engine:
        ctxt = token_context(cloud, conn)
        started = time.monotonic()
        identity = engine.service.create_stack(ctxt, prefix, template(prefix), {}, {},
                                               {"timeout_mins": 20})
        with api_away(api):
            time.sleep(secs)
        shown = settle(engine, ctxt, identity, 600)
        result["create"] = f'{shown["stack_action"]}_{shown["stack_status"]}'
        result["reason"] = shown["stack_status_reason"]
        result["create_secs"] = round(time.monotonic() - started, 1)
        servers = {s.name for s in conn.compute.servers(name=f"^{prefix}-")}
        result["servers"] = sorted(servers)
        engine.service.delete_stack(ctxt, identity)
        shown = settle(engine, ctxt, identity, 600)
        result["delete"] = f'{shown["stack_action"]}_{shown["stack_status"]}'
    after_other = other_snapshot(conn, project, prefix)
    result["left"] = {kind: sorted(ids) for kind, ids in leaked(conn, project, before).items()}
    result["left_other"] = {kind: sorted(after_other[kind] - before_other[kind])
                            for kind in after_other if after_other[kind] - before_other[kind]}
    conn.close()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--api", default="neutron-api",
                        help="nova-api, neutron-api, cinder-api, glance-api, placement")
    parser.add_argument("--secs", type=float, default=60.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    result = run(args.api, args.secs)
    for key, value in result.items():
        print(f"{key:>12}: {value}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    ok = (result["create"] == "CREATE_COMPLETE" and result["delete"] == "DELETE_COMPLETE"
          and len(result["servers"]) == 2 and not result["left"] and not result["left_other"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Neutron's types against the project's real Neutron, through ``openstack stack ...``.

hotplate serves in Keystone mode with Heat's ``[trustee]`` (its plugins act with the
stack's trust); each test drives it with the unchanged openstack CLI as the demo
user and reads the result back from Neutron. ``network_leaks`` fails a test that
leaves a Neutron object behind (and deletes it).

Where the time goes: an action of these stacks takes the engine one to four
seconds, but ``openstack stack ... --wait`` looks at the stack every 5 seconds
(only ``stack create`` takes ``--poll``), and each ``openstack`` process spends
about 2 seconds starting. So the CLI makes the requests a user makes (create,
update, delete, abandon, adopt) without ``--wait``, and the test waits and reads
(resources, outputs, events) in process, with python-heatclient, the library
the CLI itself calls, looking every ``POLL`` seconds.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cloud.leaks import network_leaks  # noqa: F401  (a fixture)
from tests.cloud.locate import Cloud
from tests.cloud.serving import SERVICE_PASSWORD, SERVICE_USER, Serving, keystone_serve

STACK_DOMAIN = os.environ.get("HOTPLATE_TEST_STACK_DOMAIN") or "heat"
DOMAIN_ADMIN = os.environ.get("HOTPLATE_TEST_DOMAIN_ADMIN") or "heat_domain_admin"
PUBLIC = os.environ.get("HOTPLATE_TEST_PUBLIC_NETWORK") or "public"
POLL = 0.2
"""Seconds between two looks at a stack the test waits on."""
WAIT = 300.0
"""The longest a test waits for one stack action."""

pytestmark = pytest.mark.usefixtures("network_leaks")

NETWORK = """heat_template_version: 2021-04-16
parameters:
  net_name: {type: string}
  cidr: {type: string, default: 10.31.0.0/24}
  ports: {type: comma_delimited_list, default: "22"}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: {get_param: net_name}}
  subnet:
    type: OS::Neutron::Subnet
    properties:
      network_id: {get_attr: [net, name]}   # the deprecated name, a name to resolve
      cidr: {get_param: cidr}
  router:
    type: OS::Neutron::Router
    properties:
      external_gateway_info: {network: @PUBLIC@}
  iface:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, subnet: {get_resource: subnet}}
  sg:
    type: OS::Neutron::SecurityGroup
    properties:
      rules:
        repeat:
          for_each: {<%port%>: {get_param: ports}}
          template: {protocol: tcp, port_range_min: <%port%>, port_range_max: <%port%>}
  rule:
    type: OS::Neutron::SecurityGroupRule
    properties:
      security_group: {get_resource: sg}
      protocol: udp
      port_range_min: 53
      port_range_max: 53
  fip:
    type: OS::Neutron::FloatingIP
    properties: {floating_network: @PUBLIC@}
outputs:
  net_show: {value: {get_attr: [net, show]}}
  subnet_network: {value: {get_attr: [subnet, network_id]}}
  fip_address: {value: {get_attr: [fip, floating_ip_address]}}
  gateway: {value: {get_attr: [router, external_gateway_info]}}
""".replace("@PUBLIC@", PUBLIC)


def _extra(cloud: Cloud) -> str:
    root = cloud.auth_url.removesuffix("/v3")
    # A create whose object goes ERROR fails at once: these suites check Heat's texts for
    # the failure; its retries (action_retry_limit) are test_cloud_failures' subject.
    return ("[DEFAULT]\n"
            "enable_stack_abandon = true\nenable_stack_adopt = true\n"
            "action_retry_limit = 0\n"
            f"stack_user_domain_name = {STACK_DOMAIN}\n"
            f"stack_domain_admin = {DOMAIN_ADMIN}\n"
            f"stack_domain_admin_password = {SERVICE_PASSWORD}\n"
            "[clients_keystone]\n"
            f"auth_uri = {root}\n"
            "[trustee]\n"
            f"auth_url = {root}\nauth_type = password\nuser_domain_name = Default\n"
            f"username = {SERVICE_USER}\npassword = {SERVICE_PASSWORD}\n")


BIND_FAILED = "error while attempting to bind"
STARTS = 5


@pytest.fixture(scope="module")
def served(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    """hotplate on the catalog's ports. Another suite's server may take a port between
    the check that it is free and the bind; the one answering would then not be this
    one (another checkout's code), so that start is abandoned and made again."""
    for _ in range(STARTS):
        tmp = Path(tmp_path_factory.mktemp("neutron-serve"))
        with keystone_serve(cloud, tmp, extra=_extra(cloud)) as serving:
            if _answered_by(serving):
                yield serving
                return
        time.sleep(1.0)
    pytest.fail(f"the catalog's ports stayed taken by other servers ({STARTS} starts)")


def _answered_by(serving: Serving) -> bool:
    """Whether the first request on the port (``GET /``, made once it answered) reached
    this server: its log records it, or its bind failed."""
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline:
        text = serving.log.read_text()
        if BIND_FAILED in text:
            return False
        if '"GET / HTTP/1.1"' in text:
            return True
        time.sleep(0.1)
    return False


def _cli(served: Serving, *args: str, check: bool = True, cloud: str | None = None) -> Any:
    """``openstack --os-cloud <demo> <args> -f json`` as a user runs it (``cloud``: as
    another of the cloud's users); the decoded document (None when there is none),
    or with ``check=False`` the finished process."""
    binary = shutil.which("openstack") or str(Path(sys.executable).parent / "openstack")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env.update(served.cloud.environ(cloud))
    done = subprocess.run([binary, "--os-cloud", cloud or served.cloud.user, *args],
                          env=env, capture_output=True, text=True, timeout=600)
    if not check:
        return done
    assert done.returncode == 0, done.stderr + "\n" + served.log.read_text()[-4000:]
    lines = done.stdout.splitlines()  # --wait prints event lines before the document
    start = next((i for i, line in enumerate(lines) if line[:1] in "[{"), len(lines))
    return json.loads("\n".join(lines[start:])) if start < len(lines) else None


_HEAT: dict[str, Any] = {}


def _heat(served: Serving, cloud: str | None = None) -> Any:
    """python-heatclient as the demo user (or ``cloud``), over a Keystone session."""
    key = cloud or served.cloud.user
    if key not in _HEAT:
        from heatclient import client

        session = served.cloud.connect(key).session
        _HEAT[key] = client.Client("1", session=session, region_name=served.cloud.region)
    return _HEAT[key]


def _last_event(served: Serving, stack: str, cloud: str | None = None) -> str | None:
    """The newest event's id (None: no such stack, or no event yet)."""
    from heatclient.exc import HTTPNotFound

    try:
        events = _heat(served, cloud).events.list(stack, sort_dir="desc", limit=1)
    except HTTPNotFound:
        return None
    return str(events[0].id) if events else None


def _wait(served: Serving, stack: str, marker: str | None, until: tuple[str, ...],
          cloud: str | None = None) -> str:
    """The stack's status once an event newer than ``marker`` says it reached one of
    ``until`` (as ``--wait`` reads it, but every ``POLL`` seconds)."""
    hc = _heat(served, cloud)
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        for event in hc.events.list(stack, marker=marker, sort_dir="asc"):
            marker = event.id
            if event.resource_name == stack and event.resource_status in until:
                return str(event.resource_status)
        time.sleep(POLL)
    raise AssertionError(f"stack {stack} did not reach {until} within {WAIT} s\n"
                         + served.log.read_text()[-4000:])


def _stack(served: Serving, verb: str, *args: str, stack: str,
           until: tuple[str, ...] | None = None, cloud: str | None = None) -> str:
    """``openstack stack <verb> <args>`` for ``stack``, then its status once the action
    ended (``until``: the statuses that end it; by default ``<VERB>_COMPLETE`` or
    ``_FAILED``). The command itself must succeed."""
    if verb == "delete":
        return _deleted(served, stack, *args, cloud=cloud, check=True)
    action = verb.upper()
    until = until or (f"{action}_COMPLETE", f"{action}_FAILED")
    marker = _last_event(served, stack, cloud) if verb != "create" else None
    _cli(served, "stack", verb, *args, cloud=cloud, check=True)
    return _wait(served, stack, marker, until, cloud)


def _deleted(served: Serving, stack: str, *args: str, cloud: str | None = None,
             check: bool = False) -> str:
    """``openstack stack delete <args> <stack>`` (if there is such a stack), then its
    status once gone (DELETE_COMPLETE) or failed; ``check``: the command must succeed."""
    from heatclient.exc import HTTPNotFound

    hc = _heat(served, cloud)
    try:
        stack_id = hc.stacks.get(stack).id
    except HTTPNotFound:
        assert not check, f"no stack {stack} to delete"
        return "DELETE_COMPLETE"
    done = _cli(served, "stack", "delete", "--yes", *args, stack_id, check=False, cloud=cloud)
    assert not check or done.returncode == 0, done.stderr
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            status = str(hc.stacks.get(stack_id).stack_status)
        except HTTPNotFound:
            return "DELETE_COMPLETE"
        if status in ("DELETE_COMPLETE", "DELETE_FAILED"):
            return status
        time.sleep(POLL)
    raise AssertionError(f"stack {stack} was not deleted within {WAIT} s")


def _template(served: Serving, text: str) -> str:
    path = served.tmp / f"t-{uuid.uuid4().hex[:8]}.yaml"
    path.write_text(text)
    return str(path)


def _physical(served: Serving, stack: str, cloud: str | None = None) -> dict[str, str]:
    listed = _heat(served, cloud).resources.list(stack)
    return {r.resource_name: r.physical_resource_id for r in listed}


def _shown(served: Serving, stack: str, cloud: str | None = None) -> dict[str, Any]:
    shown: dict[str, Any] = _heat(served, cloud).stacks.get(stack).to_dict()
    return shown


def _outputs(shown: dict[str, Any]) -> dict[str, Any]:
    return {o["output_key"]: o["output_value"] for o in shown.get("outputs") or []}


def _public(conn: Any) -> str:
    return str(next(iter(conn.network.networks(name=PUBLIC))).id)


def _gone(get: Any, ident: str) -> bool:
    from openstack.exceptions import NotFoundException

    try:
        get(ident)
    except NotFoundException:
        return True
    return False


def _delete(served: Serving, stack: str, cloud: str | None = None) -> None:
    """Delete the stack if there is one, and wait until it is gone or failed (cleanup)."""
    _deleted(served, stack, cloud=cloud)


def test_network_stack_create_update_replace_delete(served: Serving, user_conn: Any) -> None:
    name = f"nt-{uuid.uuid4().hex[:8]}"
    net_name = f"{name}-net"
    template = _template(served, NETWORK)
    try:
        created = _stack(served, "create", "-t", template, "--parameter",
                         f"net_name={net_name}", name, stack=name)
        assert created == "CREATE_COMPLETE", _shown(served, name)
        ids = _physical(served, name)
        net = user_conn.network.get_network(ids["net"])
        assert net.name == net_name
        subnet = user_conn.network.get_subnet(ids["subnet"])
        assert subnet.network_id == net.id and subnet.cidr == "10.31.0.0/24"
        router = user_conn.network.get_router(ids["router"])
        assert router.external_gateway_info["network_id"] == \
            _public(user_conn)
        assert ids["iface"] == f"{router.id}:subnet_id={subnet.id}"
        rules = user_conn.network.get_security_group(ids["sg"]).security_group_rules
        assert {(r["protocol"], r["port_range_min"]) for r in rules
                if r["direction"] == "ingress"} == {("tcp", 22), ("udp", 53)}
        outputs = _outputs(_cli(served, "stack", "show", name, "-f", "json"))  # the CLI's view
        assert outputs["net_show"]["id"] == net.id and outputs["net_show"]["name"] == net_name
        assert outputs["subnet_network"] == net.id
        assert outputs["fip_address"] == user_conn.network.get_ip(ids["fip"]).floating_ip_address

        # In place: a new name, one more rule, and the subnet's network given by id
        # rather than by name (the same network: no replacement).
        in_place = NETWORK.replace("network_id: {get_attr: [net, name]}",
                                   "network: {get_resource: net}")
        updated = _stack(served, "update", "-t", _template(served, in_place),
                         "--parameter", f"net_name={net_name}-2", "--parameter", "ports=22,80",
                         name, stack=name)
        assert updated == "UPDATE_COMPLETE", _shown(served, name)
        assert _physical(served, name) == ids
        assert user_conn.network.get_network(ids["net"]).name == f"{net_name}-2"
        # As in Heat, the group's rules property owns every rule of the group: its
        # update removes the rule the separate SecurityGroupRule added.
        rules = user_conn.network.get_security_group(ids["sg"]).security_group_rules
        assert {(r["protocol"], r["port_range_min"]) for r in rules
                if r["direction"] == "ingress"} == {("tcp", 22), ("tcp", 80)}

        # Replacement: a new CIDR needs a new subnet, and so a new interface.
        replaced = _stack(served, "update", "-t", _template(served, in_place),
                          "--parameter", f"net_name={net_name}-2", "--parameter", "ports=22,80",
                          "--parameter", "cidr=10.32.0.0/24", name, stack=name)
        assert replaced == "UPDATE_COMPLETE", _shown(served, name)
        after = _physical(served, name)
        assert after["subnet"] != ids["subnet"] and after["iface"] != ids["iface"]
        assert {k: v for k, v in after.items() if k not in ("subnet", "iface")} == \
            {k: v for k, v in ids.items() if k not in ("subnet", "iface")}
        assert user_conn.network.get_subnet(after["subnet"]).cidr == "10.32.0.0/24"
        assert _gone(user_conn.network.get_subnet, ids["subnet"])
    finally:
        _delete(served, name)
    assert _gone(user_conn.network.get_network, ids["net"])
    assert _gone(user_conn.network.get_router, ids["router"])


FAILING = """heat_template_version: 2021-04-16
resources:
  net: {type: OS::Neutron::Net}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.33.0.0/24}
"""


def test_a_failed_update_is_rolled_back(served: Serving, user_conn: Any) -> None:
    name = f"nt-{uuid.uuid4().hex[:8]}"
    try:
        _stack(served, "create", "-t", _template(served, FAILING), name, stack=name)
        ids = _physical(served, name)
        overlapping = FAILING + """  again:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.33.0.128/25}
"""
        rolled = _stack(served, "update", "--rollback", "enabled", "-t",
                        _template(served, overlapping), name, stack=name,
                        until=("ROLLBACK_COMPLETE", "ROLLBACK_FAILED"))
        assert rolled == "ROLLBACK_COMPLETE", _shown(served, name)
        events = _heat(served).events.list(name)
        failed = [e for e in events if e.resource_name == "again"
                  and e.resource_status == "CREATE_FAILED"]
        assert failed, events
        reason = failed[0].resource_status_reason
        assert reason.startswith(
            "BadRequest: resources.again: Invalid input for operation: Requested subnet with "
            "cidr: 10.33.0.128/25 for network: "), reason
        assert "overlaps with another subnet" in reason
        assert [s.id for s in user_conn.network.subnets(network_id=ids["net"])] == \
            [ids["subnet"]]
    finally:
        _delete(served, name)


RETAINED = """heat_template_version: 2021-04-16
resources:
  kept:
    type: OS::Neutron::Net
    deletion_policy: Retain
  router: {type: OS::Neutron::Router}
  gateway:
    type: OS::Neutron::RouterGateway
    properties: {router_id: {get_resource: router}, network_id: @PUBLIC@}
""".replace("@PUBLIC@", PUBLIC)


def test_retain_keeps_the_network_and_a_hidden_gateway_works(served: Serving,
                                                              user_conn: Any) -> None:
    name = f"nt-{uuid.uuid4().hex[:8]}"
    kept = None
    try:
        _stack(served, "create", "-t", _template(served, RETAINED), name, stack=name)
        ids = _physical(served, name)
        kept = ids["kept"]
        public = _public(user_conn)
        assert ids["gateway"] == f"{ids['router']}:{public}"
        gateway = user_conn.network.get_router(ids["router"]).external_gateway_info
        assert gateway["network_id"] == public
        assert _stack(served, "delete", name, stack=name) == "DELETE_COMPLETE"
        assert user_conn.network.get_network(kept).name.startswith(f"{name}-kept-")
        assert _gone(user_conn.network.get_router, ids["router"])
    finally:
        _delete(served, name)
        if kept is not None:
            user_conn.network.delete_network(kept, ignore_missing=True)


def test_abandon_and_adopt_a_network_stack(served: Serving, user_conn: Any) -> None:
    name = f"nt-{uuid.uuid4().hex[:8]}"
    adopted = f"{name}-adopted"
    ids: dict[str, str] = {}
    try:
        _stack(served, "create", "-t", _template(served, FAILING), name, stack=name)
        ids = _physical(served, name)
        data = _cli(served, "stack", "abandon", name, "-f", "json")
        assert user_conn.network.get_network(ids["net"]) is not None  # abandoned, not deleted
        adopt_file = served.tmp / f"{name}.json"
        adopt_file.write_text(json.dumps(data))
        done = _stack(served, "adopt", "--adopt-file", str(adopt_file), adopted,
                      stack=adopted)
        assert done == "ADOPT_COMPLETE", _shown(served, adopted)
        assert _physical(served, adopted) == ids
        assert _stack(served, "delete", adopted, stack=adopted) == "DELETE_COMPLETE"
        assert _gone(user_conn.network.get_network, ids["net"])
    finally:
        _delete(served, adopted)
        _delete(served, name)
        if ids:
            user_conn.network.delete_subnet(ids["subnet"], ignore_missing=True)
            user_conn.network.delete_network(ids["net"], ignore_missing=True)

"""OS::Heat::Stack in another region of the same Keystone, made by that region's hotplate.

Two real ``hotplate serve --auth keystone`` on the project's cloud, each with its own
SQLite database and Heat's ``[trustee]``: the first is RegionOne's orchestration service
(the catalog's 127.0.0.1:8004, ``region_name_for_services = RegionOne``), the second
RegionTwo's (127.0.0.1:8024, the catalog's RegionTwo endpoint that ``cloud/bootstrap.py``
makes). A stack made in the first holds an ``OS::Heat::Stack`` with ``context:
{region_name: RegionTwo}``: its stack is made by the second, through the RegionTwo
endpoint of the stack owner's catalog, with the parent's trust (which the first makes
redelegatable, ``reauthentication_auth_method = trusts``, so that the second may take a
trust of its own from it). Read back through python-heatclient in each region. Stacks
are named ``rr-...``; every one is deleted by its test.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cloud.locate import Cloud
from tests.cloud.serving import Serving, keystone_serve
from tests.cloud.stacks import keystone_extra, serve_on_catalog_ports, unique_name

REGION_ONE, REGION_TWO = "RegionOne", "RegionTwo"
REGION_TWO_PORT = 8024
"""``HOTPLATE_REGION2_PORT`` of ``cloud/common.sh``: where the catalog's RegionTwo points."""
WAIT, POLL = 120.0, 0.5

CHILD = """heat_template_version: 2013-05-23
parameters:
  length: {type: number, default: 12}
resources:
  random1:
    type: OS::Heat::RandomString
    properties: {length: {get_param: length}}
outputs:
  remote_key: {value: {get_attr: [random1, value]}}
"""

PARENT = """heat_template_version: 2013-05-23
parameters:
  child: {type: string}
  region: {type: string, default: RegionTwo}
  length: {type: number, default: 12}
resources:
  remote:
    type: OS::Heat::Stack
    properties:
      context: {region_name: {get_param: region}}
      template: {get_param: child}
      parameters: {length: {get_param: length}}
outputs:
  key: {value: {get_attr: [remote, outputs, remote_key]}}
  name: {value: {get_attr: [remote, stack_name]}}
"""

FAILING = """heat_template_version: 2013-05-23
parameters:
  length: {type: number}
resources:
  broken:
    type: OS::Heat::TestResource
    properties: {fail: true}
"""


def _config(cloud: Cloud, region: str) -> str:
    """The suite's Keystone-mode configuration (trustee, stack domain), in ``region``."""
    return (keystone_extra(cloud).replace("[DEFAULT]\n", "[DEFAULT]\n"
                                          f"region_name_for_services = {region}\n"
                                  "reauthentication_auth_method = trusts\n"
                                  "allow_trusts_redelegation = true\n", 1))


@pytest.fixture(scope="module")
def region_two(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    tmp = Path(tmp_path_factory.mktemp("region-two"))
    with keystone_serve(cloud, tmp, extra=_config(cloud, REGION_TWO), port=REGION_TWO_PORT,
                        cfn_port=0) as serving:
        yield serving


@pytest.fixture(scope="module")
def region_one(cloud: Cloud, region_two: Serving,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    """RegionOne's hotplate on the catalog's ports (restarted while another suite's
    server holds them, as test_neutron_types' ``served``)."""
    yield from serve_on_catalog_ports(cloud, tmp_path_factory, "region-one",
                                      _config(cloud, REGION_ONE))


def _heat(served: Serving, region: str) -> Any:
    """python-heatclient as the test user, through the catalog's ``region``."""
    from heatclient import client

    session = served.cloud.connect().session
    return client.Client("1", session=session, region_name=region)


@dataclasses.dataclass
class Regions:
    one: Any
    two: Any
    one_log: Path
    two_log: Path

    def logs(self) -> str:
        return ("--- RegionOne ---\n" + self.one_log.read_text()[-3000:]
                + "\n--- RegionTwo ---\n" + self.two_log.read_text()[-3000:])


@pytest.fixture(scope="module")
def regions(region_one: Serving, region_two: Serving) -> Regions:
    return Regions(_heat(region_one, REGION_ONE), _heat(region_two, REGION_TWO),
                   region_one.log, region_two.log)


def _settled(hc: Any, stack: str, until: tuple[str, ...], log: str = "") -> Any:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        shown = hc.stacks.get(stack)
        if shown.stack_status in until:
            return shown
        time.sleep(POLL)
    raise AssertionError(f"stack {stack} did not reach {until} within {WAIT} s\n{log}")


def _gone(hc: Any, stack_id: str) -> bool:
    from heatclient.exc import HTTPNotFound

    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            status = hc.stacks.get(stack_id).stack_status
        except HTTPNotFound:
            return True
        if status == "DELETE_COMPLETE":
            return True
        assert status != "DELETE_FAILED", hc.stacks.get(stack_id).stack_status_reason
        time.sleep(POLL)
    return False


def _create(regions: Regions, name: str, **parameters: Any) -> Any:
    regions.one.stacks.create(stack_name=name, template=PARENT,
                              parameters={"child": CHILD, **parameters})
    return _settled(regions.one, name, ("CREATE_COMPLETE", "CREATE_FAILED"), regions.logs())


def _delete(regions: Regions, name: str) -> None:
    from heatclient.exc import HTTPNotFound

    try:
        stack_id = regions.one.stacks.get(name).id
    except HTTPNotFound:
        return
    regions.one.stacks.delete(stack_id)
    assert _gone(regions.one, stack_id), regions.logs()


def _outputs(shown: Any) -> dict[str, Any]:
    return {o["output_key"]: o["output_value"] for o in shown.to_dict().get("outputs") or []}


def _listed(hc: Any, stack_id: str) -> bool:
    return any(s.id == stack_id for s in hc.stacks.list())


def test_the_child_is_made_updated_and_deleted_by_the_other_region(regions: Regions) -> None:
    name = unique_name("rr-")
    try:
        shown = _create(regions, name)
        assert shown.stack_status == "CREATE_COMPLETE", (shown.stack_status_reason,
                                                         regions.logs())
        remote_id = regions.one.resources.get(name, "remote").physical_resource_id
        child = regions.two.stacks.get(remote_id)
        assert child.stack_status == "CREATE_COMPLETE"
        assert child.stack_name.startswith(f"{name}-remote-")
        # made by RegionTwo's hotplate: listed there, unknown to RegionOne's
        assert _listed(regions.two, remote_id) and not _listed(regions.one, remote_id)
        assert {r.resource_name for r in regions.two.resources.list(remote_id)} == {"random1"}
        # the outputs reach the parent's attributes
        key = _outputs(child)["remote_key"]
        assert len(key) == 12
        assert _outputs(regions.one.stacks.get(name)) == {"key": key,
                                                         "name": child.stack_name}

        # an update reaches the same remote stack, in place
        regions.one.stacks.update(name, template=PARENT,
                                  parameters={"child": CHILD.replace("random1", "random2"),
                                              "length": 20})
        updated = _settled(regions.one, name, ("UPDATE_COMPLETE", "UPDATE_FAILED"),
                           regions.logs())
        assert updated.stack_status == "UPDATE_COMPLETE", updated.stack_status_reason
        assert regions.one.resources.get(name, "remote").physical_resource_id == remote_id
        child = regions.two.stacks.get(remote_id)
        assert child.stack_status == "UPDATE_COMPLETE"
        assert {r.resource_name for r in regions.two.resources.list(remote_id)} == {"random2"}
        key = _outputs(child)["remote_key"]
        assert len(key) == 20 and _outputs(regions.one.stacks.get(name))["key"] == key

        # the delete goes through to the other region
        _delete(regions, name)
        assert _gone(regions.two, remote_id)
    finally:
        _delete(regions, name)


def test_a_region_without_orchestration_is_refused_in_heats_words(regions: Regions) -> None:
    from heatclient.exc import HTTPBadRequest

    name = unique_name("rr-")
    with pytest.raises(HTTPBadRequest) as refused:
        regions.one.stacks.create(stack_name=name, template=PARENT,
                                  parameters={"child": CHILD, "region": "DARKHOLE"})
    assert str(refused.value) == (
        'ERROR: Cannot establish connection to Heat endpoint at region "DARKHOLE" due to '
        '"public endpoint for orchestration service in DARKHOLE region not found"')
    assert not any(s.stack_name == name for s in regions.one.stacks.list())


def test_a_failing_remote_stack_fails_the_parent_with_its_reason(regions: Regions) -> None:
    name = unique_name("rr-")
    try:
        shown = _create(regions, name, child=FAILING)
        assert shown.stack_status == "CREATE_FAILED", regions.logs()
        remote_id = regions.one.resources.get(name, "remote").physical_resource_id
        child = regions.two.stacks.get(remote_id)
        assert child.stack_status == "CREATE_FAILED"
        assert child.stack_status_reason == (
            "Resource CREATE failed: ValueError: resources.broken: Test Resource failed broken")
        expected = ('ResourceInError: resources.remote: Went to status CREATE_FAILED due to '
                    f'"{child.stack_status_reason}"')
        assert regions.one.resources.get(name, "remote").resource_status_reason == expected
        assert shown.stack_status_reason == f"Resource CREATE failed: {expected}"
    finally:
        _delete(regions, name)


def test_suspend_and_resume_reach_the_remote_stack(regions: Regions) -> None:
    name = unique_name("rr-")
    try:
        assert _create(regions, name).stack_status == "CREATE_COMPLETE", regions.logs()
        remote_id = regions.one.resources.get(name, "remote").physical_resource_id
        for action in ("suspend", "resume"):
            getattr(regions.one.actions, action)(name)
            done = f"{action.upper()}_COMPLETE"
            shown = _settled(regions.one, name, (done, f"{action.upper()}_FAILED"),
                             regions.logs())
            assert shown.stack_status == done, shown.stack_status_reason
            assert regions.two.stacks.get(remote_id).stack_status == done
    finally:
        _delete(regions, name)


def test_a_remote_stack_deleted_out_of_band(regions: Regions) -> None:
    """As Heat's RemoteStack: an update of it fails with the remote API's 404, and the
    parent's delete goes through (the remote stack's absence is its delete)."""
    name = unique_name("rr-")
    try:
        assert _create(regions, name).stack_status == "CREATE_COMPLETE", regions.logs()
        remote_id = regions.one.resources.get(name, "remote").physical_resource_id
        regions.two.stacks.delete(remote_id)
        assert _gone(regions.two, remote_id)

        regions.one.stacks.update(name, template=PARENT,
                                  parameters={"child": CHILD, "length": 16})
        shown = _settled(regions.one, name, ("UPDATE_COMPLETE", "UPDATE_FAILED"),
                         regions.logs())
        assert shown.stack_status == "UPDATE_FAILED"
        reason = regions.one.resources.get(name, "remote").resource_status_reason
        assert reason.startswith("HTTPNotFound: resources.remote: ERROR: The Stack ("), reason
        assert reason.endswith(") could not be found."), reason

        stack_id = regions.one.stacks.get(name).id
        regions.one.stacks.delete(stack_id)
        assert _gone(regions.one, stack_id), regions.logs()
    finally:
        _delete(regions, name)


def test_the_other_region_validates_the_template(regions: Regions) -> None:
    """As Heat's RemoteStack: the remote template is validated by the region's Heat, and
    its refusal is the parent's 400 in Heat's words."""
    from heatclient.exc import HTTPBadRequest

    name = unique_name("rr-")
    before = regions.two_log.read_text().count("/validate HTTP/1.1")
    with pytest.raises(HTTPBadRequest) as refused:
        regions.one.stacks.create(stack_name=name, template=PARENT, parameters={
            "child": CHILD.replace("resources:", "resource:")})
    assert str(refused.value) == (
        'ERROR: Failed validating stack template using Heat endpoint at region "RegionTwo" '
        'due to "ERROR: The template section is invalid: resource"')
    assert regions.two_log.read_text().count("/validate HTTP/1.1") == before + 1
    assert not any(s.stack_name == name for s in regions.one.stacks.list())

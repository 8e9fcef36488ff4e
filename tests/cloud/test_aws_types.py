"""The AWS-compatible types against the project's real cloud, through ``openstack stack ...``.

hotplate serves in Keystone mode with Heat's ``[trustee]``; each test drives it with
the unchanged openstack CLI as a user of the cloud's second project (``OS_AWS_CLOUD``,
default ``hotplate-alt-demo``) and reads the result back from the cloud. Stacks and
cloud objects are named ``aw-...``; ``cloud_leaks`` fails a test that leaves one behind.

An instance group's launch configuration makes no server, but its ``ImageId`` and
``InstanceType`` are checked against Glance and Nova when the stack is validated,
as Heat checks them (its members here are a provider template).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cloud.leaks import cloud_leaks  # noqa: F401  (a fixture)
from tests.cloud.locate import Cloud
from tests.cloud.serving import Serving
from tests.cloud.stacks import (
    as_user,
    cli,
    gone,
    outputs_of,
    physical_ids,
    serve_on_catalog_ports,
    template_file,
    unique_name,
)

pytestmark = pytest.mark.usefixtures("cloud_leaks")
LEAK_PREFIX = "aw-"
"""Every object these tests make is named so (``cloud_leaks``)."""

AWS_CLOUD = os.environ.get("OS_AWS_CLOUD") or "hotplate-alt-demo"
IMAGE, FLAVOR = "cirros-fake", "m1.tiny"


@pytest.fixture(scope="module")
def aws_cloud(cloud: Cloud) -> Cloud:
    return as_user(cloud, AWS_CLOUD)


@pytest.fixture(scope="module")
def served(aws_cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    """hotplate on the catalog's ports, as this module's user."""
    yield from serve_on_catalog_ports(aws_cloud, tmp_path_factory, "aws-serve")


GROUP = """heat_template_version: 2013-05-23
parameters:
  image: {type: string}
  flavor: {type: string}
resources:
  config:
    type: AWS::AutoScaling::LaunchConfiguration
    properties:
      ImageId: {get_param: image}
      InstanceType: {get_param: flavor}
      SecurityGroups: [default]
      UserData: hello
  group:
    type: OS::Heat::InstanceGroup
    properties:
      AvailabilityZones: [nova]
      LaunchConfigurationName: {get_resource: config}
      Size: 2
outputs:
  list: {value: {get_attr: [group, InstanceList]}}
"""

MEMBER = """heat_template_version: 2013-05-23
parameters:
  ImageId: {type: string}
  InstanceType: {type: string}
  SecurityGroups: {type: comma_delimited_list}
  UserData: {type: string}
  Tags: {type: comma_delimited_list}
outputs:
  PublicIp: {value: {get_param: ImageId}}
"""


def _files(served: Serving) -> tuple[str, str]:
    """The template and an environment mapping AWS::EC2::Instance to the member."""
    folder = served.tmp / f"aw-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    (folder / "group.yaml").write_text(GROUP)
    (folder / "member.yaml").write_text(MEMBER)
    (folder / "env.yaml").write_text("resource_registry:\n  AWS::EC2::Instance: member.yaml\n")
    return str(folder / "group.yaml"), str(folder / "env.yaml")


def _create(served: Serving, name: str, image: str, flavor: str) -> Any:
    template, env = _files(served)
    return cli(served, "stack", "create", "--wait", "-t", template, "-e", env,
               "--parameter", f"image={image}", "--parameter", f"flavor={flavor}",
               name, "-f", "json", check=False)


@pytest.mark.parametrize(("image", "flavor", "error"), [
    ("aw-no-such-image", FLAVOR,
     "resources.config.properties.ImageId: Error validating value 'aw-no-such-image': "
     "No images matching {'name': 'aw-no-such-image'}."),
    (IMAGE, "aw-no-such-flavor",
     "resources.config.properties.InstanceType: Error validating value "
     "'aw-no-such-flavor': "),
])
def test_launch_configuration_image_and_flavor_are_checked(
        served: Serving, image: str, flavor: str, error: str) -> None:
    name = unique_name(LEAK_PREFIX)
    done = _create(served, name, image, flavor)
    try:
        assert done.returncode != 0
        assert error in done.stderr, done.stderr
    finally:
        cli(served, "stack", "delete", "--yes", "--wait", name, check=False)


def test_instance_group_of_provider_members(served: Serving) -> None:
    name = unique_name(LEAK_PREFIX)
    try:
        done = _create(served, name, IMAGE, FLAVOR)
        assert done.returncode == 0, done.stderr + served.log.read_text()[-4000:]
        shown = cli(served, "stack", "show", name, "-f", "json")
        assert shown["stack_status"] == "CREATE_COMPLETE"
        assert outputs_of(shown)["list"] == f"{IMAGE},{IMAGE}"
    finally:
        cli(served, "stack", "delete", "--yes", "--wait", name, check=False)


INSTANCE = """heat_template_version: 2013-05-23
parameters:
  flavor: {type: string, default: m1.tiny}
  role: {type: string, default: web}
resources:
  net:
    type: OS::Neutron::Net
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.43.0.0/24}
  instance:
    type: AWS::EC2::Instance
    metadata: {AWS::CloudFormation::Init: {config: {files: {}}}}
    properties:
      ImageId: cirros-fake
      InstanceType: {get_param: flavor}
      SecurityGroups: [default]
      SubnetId: {get_resource: subnet}
      UserData: "#!/bin/sh\\necho hello\\n"
      Tags:
        - {Key: role, Value: {get_param: role}}
outputs:
  public: {value: {get_attr: [instance, PublicIp]}}
  private: {value: {get_attr: [instance, PrivateIp]}}
  dns: {value: {get_attr: [instance, PublicDnsName]}}
  zone: {value: {get_attr: [instance, AvailabilityZone]}}
"""


def test_instance_is_a_nova_server(served: Serving, aws_cloud: Cloud) -> None:
    """A server on a port made on the subnet, with the tags as its metadata and Heat's
    cfn-init user data; tags and flavor change in place; the port goes with it."""
    name = unique_name(LEAK_PREFIX)
    conn = aws_cloud.connect()
    port = None
    try:
        created = cli(served, "stack", "create", "--wait", "-t", template_file(served, INSTANCE),
                      name, "-f", "json")
        assert created["stack_status"] == "CREATE_COMPLETE", created
        server_id = physical_ids(served, name)["instance"]
        server = conn.compute.get_server(server_id)
        assert server.name.startswith(f"{name}-instance-")
        assert server.metadata == {"role": "web"}
        ports = list(conn.network.ports(device_id=server_id))
        assert len(ports) == 1
        address = ports[0].fixed_ips[0]["ip_address"]
        assert address.startswith("10.43.0.")
        outputs = outputs_of(cli(served, "stack", "show", name, "-f", "json"))
        assert outputs["public"] == outputs["private"] == outputs["dns"] == address
        assert outputs["zone"] == "nova"
        updated = cli(served, "stack", "update", "--wait", "--existing", "--parameter",
                      "role=db", "--parameter", "flavor=m1.small", name, "-f", "json")
        assert updated["stack_status"] == "UPDATE_COMPLETE", updated
        server = conn.compute.get_server(server_id)
        assert server.metadata == {"role": "db"}
        assert server.flavor["original_name"] == "m1.small"
        port = ports[0].id
    finally:
        cli(served, "stack", "delete", "--yes", "--wait", name, check=False)
    try:
        assert port is not None and gone(conn.network.get_port, port)
    finally:
        conn.close()

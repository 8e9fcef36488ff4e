"""The admin's Nova and Neutron types against the real cloud, through ``openstack stack ...``.

Flavors (public with extra specs, private with tenants), host aggregates and the
Nova and Neutron quotas, driven by the admin with the unchanged openstack CLI and
read back from Nova, Neutron and Keystone. Quotas are set only on a project the
stack makes itself (never on demo, alt-demo, admin or service), and the stack's
delete resets them before it deletes that project. The one compute host joins an
aggregate with no availability zone only (an aggregate's zone would move the host,
and the servers of other suites on it, to another zone). ``admin_leaks`` fails a
test that leaves a flavor, aggregate or Keystone object named ``LEAK_PREFIX``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.cloud.admin_leaks import admin_leaks  # noqa: F401  (a fixture)
from tests.cloud.serving import Serving
from tests.cloud.stacks import (
    cli,
    delete_stack,
    gone,
    outputs_of,
    physical_ids,
    show_stack,
    stack_action,
    template_file,
    unique_name,
)

pytestmark = pytest.mark.usefixtures("admin_leaks")
LEAK_PREFIX = "hpa-"


FLAVORS = """heat_template_version: 2021-04-16
parameters:
  ram: {type: number, default: 64}
  specs: {type: json, default: {"hw:cpu_policy": shared, "hp:one": "1"}}
  tenants: {type: comma_delimited_list, default: ""}
resources:
  project: {type: OS::Keystone::Project}
  public:
    type: OS::Nova::Flavor
    properties: {ram: {get_param: ram}, vcpus: 1, disk: 1, extra_specs: {get_param: specs}}
  private:
    type: OS::Nova::Flavor
    properties:
      ram: 64
      vcpus: 1
      is_public: false
      tenants:
        list_concat: [[{get_resource: project}], {get_param: tenants}]
outputs:
  specs: {value: {get_attr: [public, extra_specs]}}
  public: {value: {get_attr: [public, is_public]}}
  private: {value: {get_attr: [private, is_public]}}
"""


def _access(conn: Any, flavor: str) -> set[str]:
    return {a["tenant_id"] for a in
            conn.compute.get(f"/flavors/{flavor}/os-flavor-access").json()["flavor_access"]}


def _specs(conn: Any, flavor: str) -> dict[str, str]:
    found: dict[str, str] = conn.compute.get(
        f"/flavors/{flavor}/os-extra_specs").json()["extra_specs"]
    return found


def test_flavors_public_and_private(served: Serving, admin_conn: Any) -> None:
    admin = served.cloud.admin
    name = unique_name(LEAK_PREFIX)
    template = template_file(served, FLAVORS)
    ids: dict[str, str] = {}
    try:
        created = stack_action(served, "create", "-t", template, "--parameter", "tenants=", name,
                               stack=name, cloud=admin)
        assert created == "CREATE_COMPLETE", show_stack(served, name, admin)
        ids = physical_ids(served, name, admin)
        compute = admin_conn.compute
        public = compute.get_flavor(ids["public"])
        assert public.name.startswith(f"{name}-public-")
        assert (public.ram, public.vcpus, public.disk, public.is_public) == (64, 1, 1, True)
        assert _specs(admin_conn, ids["public"]) == {"hw:cpu_policy": "shared", "hp:one": "1"}
        assert compute.get_flavor(ids["private"]).is_public is False
        assert _access(admin_conn, ids["private"]) == {ids["project"]}
        outputs = outputs_of(show_stack(served, name, admin))
        assert outputs["specs"] == {"hw:cpu_policy": "shared", "hp:one": "1"}
        assert outputs["public"] is True and outputs["private"] is False

        # In place: the extra specs replaced whole, one more tenant (by name).
        updated = stack_action(served, "update", "-t", template, "--parameter", "tenants=admin",
                               "--parameter", 'specs={"hp:two": "2"}', name, stack=name,
                               cloud=admin)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name, admin)
        assert physical_ids(served, name, admin) == ids
        assert _specs(admin_conn, ids["public"]) == {"hp:two": "2"}
        admin_project = admin_conn.current_project_id
        assert _access(admin_conn, ids["private"]) == {ids["project"], admin_project}

        # A new amount of memory is a new flavor; the old one goes.
        replaced = stack_action(served, "update", "-t", template, "--parameter", "tenants=admin",
                                "--parameter", 'specs={"hp:two": "2"}', "--parameter", "ram=128",
                                name, stack=name, cloud=admin)
        assert replaced == "UPDATE_COMPLETE", show_stack(served, name, admin)
        after = physical_ids(served, name, admin)
        assert after["public"] != ids["public"] and gone(compute.get_flavor, ids["public"])
        assert compute.get_flavor(after["public"]).ram == 128
        assert _specs(admin_conn, after["public"]) == {"hp:two": "2"}
        ids = after
    finally:
        delete_stack(served, name, admin)
    assert gone(admin_conn.compute.get_flavor, ids["public"])
    assert gone(admin_conn.compute.get_flavor, ids["private"])


AGGREGATES = """heat_template_version: 2021-04-16
parameters:
  prefix: {type: string}
  suffix: {type: string, default: a}
  hosts: {type: comma_delimited_list}
  metadata: {type: json, default: {"hp-one": "1"}}
resources:
  hosted:
    type: OS::Nova::HostAggregate
    properties:
      name: {list_join: ['-', [{get_param: prefix}, hosted, {get_param: suffix}]]}
      hosts: {get_param: hosts}
      metadata: {get_param: metadata}
  zoned:
    type: OS::Nova::HostAggregate
    properties:
      name: {list_join: ['-', [{get_param: prefix}, zoned]]}
      availability_zone: {list_join: ['-', [{get_param: prefix}, {get_param: suffix}]]}
outputs:
  show: {value: {get_attr: [hosted, show]}}
"""


def test_host_aggregates(served: Serving, admin_conn: Any) -> None:
    admin = served.cloud.admin
    name = unique_name(LEAK_PREFIX)
    host = next(iter(admin_conn.compute.hypervisors())).name
    template = template_file(served, AGGREGATES)
    ids: dict[str, str] = {}
    try:
        created = stack_action(served, "create", "-t", template, "--parameter", f"prefix={name}",
                               "--parameter", f"hosts={host}", name, stack=name, cloud=admin)
        assert created == "CREATE_COMPLETE", show_stack(served, name, admin)
        ids = physical_ids(served, name, admin)
        compute = admin_conn.compute
        hosted = compute.get_aggregate(ids["hosted"])
        assert (hosted.name, hosted.hosts, hosted.metadata) == (
            f"{name}-hosted-a", [host], {"hp-one": "1"})
        zoned = compute.get_aggregate(ids["zoned"])
        assert zoned.availability_zone == f"{name}-a" and not zoned.hosts
        assert outputs_of(show_stack(served, name, admin))["show"]["hosts"] == [host]

        # In place: new names and zone, the host leaves, the metadata key is swapped.
        updated = stack_action(served, "update", "-t", template, "--parameter", f"prefix={name}",
                               "--parameter", "hosts=", "--parameter", "suffix=b", "--parameter",
                               'metadata={"hp-two": "2"}', name, stack=name, cloud=admin)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name, admin)
        assert physical_ids(served, name, admin) == ids
        hosted = compute.get_aggregate(ids["hosted"])
        assert (hosted.name, hosted.hosts, hosted.metadata) == (
            f"{name}-hosted-b", [], {"hp-two": "2"})
        assert compute.get_aggregate(ids["zoned"]).availability_zone == f"{name}-b"

        # The host back; the delete takes it out before it deletes the aggregate.
        again = stack_action(served, "update", "-t", template, "--parameter", f"prefix={name}",
                             "--parameter", f"hosts={host}", "--parameter", "suffix=b",
                             name, stack=name, cloud=admin)
        assert again == "UPDATE_COMPLETE", show_stack(served, name, admin)
        assert compute.get_aggregate(ids["hosted"]).hosts == [host]
    finally:
        delete_stack(served, name, admin)
    for key in ("hosted", "zoned"):
        assert gone(admin_conn.compute.get_aggregate, ids[key])


def test_unknown_host_is_refused(served: Serving) -> None:
    name = unique_name(LEAK_PREFIX)
    refused = cli(served, "stack", "create", "-t", template_file(served, AGGREGATES),
                  "--parameter", f"prefix={name}", "--parameter", "hosts=hp-no-such-host",
                  name, check=False, cloud=served.cloud.admin)
    assert refused.returncode != 0
    assert "Error validating value 'hp-no-such-host': No hypervisor matching " \
           "'hp-no-such-host' could be found. (HTTP 404)" in refused.stderr, refused.stderr


QUOTAS = """heat_template_version: 2021-04-16
parameters:
  cores: {type: number, default: 7}
  networks: {type: number, default: 3}
  with_quotas: {type: boolean, default: true}
conditions:
  quotas: {get_param: with_quotas}
resources:
  project: {type: OS::Keystone::Project}
  nova:
    type: OS::Nova::Quota
    condition: quotas
    properties: {project: {get_attr: [project, name]}, cores: {get_param: cores},
                 key_pairs: 11}
  neutron:
    type: OS::Neutron::Quota
    condition: quotas
    properties: {project: {get_resource: project}, network: {get_param: networks},
                 port: 21}
outputs:
  nova: {value: {get_attr: [nova, show, cores]}, condition: quotas}
"""


def test_quotas_on_a_project_of_their_own(served: Serving, admin_conn: Any) -> None:
    admin = served.cloud.admin
    name = unique_name(LEAK_PREFIX)
    template = template_file(served, QUOTAS)
    ids: dict[str, str] = {}
    try:
        created = stack_action(served, "create", "-t", template, name, stack=name, cloud=admin)
        assert created == "CREATE_COMPLETE", show_stack(served, name, admin)
        ids = physical_ids(served, name, admin)
        project = ids["project"]
        assert ids["nova"].startswith(f"{name}-nova-")  # the physical name, as in Heat
        nova_defaults = admin_conn.compute.get(
            f"/os-quota-sets/{project}/defaults").json()["quota_set"]
        neutron_defaults = admin_conn.network.get(
            f"/quotas/{project}/default").json()["quota"]

        def nova() -> dict[str, Any]:
            found: dict[str, Any] = admin_conn.compute.get(
                f"/os-quota-sets/{project}").json()["quota_set"]
            return found

        def neutron() -> dict[str, Any]:
            found: dict[str, Any] = admin_conn.network.get(
                f"/quotas/{project}").json()["quota"]
            return found

        assert (nova()["cores"], nova()["key_pairs"]) == (7, 11)
        assert (neutron()["network"], neutron()["port"]) == (3, 21)
        assert outputs_of(show_stack(served, name, admin))["nova"] == 7

        updated = stack_action(served, "update", "-t", template, "--parameter", "cores=9",
                               "--parameter", "networks=-1", name, stack=name, cloud=admin)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name, admin)
        assert physical_ids(served, name, admin) == ids
        assert (nova()["cores"], nova()["key_pairs"]) == (9, 11)
        assert (neutron()["network"], neutron()["port"]) == (-1, 21)

        # The quotas' delete sets the project back to each service's defaults.
        dropped = stack_action(served, "update", "-t", template,
                               "--parameter", "with_quotas=false", name, stack=name,
                               cloud=admin)
        assert dropped == "UPDATE_COMPLETE", show_stack(served, name, admin)
        assert (nova()["cores"], nova()["key_pairs"]) == (nova_defaults["cores"],
                                                          nova_defaults["key_pairs"])
        assert (neutron()["network"], neutron()["port"]) == (neutron_defaults["network"],
                                                             neutron_defaults["port"])
    finally:
        delete_stack(served, name, admin)
    assert gone(admin_conn.identity.get_project, ids["project"])


def test_a_quota_needs_a_limit(served: Serving) -> None:
    template = """heat_template_version: 2021-04-16
resources:
  quota: {type: OS::Neutron::Quota, properties: {project: admin}}
"""
    name = unique_name(LEAK_PREFIX)
    refused = cli(served, "stack", "create", "-t", template_file(served, template), name,
                  check=False, cloud=served.cloud.admin)
    assert refused.returncode != 0
    assert "At least one of the following properties must be specified: floatingip, " \
           "network, port, rbac_policy, router, security_group, security_group_rule, " \
           "subnet, subnetpool." in refused.stderr, refused.stderr


FORBIDDEN = """heat_template_version: 2021-04-16
resources:
  flavor: {type: OS::Nova::Flavor, properties: {ram: 64, vcpus: 1}}
"""


def test_demo_is_refused_the_admin_types(served: Serving) -> None:
    refused = cli(served, "stack", "create", "-t", template_file(served, FORBIDDEN),
                  unique_name(LEAK_PREFIX), check=False)
    assert refused.returncode != 0
    assert "You are not authorized to use resource_types:OS::Nova::Flavor." in \
        refused.stderr, refused.stderr

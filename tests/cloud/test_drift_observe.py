"""``[DEFAULT] observe_on_update = true``: every update compares the template with the
live state, so a plain ``openstack stack update --existing`` (no ``--converge``) sets
back what was changed behind hotplate's back, as Heat's does with that option."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cloud.leaks import network_leaks  # noqa: F401  (a fixture)
from tests.cloud.locate import Cloud
from tests.cloud.serving import Serving
from tests.cloud.stacks import (
    delete_stack,
    keystone_extra,
    physical_ids,
    serve_on_catalog_ports,
    show_stack,
    stack_action,
    template_file,
)

pytestmark = pytest.mark.usefixtures("network_leaks")

TEMPLATE = """heat_template_version: 2021-04-16
parameters:
  prefix: {type: string}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: {list_join: ["-", [{get_param: prefix}, net]]}}
  port:
    type: OS::Neutron::Port
    properties:
      name: {list_join: ["-", [{get_param: prefix}, port]]}
      network: {get_resource: net}
"""


@pytest.fixture(scope="module")
def served(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    """hotplate on the catalog's ports, its engine observing on every update."""
    extra = keystone_extra(cloud).replace("[DEFAULT]\n",
                                          "[DEFAULT]\nobserve_on_update = true\n", 1)
    yield from serve_on_catalog_ports(cloud, tmp_path_factory, "observe-serve", extra)


def test_every_update_observes(served: Serving, user_conn: Any) -> None:
    name = f"ob-{uuid.uuid4().hex[:8]}"
    template = template_file(served, TEMPLATE)
    try:
        created = stack_action(served, "create", "-t", template, "--parameter", f"prefix={name}",
                               name, stack=name)
        assert created == "CREATE_COMPLETE", show_stack(served, name)
        ids = physical_ids(served, name)
        user_conn.network.update_port(ids["port"], name="renamed-port")
        user_conn.network.update_network(ids["net"], admin_state_up=False)

        updated = stack_action(served, "update", "--existing", name, stack=name)
        assert updated == "UPDATE_COMPLETE", show_stack(served, name)
        assert physical_ids(served, name) == ids
        assert user_conn.network.get_port(ids["port"]).name == f"{name}-port"
        assert user_conn.network.get_network(ids["net"]).is_admin_state_up is True
    finally:
        delete_stack(served, name)

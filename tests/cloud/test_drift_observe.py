"""``[DEFAULT] observe_on_update = true``: every update compares the template with the
live state, so a plain ``openstack stack update --existing`` (no ``--converge``) sets
back what was changed behind hotplate's back, as Heat's does with that option."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cloud.leaks import network_leaks  # noqa: F401  (a fixture)
from tests.cloud.locate import Cloud
from tests.cloud.serving import Serving, keystone_serve
from tests.cloud.test_neutron_types import (
    STARTS,
    _answered_by,
    _delete,
    _extra,
    _physical,
    _shown,
    _stack,
    _template,
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
    extra = _extra(cloud).replace("[DEFAULT]\n", "[DEFAULT]\nobserve_on_update = true\n", 1)
    for _ in range(STARTS):
        tmp = Path(tmp_path_factory.mktemp("observe-serve"))
        with keystone_serve(cloud, tmp, extra=extra) as serving:
            if _answered_by(serving):
                yield serving
                return
        time.sleep(1.0)
    pytest.fail(f"the catalog's ports stayed taken by other servers ({STARTS} starts)")


def test_every_update_observes(served: Serving, user_conn: Any) -> None:
    name = f"ob-{uuid.uuid4().hex[:8]}"
    template = _template(served, TEMPLATE)
    try:
        created = _stack(served, "create", "-t", template, "--parameter", f"prefix={name}",
                         name, stack=name)
        assert created == "CREATE_COMPLETE", _shown(served, name)
        ids = _physical(served, name)
        user_conn.network.update_port(ids["port"], name="renamed-port")
        user_conn.network.update_network(ids["net"], admin_state_up=False)

        updated = _stack(served, "update", "--existing", name, stack=name)
        assert updated == "UPDATE_COMPLETE", _shown(served, name)
        assert _physical(served, name) == ids
        assert user_conn.network.get_port(ids["port"]).name == f"{name}-port"
        assert user_conn.network.get_network(ids["net"]).is_admin_state_up is True
    finally:
        _delete(served, name)

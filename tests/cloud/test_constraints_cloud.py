"""The cloud custom constraints against the real cloud, through the engine with the
caller's own token: a parameter naming nothing of its kind is refused in Heat's words
(each as Heat 27.0.1 answered on this cloud), one naming something passes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hotplate.app import Engine
from hotplate.model.errors import StackValidationFailed
from tests.cloud.clients import token_context
from tests.cloud.engine import engine_on
from tests.cloud.locate import Cloud

VERSION = "2018-08-31"


@pytest.fixture(scope="module")
def engine(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with engine_on(Path(tmp_path_factory.mktemp("constraints")), cloud.region) as running:
        yield running


def _preview(engine: Engine, ctxt: dict[str, Any], constraint: str, value: str) -> Any:
    template = {"heat_template_version": VERSION,
                "parameters": {"p": {"type": "string", "default": value,
                                     "constraints": [{"custom_constraint": constraint}]}},
                "resources": {"n": {"type": "OS::Heat::None"}}}
    return engine.service.preview_stack(ctxt, "constrained", template, {}, {}, {})


@pytest.mark.parametrize(("constraint", "value", "reason"), [
    ("nova.flavor", "m1.huge", "No Flavor matching {'name': 'm1.huge'}. (HTTP 404)"),
    ("glance.image", "nope", "No images matching {'name': 'nope'}."),
    ("neutron.network", "nope", "Unable to find network with name or id 'nope'"),
    ("neutron.port", "nope", "Unable to find port with name or id 'nope'"),
    ("neutron.security_group", "nope",
     "Unable to find security_group with name or id 'nope'"),
    ("cinder.volume", "nope", "The Volume (nope) could not be found."),
    ("cinder.vtype", "nope", "The VolumeType (nope) could not be found."),
    ("nova.keypair", "nope", "The Key (nope) could not be found."),
])
def test_a_value_naming_nothing_is_refused(cloud: Cloud, user_conn: Any, engine: Engine,
                                           constraint: str, value: str, reason: str) -> None:
    with pytest.raises(StackValidationFailed) as caught:
        _preview(engine, token_context(cloud, user_conn), constraint, value)
    assert str(caught.value) == (
        f"Parameter 'p' is invalid: Error validating value '{value}': {reason}")


@pytest.mark.parametrize(("constraint", "value"), [
    ("nova.flavor", "m1.tiny"), ("glance.image", "cirros-fake"),
    ("neutron.network", "public"), ("neutron.security_group", "default"),
])
def test_a_value_naming_something_passes(cloud: Cloud, user_conn: Any, engine: Engine,
                                         constraint: str, value: str) -> None:
    preview = _preview(engine, token_context(cloud, user_conn), constraint, value)
    assert preview["stack_name"] == "constrained"


def test_keystone_constraints_as_an_admin(cloud: Cloud, admin_conn: Any,
                                          engine: Engine) -> None:
    ctxt = token_context(cloud, admin_conn)
    with pytest.raises(StackValidationFailed) as caught:
        _preview(engine, ctxt, "keystone.project", "nope")
    assert str(caught.value) == ("Parameter 'p' is invalid: Error validating value 'nope': "
                                 "The KeystoneProject (nope) could not be found.")
    assert _preview(engine, ctxt, "keystone.project", "demo")["stack_name"] == "constrained"


def test_without_a_catalog_a_cloud_constraint_fails_as_the_client_does(engine: Engine) -> None:
    from hotplate.cloud import EndpointNotFound

    with pytest.raises(EndpointNotFound):
        _preview(engine, {"project_id": "demo", "is_admin": False}, "glance.image", "x")

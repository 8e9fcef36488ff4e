"""OS::Nova::Server's checks that ask the cloud, at validation (Heat's
``_validate_image_flavor``): an image that is not active, or one asking more RAM
or disk than the flavor has, is refused in Heat's words before anything exists,
through the engine with the caller's own token; an image of the right size passes."""

from __future__ import annotations

import uuid
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
PREFIX = "nval-"


@pytest.fixture(scope="module")
def engine(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with engine_on(Path(tmp_path_factory.mktemp("nova-validation")), cloud.region) as running:
        yield running


@pytest.fixture
def images(user_conn: Any) -> Iterator[list[Any]]:
    """Images the test makes, deleted afterwards."""
    made: list[Any] = []
    yield made
    for image in made:
        user_conn.image.delete_image(image, ignore_missing=True)


def _image(conn: Any, made: list[Any], *, data: bool, **extra: Any) -> str:
    name = f"{PREFIX}{uuid.uuid4().hex[:8]}"
    fields: dict[str, Any] = {"name": name, "disk_format": "raw", "container_format": "bare",
                              "allow_duplicates": True,
                              **extra}
    if data:
        fields["data"] = b"\0" * 4096
    made.append(conn.image.create_image(**fields))
    return name


def _preview(engine: Engine, ctxt: dict[str, Any], image: str, flavor: str) -> Any:
    template = {"heat_template_version": VERSION, "resources": {"vm": {
        "type": "OS::Nova::Server", "properties": {"image": image, "flavor": flavor,
                                                   "networks": [{"network": "public"}]}}}}
    return engine.service.preview_stack(ctxt, f"{PREFIX}stack", template, {}, {}, {})


def test_an_image_not_active_is_refused(cloud: Cloud, user_conn: Any, engine: Engine,
                                        images: list[Any]) -> None:
    queued = _image(user_conn, images, data=False)
    with pytest.raises(StackValidationFailed) as caught:
        _preview(engine, token_context(cloud, user_conn), queued, "m1.tiny")
    assert str(caught.value) == "Image status is required to be active not queued."


def test_a_flavor_smaller_than_the_image_is_refused(cloud: Cloud, user_conn: Any,
                                                    engine: Engine,
                                                    images: list[Any]) -> None:
    ctxt = token_context(cloud, user_conn)
    tiny = user_conn.compute.find_flavor("m1.tiny", ignore_missing=False)
    hungry = _image(user_conn, images, data=True, min_ram=tiny.ram + 1)
    with pytest.raises(StackValidationFailed) as caught:
        _preview(engine, ctxt, hungry, "m1.tiny")
    assert str(caught.value) == (f"Image {hungry} requires {tiny.ram + 1} minimum ram. "
                                 f"Flavor m1.tiny has only {tiny.ram}.")
    big = _image(user_conn, images, data=True, min_disk=tiny.disk + 1)
    with pytest.raises(StackValidationFailed) as caught:
        _preview(engine, ctxt, big, "m1.tiny")
    assert str(caught.value) == (f"Image {big} requires {tiny.disk + 1} GB minimum disk "
                                 f"space. Flavor m1.tiny has only {tiny.disk} GB.")


def test_an_image_that_fits_passes(cloud: Cloud, user_conn: Any, engine: Engine,
                                   images: list[Any]) -> None:
    fits = _image(user_conn, images, data=True, min_ram=64)
    preview = _preview(engine, token_context(cloud, user_conn), fits, "m1.tiny")
    assert preview["stack_name"] == f"{PREFIX}stack"

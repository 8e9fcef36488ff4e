"""OS::Heat::Stack validates its template as Heat's RemoteStack does, through
python-heatclient: a bad one is a 400 at the create, in Heat's words, naming the
region (none here: the standalone mode has no catalog), and nothing is stored."""

from __future__ import annotations

from typing import Any

import pytest
from heatclient import exc

from tests.api.helpers import VERSION


def _template(inner: str) -> dict[str, Any]:
    return {"heat_template_version": VERSION, "resources": {"remote": {
        "type": "OS::Heat::Stack", "properties": {"template": inner}}}}


def test_a_bad_child_template_is_refused_at_the_create(hc: Any) -> None:
    inner = f"heat_template_version: {VERSION}\nresource:\n  r: {{type: OS::Heat::None}}\n"
    with pytest.raises(exc.HTTPBadRequest) as caught:
        hc.stacks.create(stack_name="remote-bad", template=_template(inner))
    assert str(caught.value) == (
        'ERROR: Failed validating stack template using Heat endpoint at region "None" '
        'due to "ERROR: The template section is invalid: resource"')
    assert list(hc.stacks.list(filters={"name": "remote-bad"})) == []


def test_a_child_naming_an_unknown_type_is_refused_with_its_path(hc: Any) -> None:
    inner = f"heat_template_version: {VERSION}\nresources:\n  r: {{type: No::Such}}\n"
    with pytest.raises(exc.HTTPBadRequest) as caught:
        hc.stacks.create(stack_name="remote-unknown", template=_template(inner))
    assert "Failed validating stack template using Heat endpoint" in str(caught.value)
    assert "resources.r" in str(caught.value) and "No::Such" in str(caught.value)

"""An ``allowed_values`` refusal, through python-heatclient, in Heat's words.

Heat writes the refused value and the allowed ones as JSON
(heat/engine/constraints.py, AllowedValues): strings in double quotes,
numbers and booleans bare, a list as a JSON list. A number parameter given
as text (``-P n=7``, as heatclient sends it) is checked as the text given.
The built-in types with a number property so constrained all need a cloud
service; their text is the unit tests' (tests/unit/resources/test_constraints.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from heatclient import exc

from tests.api.helpers import VERSION


def _refused(hc: Any, name: str, template: dict[str, Any], **fields: Any) -> str:
    with pytest.raises(exc.HTTPBadRequest) as refused:
        hc.stacks.create(stack_name=name, template=template, **fields)
    assert list(hc.stacks.list(filters={"name": name})) == []
    return str(refused.value)


def _with_parameter(declared: dict[str, Any]) -> dict[str, Any]:
    return {"heat_template_version": VERSION, "parameters": {"p": declared}, "resources": {}}


@pytest.mark.parametrize(("declared", "given", "message"), [
    ({"type": "string", "constraints": [{"allowed_values": ["a", "b"]}]}, "c",
     '"c" is not an allowed value ["a", "b"]'),
    ({"type": "number", "constraints": [{"allowed_values": [1, 2.5]}]}, "7",
     '"7" is not an allowed value [1, 2.5]'),
    ({"type": "comma_delimited_list", "constraints": [{"allowed_values": ["a", "b"]}]},
     "a,z", '["a", "z"] is not an allowed value ["a", "b"]'),
], ids=["string", "number", "list"])
def test_a_parameter_refused_quotes_values_as_json(
        hc: Any, declared: dict[str, Any], given: str, message: str) -> None:
    text = _refused(hc, "allowed-param", _with_parameter(declared), parameters={"p": given})
    assert text == f"ERROR: Parameter 'p' is invalid: {message}"


def test_a_number_default_refused_is_bare(hc: Any) -> None:
    declared = {"type": "number", "default": 7, "constraints": [{"allowed_values": ["1"]}]}
    with pytest.raises(exc.HTTPBadRequest) as refused:
        hc.stacks.validate(template=_with_parameter(declared))
    assert str(refused.value) == (
        "ERROR: Parameter 'p' is invalid: Invalid default 7 "
        '(7 is not an allowed value ["1"])')


@pytest.mark.parametrize(("resource", "message"), [
    ({"type": "OS::Heat::RandomString",
      "properties": {"character_classes": [{"class": "emoji"}]}},
     "resources.r.properties.character_classes[0].class: : "
     '"emoji" is not an allowed value ["lettersdigits", "letters", "lowercase", '
     '"uppercase", "digits", "hexdigits", "octdigits"]'),
    ({"type": "OS::Heat::SoftwareDeployment",
      "properties": {"server": "s", "actions": ["CREATE", "REBOOT"]}},
     'resources.r.properties.actions: : ["CREATE", "REBOOT"] is not an allowed value '
     '["CREATE", "UPDATE", "DELETE", "SUSPEND", "RESUME"]'),
], ids=["string", "list"])
def test_a_property_refused_quotes_values_as_json(
        hc: Any, resource: dict[str, Any], message: str) -> None:
    template = {"heat_template_version": VERSION, "resources": {"r": resource}}
    assert _refused(hc, "allowed-prop", template) == f"ERROR: Property error: : {message}"

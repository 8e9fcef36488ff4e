"""validate with show_nested: the parameters of each template resource's template."""

from __future__ import annotations

from typing import Any

INNER = """\
heat_template_version: 2021-04-16
description: the inner one
parameters:
  word: {type: string, description: what to say}
  count: {type: number, default: 2}
resources:
  leaf: {type: OS::Heat::None}
"""

OUTER = {
    "heat_template_version": "2021-04-16",
    "resources": {
        "kid": {"type": "inner.yaml", "properties": {"word": "hi"}},
        "plain": {"type": "OS::Heat::None"},
    },
}


def test_nested_parameters_are_shown_on_request(hc: Any) -> None:
    plain = hc.stacks.validate(template=OUTER, files={"inner.yaml": INNER})
    assert "NestedParameters" not in plain
    shown = hc.stacks.validate(template=OUTER, files={"inner.yaml": INNER}, show_nested=True)
    kid = shown["NestedParameters"]["kid"]
    assert (kid["Type"], kid["Description"]) == ("inner.yaml", "the inner one")
    assert kid["Parameters"]["word"]["Value"] == "hi"
    assert kid["Parameters"]["word"]["Description"] == "what to say"
    assert kid["Parameters"]["count"]["Default"] == 2
    assert set(shown["NestedParameters"]) == {"kid"}

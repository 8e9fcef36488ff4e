"""OS::Heat::StructuredDeployment: a SoftwareDeployment that fills a structured config's
``{get_input: name}`` snippets in with its inputs before the server sees it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources import software_deployment as sd
from hotplate.resources.constraints import AllowedValues
from hotplate.resources.properties import Schema
from hotplate.resources.software_derived import structured_parse
from hotplate.resources.software_io import input_values
from hotplate.resources.support import SupportStatus

__all__ = ["STRUCTURED_PROPERTIES", "StructuredDeployment"]

INPUT_KEY, INPUT_VALUES_VALIDATE = "input_key", "input_values_validate"

STRUCTURED_PROPERTIES: dict[str, Schema] = {
    INPUT_KEY: Schema(Schema.STRING, "Name of key to use for substituting inputs during "
                      "deployment.", default="get_input"),
    INPUT_VALUES_VALIDATE: Schema(
        Schema.STRING, "Perform a check on the input values passed to verify that each "
        "required input has a corresponding value. When the property is set to STRICT and no "
        "value is passed, an exception is raised.", default="LAX",
        constraints=[AllowedValues(("LAX", "STRICT"))]),
}


class StructuredDeployment(sd.SoftwareDeployment):
    """A resource which has same logic with OS::Heat::SoftwareDeployment.

    A deployment resource like OS::Heat::SoftwareDeployment, but which
    performs input value substitution on the config defined by a
    OS::Heat::StructuredConfig resource.

    Some configuration tools have no concept of inputs, so the input value
    substitution needs to occur in the deployment resource. An example of this
    is the JSON metadata consumed by the cfn-init tool.

    Where the config contains {get_input: input_name} this will be substituted
    with the value of input_name in this resource's input_values. If get_input
    needs to be passed through to the substituted configuration then a
    different input_key property value can be specified.
    """

    support_status = SupportStatus(version="2014.1")
    properties_schema = {**sd.SoftwareDeployment.properties_schema, **STRUCTURED_PROPERTIES}

    def empty_config(self) -> Any:
        return {}

    def derived_config(self, action: str, source: Mapping[str, Any],
                       inputs: list[dict[str, Any]]) -> Any:
        return structured_parse(source.get("config"), input_values(inputs),
                                str(self.properties.get(INPUT_KEY) or "get_input"),
                                strict=self.properties.get(INPUT_VALUES_VALIDATE) == "STRICT")

"""The inputs and outputs a software config declares, in Heat's stored form.

A config lists the inputs its script expects and the outputs it produces.
Both are validated against Heat's schemas and stored as Heat stores them
(``as_dict``): every key with a value, ``type`` defaulted to ``String``,
an input's ``replace_on_change`` only when true, an output's
``error_output`` always. A deployment's derived config carries each input
again with its ``value``. Pure: used by the config resources, the
deployment resources and the engine's software-config methods alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.constraints import AllowedValues
from hotplate.resources.properties import PropertyPath, Schema, validate_properties

__all__ = [
    "INPUT_SCHEMA", "IO_TYPES", "OUTPUT_SCHEMA", "input_config", "input_values",
    "output_config", "check_io_list",
]

NAME, DESCRIPTION, TYPE, DEFAULT = "name", "description", "type", "default"
REPLACE_ON_CHANGE, VALUE, ERROR_OUTPUT = "replace_on_change", "value", "error_output"
IO_TYPES = ("String", "Number", "CommaDelimitedList", "Json", "Boolean")

INPUT_SCHEMA: Mapping[str, Schema] = {
    NAME: Schema(Schema.STRING, "Name of the input.", required=True),
    DESCRIPTION: Schema(Schema.STRING, "Description of the input."),
    TYPE: Schema(Schema.STRING, "Type of the value of the input.", default="String",
                 constraints=[AllowedValues(IO_TYPES)]),
    DEFAULT: Schema(Schema.ANY, "Default value for the input if none is specified."),
    REPLACE_ON_CHANGE: Schema(Schema.BOOLEAN, "Replace the deployment instead of updating "
                              "it when the input value changes.", default=False),
}

OUTPUT_SCHEMA: Mapping[str, Schema] = {
    NAME: Schema(Schema.STRING, "Name of the output.", required=True),
    DESCRIPTION: Schema(Schema.STRING, "Description of the output."),
    TYPE: Schema(Schema.STRING, "Type of the value of the output.", default="String",
                 constraints=[AllowedValues(IO_TYPES)]),
    ERROR_OUTPUT: Schema(Schema.BOOLEAN, "Denotes that the deployment is in an error state "
                         "if this output has a value.", default=False),
}

_NO_VALUE = object()


def check_io_list(value: Any, path: PropertyPath) -> list[Mapping[str, Any]]:
    """The list of input or output declarations; Heat's texts for a wrong shape."""
    if value is None:
        return []
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise StackValidationFailed("Software Config I/O Schema must be in a list", path)
    for item in value:
        if not isinstance(item, Mapping):
            raise StackValidationFailed("Software Config I/O Schema must be a dict", path)
    return list(value)


def input_config(conf: Mapping[str, Any], path: PropertyPath = ("inputs",),
                 value: Any = _NO_VALUE) -> dict[str, Any]:
    """One input as stored; ``value`` given: the input with its value (derived configs).

    A stored input may already carry a ``value``: it is kept unless one is given.
    """
    conf = dict(conf)
    stored = conf.pop(VALUE, _NO_VALUE)
    props = validate_properties(INPUT_SCHEMA, conf, path)
    result = {key: item for key, item in props.items() if item is not None}
    if not result[REPLACE_ON_CHANGE]:
        del result[REPLACE_ON_CHANGE]
    chosen = value if value is not _NO_VALUE else stored
    if chosen is not _NO_VALUE:
        result[VALUE] = chosen
    return result


def output_config(conf: Mapping[str, Any], path: PropertyPath = ("outputs",)
                  ) -> dict[str, Any]:
    props = validate_properties(OUTPUT_SCHEMA, conf, path)
    return {key: item for key, item in props.items() if item is not None}


def input_values(inputs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Each input's name and value (None when it has none), as Heat's ``input_data``."""
    return {str(i.get(NAME)): i.get(VALUE) for i in inputs}

"""Heat's side of the template oracle: run cases through Heat's own template code.

Run by the Heat virtualenv's interpreter (``openstack-heat`` installed from
PyPI), never imported by hotplate: it reads a JSON list of cases on stdin and
writes one outcome per case on stdout, as JSON.

Heat is driven the way ``Stack.validate`` and a create drive it, but with no
database: a ``StackDefinition`` (the object Heat's functions read the stack
through) over ``NodeData`` for every resource, each already CREATE_COMPLETE
with the reference id and attributes the case gives. Phases:

* ``parse``: the template object, its top-level check, the parameters,
  the conditions and the resource definitions (functions are built here);
* ``validate``: the resources' dependencies (as a create's strict validate
  orders them), each resource definition's ``validate`` (in name order),
  then the outputs (parsed, then validated), with ``Stack.validate``'s paths;
* ``resolve``: each enabled resource's properties (in name order), then
  each output's value.
"""

from __future__ import annotations

import copy
import json
import logging
import sys
import warnings
from typing import Any

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

from heat.common import exception, identifier  # noqa: E402
from heat.engine import attributes, environment, function, node_data, stk_defn  # noqa: E402
from heat.engine import template as templatem  # noqa: E402


class _Data(node_data.NodeData):
    """Node data whose attribute paths are walked as Heat walks a real attribute."""

    def attribute(self, attr_name: Any) -> Any:
        if isinstance(attr_name, tuple):
            value = super().attribute(attr_name[0])
            return attributes.select_from_attribute(value, list(attr_name[1:]))
        return super().attribute(attr_name)


def _resource_data(case: dict[str, Any]) -> dict[str, Any]:
    found = {}
    for i, (name, attrs) in enumerate(sorted(case["attributes"].items())):
        found[name] = _Data(i + 1, name, f"uuid-{name}", case["refs"][name], attrs,
                            "CREATE", "COMPLETE")
    return found


def _section_path(tmpl: Any, head: str, name: str, error: Any) -> Any:
    path = [head, name]
    if error.path:
        path.append(tmpl.get_section_name(error.path[0]))
        path.extend(error.path[1:])
    return exception.StackValidationFailed(error=error.error, path=path,
                                           message=error.error_message)


class _Stage:
    """The phase a run is in, so that an error is reported under it."""

    def __init__(self) -> None:
        self.name = "parse"


def _parse(case: dict[str, Any], stage: _Stage) -> tuple[Any, Any, dict[str, Any]]:
    env = environment.Environment({"parameters": case["params"]})
    tmpl = templatem.Template(copy.deepcopy(case["template"]), files=case["files"], env=env)
    tmpl.validate()
    sid = identifier.HeatIdentifier("tenant", "stack", "stack-id")
    defn = stk_defn.StackDefinition(None, tmpl, sid, _resource_data(case))
    defn._zones = ["nova"]  # Fn::GetAZs without a compute service
    defn.parameters.validate(validate_value=True)
    tmpl.conditions(defn).validate()
    resources = tmpl.resource_definitions(defn)
    defn._resource_defns = resources
    return tmpl, defn, resources


class _Stack:
    """What ``ResourceDefinition.dependencies`` reads of a stack, as a create's validate."""

    def __init__(self, defn: Any) -> None:
        self.defn = defn

    def __contains__(self, name: str) -> bool:
        return name in self.defn.enabled_rsrc_names()

    def __getitem__(self, name: str) -> Any:
        return self.defn[name]


def _validate(tmpl: Any, defn: Any, resources: dict[str, Any], stage: _Stage) -> dict[str, Any]:
    stage.name = "validate"
    stack = _Stack(defn)
    for resource in resources.values():  # a create's validate orders resources first
        list(resource.dependencies(stack))
    for name in sorted(resources):
        try:
            resources[name].validate()
        except exception.StackValidationFailed as exc:
            raise _section_path(tmpl, tmpl.RESOURCES, name, exc) from None
    stage.name = "parse"  # outputs are parsed after the resources are validated
    outputs = tmpl.outputs(defn)
    defn._output_defns = outputs
    stage.name = "validate"
    for name, output in outputs.items():
        try:
            output.validate()
        except exception.StackValidationFailed as exc:
            raise _section_path(tmpl, tmpl.OUTPUTS, name, exc) from None
    return outputs


def _resolve(resources: dict[str, Any], outputs: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    values: dict[str, Any] = {}
    first_error = None
    items = [(f"resources.{n}", lambda d=resources[n]: function.resolve(d._properties))
             for n in sorted(resources)]
    items += [(f"outputs.{n}", outputs[n].get_value) for n in sorted(outputs)]
    for key, compute in items:
        try:
            values[key] = _plain(compute())
        except Exception as exc:  # any error is an outcome
            values[key] = {"error": str(exc)}
            if first_error is None:
                first_error = str(exc)
    return values, first_error


def _plain(value: Any) -> Any:
    """The value as JSON data (tuples as lists; anything else by its text)."""
    return json.loads(json.dumps(value, default=str))


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    stage = _Stage()
    try:
        tmpl, defn, resources = _parse(case, stage)
        outputs = _validate(tmpl, defn, resources, stage)
    except Exception as exc:  # any error is an outcome
        return {"phase": stage.name, "error": str(exc), "values": {}}
    values, error = _resolve(resources, outputs)
    return {"phase": "resolve" if error else "ok", "error": error, "values": values}


def main() -> None:
    cases = json.load(sys.stdin)
    json.dump({case["id"]: run_case(case) for case in cases}, sys.stdout)


if __name__ == "__main__":
    main()

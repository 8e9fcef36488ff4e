"""The oracle's table: YAML cases under ``cases/``, expanded per template version.

A case is one function call (or a whole template) and the versions to run
it in. The call goes where ``where`` says: a resource's property
(``resources.r.properties.value``, the default) or an output's value
(``outputs.o.value``)::

    - id: str_split.index_out_of_range
      value: {str_split: [",", "a,b", 5]}
      versions: hot            # every HOT date (the default); or a list
      where: output
      params: {s: "a,b"}       # user parameter values
      files: {f.txt: "text"}
      conditions: {yes: true}  # HOT conditions section (dates from 2016-10-14)
      compare: phase           # only where it fails, not the words (the default: all)

Version tokens: ``hot`` (every HOT date), ``names`` (the release names),
``cfn`` (both CFN versions), ``since:DATE`` (HOT dates from DATE on), or a
date or name. A case may give ``template`` (everything but the version key)
instead of ``value``. Every resource is reported CREATE_COMPLETE with
reference id ``<name>-id`` and the attributes in ``attributes`` (by default
``value`` and ``show`` of ``ATTRIBUTES`` below).

``compare: phase`` is for the few texts that can never match word for
word (Heat prints a Python set, or a Python error about its own objects):
the phase and which values fail are compared, not what the errors say.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

CASES_DIR = Path(__file__).parent / "cases"

HOT_DATES = (
    "2013-05-23", "2014-10-16", "2015-04-30", "2015-10-15", "2016-04-08", "2016-10-14",
    "2017-02-24", "2017-09-01", "2018-03-02", "2018-08-31", "2021-04-16",
)
HOT_NAMES = ("newton", "ocata", "pike", "queens", "rocky", "wallaby")
_NAME_DATES = dict(zip(HOT_NAMES, HOT_DATES[5:], strict=False))
CFN_VERSIONS = ("AWSTemplateFormatVersion:2010-09-09", "HeatTemplateFormatVersion:2012-12-12")

ATTRIBUTES = {"value": {"k": ["a", "b"], "n": 1}}
"""What every resource's ``value`` attribute holds (``show`` repeats them)."""

HOT_PARAMETERS = {
    "s": {"type": "string", "default": "x"},
    "n": {"type": "number", "default": 1},
    "l": {"type": "comma_delimited_list", "default": "a,b"},
    "j": {"type": "json", "default": {"k": "v"}},
    "b": {"type": "boolean", "default": True},
}
CFN_PARAMETERS = {
    "s": {"Type": "String", "Default": "x"},
    "n": {"Type": "Number", "Default": 1},
    "l": {"Type": "CommaDelimitedList", "Default": "a,b"},
    "j": {"Type": "Json", "Default": {"k": "v"}},
}


def _versions(spec: Any) -> list[str]:
    tokens = [spec] if isinstance(spec, str) else list(spec)
    found: list[str] = []
    for token in tokens:
        if token == "hot":
            found += HOT_DATES
        elif token == "names":
            found += HOT_NAMES
        elif token == "cfn":
            found += CFN_VERSIONS
        elif isinstance(token, str) and token.startswith("since:"):
            found += [d for d in HOT_DATES if d >= token.split(":", 1)[1]]
        else:
            found.append(str(token))
    return list(dict.fromkeys(found))


def hot_date(version: str) -> str:
    """The date a HOT version token stands for (names map to their dates)."""
    return _NAME_DATES.get(version, version)


def _hot_template(case: dict[str, Any], version: str) -> dict[str, Any]:
    body: dict[str, Any] = {"heat_template_version": version}
    if "template" in case:
        body.update(case["template"])
        return body
    body["parameters"] = {**HOT_PARAMETERS, **case.get("parameters", {})}
    if "conditions" in case:
        body["conditions"] = case["conditions"]
    resources: dict[str, Any] = {"other": {"type": "OS::Heat::Value",
                                           "properties": {"value": "o"}}}
    if case.get("where", "resource") == "resource":
        resources["r"] = {"type": "OS::Heat::Value", "properties": {"value": case["value"]}}
    else:
        body["outputs"] = {"o": {"value": case["value"]}}
    body["resources"] = resources
    return body


def _cfn_template(case: dict[str, Any], version: str) -> dict[str, Any]:
    key, date = version.split(":", 1)
    body: dict[str, Any] = {key: date}
    if "template" in case:
        body.update(case["template"])
        return body
    body["Parameters"] = {**CFN_PARAMETERS, **case.get("parameters", {})}
    for section in ("Conditions", "Mappings"):
        if section.lower() in case:
            body[section] = case[section.lower()]
    resources: dict[str, Any] = {"other": {"Type": "OS::Heat::Value",
                                           "Properties": {"value": "o"}}}
    if case.get("where", "resource") == "resource":
        resources["r"] = {"Type": "OS::Heat::Value", "Properties": {"value": case["value"]}}
    else:
        body["Outputs"] = {"o": {"Value": case["value"]}}
    body["Resources"] = resources
    return body


def _resource_names(template: dict[str, Any]) -> list[str]:
    section = template.get("resources", template.get("Resources")) or {}
    return sorted(section) if isinstance(section, dict) else []


def expand(case: dict[str, Any]) -> list[dict[str, Any]]:
    """One runnable case per version the case names."""
    runs = []
    for version in _versions(case.get("versions", "hot")):
        cfn = ":" in version
        template = _cfn_template(case, version) if cfn else _hot_template(case, version)
        names = _resource_names(template)
        attrs = case.get("attributes", {})
        runs.append({
            "id": f"{case['id']}@{version.split(':')[-1]}",
            "template": template,
            "files": case.get("files", {}),
            "params": case.get("params", {}),
            "compare": case.get("compare", "all"),
            "refs": {name: f"{name}-id" for name in names},
            "attributes": {
                name: attrs.get(name, {**ATTRIBUTES, "show": ATTRIBUTES}) for name in names
            },
        })
    return runs


def load_cases(directory: Path = CASES_DIR) -> list[dict[str, Any]]:
    """Every case of every YAML file in ``directory``, expanded, in file order."""
    runs: list[dict[str, Any]] = []
    seen: set[str] = set()
    for path in sorted(directory.glob("*.yaml")):
        for case in yaml.safe_load(path.read_text()) or []:
            for run in expand(case):
                if run["id"] in seen:
                    raise ValueError(f"{path.name}: duplicate case {run['id']}")
                seen.add(run["id"])
                runs.append(run)
    return runs

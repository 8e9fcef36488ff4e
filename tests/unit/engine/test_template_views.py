"""Heat's views of parameters, services and signals (engine/service/template_check.py, views.py,
resource_actions.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from hotplate.engine.service.resource_actions import signal_reason
from hotplate.engine.service.template_check import parameter_view
from hotplate.engine.views import format_service, parameter_text, parameter_texts
from hotplate.model.ids import EngineId
from hotplate.model.records import ServiceRecord
from hotplate.template import parse_environment, parse_template


def _schemas(parameters: dict[str, Any]) -> Any:
    return parse_template({"heat_template_version": "2021-04-16",
                           "parameters": parameters}).parameters


def test_every_constraint_kind_in_cfn_words() -> None:
    schemas = _schemas({
        "name": {"type": "string", "constraints": [
            {"length": {"min": 2, "max": 8}, "description": "2 to 8"},
            {"allowed_pattern": "[a-z]+", "description": "lower case"},
            {"custom_constraint": "nova.flavor"}]},
        "count": {"type": "number", "default": 4, "constraints": [
            {"range": {"max": 10}}, {"modulo": {"step": 2, "offset": 0}},
            {"allowed_values": [2, 4]}]},
    })
    env = parse_environment({})
    assert parameter_view(schemas["name"], env) == {
        "Type": "String", "Description": "", "NoEcho": "false", "Label": "name",
        "MinLength": 2, "MaxLength": 8, "AllowedPattern": "[a-z]+",
        "CustomConstraint": "nova.flavor", "ConstraintDescription": "2 to 8 lower case"}
    assert parameter_view(schemas["count"], env) == {
        "Type": "Number", "Description": "", "NoEcho": "false", "Label": "count",
        "Default": 4, "MaxValue": 10, "Step": 2, "Offset": 0, "AllowedValues": [2, 4]}


def test_defaults_and_values_come_from_the_environment_even_when_hidden() -> None:
    schemas = _schemas({"flag": {"type": "boolean", "default": False},
                        "data": {"type": "json", "label": "Data", "description": "d"},
                        "key": {"type": "string", "hidden": True}})
    env = parse_environment({"parameters": {"data": {"a": 1}, "key": "k"},
                             "parameter_defaults": {"flag": True, "key": "dk"}})
    assert parameter_view(schemas["flag"], env)["Default"] is True
    assert parameter_view(schemas["data"], env) == {
        "Type": "Json", "Description": "d", "NoEcho": "false", "Label": "Data",
        "Value": {"a": 1}}
    key = parameter_view(schemas["key"], env)
    # Heat's format_validate_parameter shows them; only NoEcho says they are hidden.
    assert (key["NoEcho"], key["Default"], key["Value"]) == ("true", "dk", "k")


def test_parameter_texts_are_heats_strings() -> None:
    schemas = _schemas({"l": {"type": "comma_delimited_list"}, "j": {"type": "json"},
                        "b": {"type": "boolean"}, "n": {"type": "number"},
                        "s": {"type": "string", "hidden": True}})
    values = {"l": ["a", "b"], "j": {"k": [1]}, "b": True, "n": 5, "s": "pw",
              "OS::stack_name": "st"}
    assert parameter_texts(schemas, values) == {
        "l": "a,b", "j": '{"k": [1]}', "b": "True", "n": "5", "s": "******",
        "OS::stack_name": "st"}
    assert parameter_text(schemas["j"], [1, 2]) == "[1, 2]"


def _service(created: datetime, updated: datetime | None) -> ServiceRecord:
    return ServiceRecord(id="s1", engine_id=EngineId("e1"), host="h", hostname="hn",
                         binary="hotplate-engine", topic="engine", report_interval=60,
                         created_at=created, updated_at=updated)


def test_a_service_is_up_within_two_report_intervals() -> None:
    now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    fresh = format_service(_service(now - timedelta(seconds=30), None), now)
    assert fresh == {"id": "s1", "binary": "hotplate-engine", "engine_id": "e1",
                     "host": "h", "hostname": "hn", "topic": "engine",
                     "report_interval": 60, "created_at": "2026-01-01T11:59:30Z",
                     "updated_at": None, "deleted_at": None, "status": "up"}
    one_late = _service(now - timedelta(hours=1), now - timedelta(seconds=61))
    assert format_service(one_late, now)["status"] == "up"
    at_the_limit = _service(now - timedelta(hours=1), now - timedelta(seconds=120))
    assert format_service(at_the_limit, now)["status"] == "up"
    stale = _service(now - timedelta(hours=1), now - timedelta(seconds=120, microseconds=1))
    assert format_service(stale, now)["status"] == "down"
    never_reported = _service(now - timedelta(seconds=121), None)
    assert format_service(never_reported, now)["status"] == "down"


@pytest.mark.parametrize(("details", "reason"), [
    (None, "No signal details provided"),
    ("plain", "plain"),
    ({"previous": "ok", "current": "alarm", "reason": "cpu"},
     "alarm state changed from ok to alarm (cpu)"),
    ({"state": "alarm"}, "alarm state changed to alarm"),
    ({"other": 1}, "Unknown"),
])
def test_signal_reasons_are_heats(details: Any, reason: str) -> None:
    assert signal_reason(details) == reason

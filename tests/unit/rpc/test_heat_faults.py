"""Errors under Heat's names: the class heat-api rebuilds gives the status hotplate's API
gives, and a hotplate caller gets its model error back from the name and the text."""

from __future__ import annotations

import pytest

from hotplate.api import faults
from hotplate.engine import errors as engine_errors
from hotplate.engine.service.software_configs import InvalidRestrictedAction
from hotplate.model import errors as model
from hotplate.rpc import codec
from hotplate.rpc.errors import NoSuchMethod, RemoteError
from hotplate.rpc.heat_faults import (
    API_STATUS,
    HEAT_CLASSES,
    HEAT_EXCEPTION_MODULE,
    REPEATED_REQUESTS,
    STRICTER_THAN_HEAT_API,
    HeatFault,
    api_names,
    from_heat,
    heat_fault,
    heat_status,
)
from hotplate.template.errors import InvalidSchemaError, InvalidTemplateReference

SAMPLES: list[Exception] = [
    model.EntityNotFound("Stack", "s1"),
    model.EntityNotFound("Stack", "a (b)"),
    model.SnapshotNotFound("0f3e", "s1"),
    model.StackExists("web"),
    model.ActionInProgress("web", "CREATE"),
    model.StackValidationFailed("unknown type", path=("resources", "web", "type")),
    model.InvalidTemplateVersion("The template version is invalid: 2099-01-01"),
    model.InvalidTemplateVersion("Template format version not found."),
    model.InvalidTemplateSection("The template section is invalid: bogus"),
    model.CircularDependencyException(["a", "b", "a"]),
    model.UserParameterMissing("key_name"),
    model.UnknownUserParameter("flavor"),
    model.ResourceTypeUnavailable("The Resource Type (OS::No::Such) could not be found."),
    model.NotSupported("Stack Abandon is not supported."),
    model.NotSupported("an odd text"),
    model.RequestLimitExceeded("Maximum resources per stack exceeded."),
    model.InvalidBreakPointHook('Invalid hook type "x" for resource r in stack s'),
    model.Forbidden("You are not authorized to use stacks:create."),
    engine_errors.ResourceNotFound("web", "s1"),
    engine_errors.ResourceNotAvailable("web"),
    engine_errors.NotFound("Template with version nope not found"),
    engine_errors.Invalid("mark_unhealthy is not a boolean"),
    engine_errors.ResourceActionNotSupported("signal"),
    engine_errors.PhysicalResourceIDAmbiguity("abc"),
    InvalidTemplateReference("db", "resources.web.depends_on"),
    InvalidSchemaError("Invalid default 5 (not a string)"),
    RemoteError("EntityNotFound", "The Stack (s2) could not be found.", HEAT_EXCEPTION_MODULE),
]
"""Errors the engine topic raises, under names Heat has."""

NOT_HEATS: list[Exception] = [
    ValueError("boom"),
    KeyError("k"),
    model.ResourceFailure(ValueError("x"), "CREATE"),
    model.UpdateReplace("web"),
    model.Forbidden("an odd text"),  # a 403 Heat can only word its own way
    NoSuchMethod("secret"),
    RemoteError("KeyError", "'k'", "builtins"),
]
"""Errors Heat has no class for that says what hotplate's API says: our envelope."""


def api_view(exc: Exception) -> tuple[int, str, str | None]:
    """What hotplate's API answers for ``exc`` raised by the engine (in-process envelope)."""
    return faults.status_for(codec.error_from(codec.failure_of(exc)))


def test_the_status_table_is_the_apis() -> None:
    assert {**API_STATUS, **STRICTER_THAN_HEAT_API, **REPEATED_REQUESTS} == \
        faults.STATUS_BY_NAME


@pytest.mark.parametrize("exc", SAMPLES, ids=lambda e: f"{type(e).__name__}:{e}")
def test_heat_answers_the_status_and_text_hotplate_answers(exc: Exception) -> None:
    fault = heat_fault(exc)
    assert fault is not None
    status, _, message = api_view(exc)
    assert heat_status(fault.name) == status
    assert fault.message == message
    heat = HEAT_CLASSES[fault.name]
    if heat.msg_fmt is not None:  # Heat's constructor says exactly the text
        assert heat.msg_fmt % fault.kwargs == fault.message


@pytest.mark.parametrize("exc", SAMPLES, ids=lambda e: f"{type(e).__name__}:{e}")
def test_a_hotplate_caller_gets_what_the_in_process_envelope_gives(exc: Exception) -> None:
    fault = heat_fault(exc)
    assert fault is not None
    back = from_heat(fault.name, fault.message)
    assert back is not None
    status, error_type, message = faults.status_for(back)
    assert (status, message) == api_view(exc)[::2]
    if fault.name == api_names(exc)[0]:  # its own class: the same type in the body
        assert error_type == api_view(exc)[1]


def test_heats_namesake_is_used_where_its_text_fits() -> None:
    assert heat_fault(model.EntityNotFound("Stack", "a (b)")) == HeatFault(
        "EntityNotFound", {"entity": "Stack", "name": "a (b)"},
        "The Stack (a (b)) could not be found.")
    assert heat_fault(model.ActionInProgress("web", "CHECK")) == HeatFault(
        "ActionInProgress", {"stack_name": "web", "action": "CHECK"},
        "Stack web already has an action (CHECK) in progress.")
    assert heat_fault(engine_errors.ResourceNotFound("web", "s1")) == HeatFault(
        "ResourceNotFound", {"resource_name": "web", "stack_name": "s1"},
        "The Resource (web) could not be found in Stack s1.")


def test_a_validation_error_is_heats_with_the_whole_text_as_its_message() -> None:
    exc = model.StackValidationFailed("unknown type", path=("resources", "web", "type"))
    assert heat_fault(exc) == HeatFault("StackValidationFailed",
                                        {"message": "resources.web.type: unknown type"},
                                        "resources.web.type: unknown type")


@pytest.mark.parametrize(("exc", "fallback"), [
    (model.InvalidTemplateVersion("Template format version not found."),
     "StackValidationFailed"),
    (model.ResourceTypeUnavailable("The Resource Type (X) could not be found."),
     "StackValidationFailed"),
    (model.NotSupported("an odd text"), "StackValidationFailed"),
    (RemoteError("ResourceNotFound", "gone"), "NotFound"),
])
def test_a_text_heats_class_cannot_say_goes_as_its_free_text_class(
        exc: Exception, fallback: str) -> None:
    fault = heat_fault(exc)
    assert fault is not None and fault.name == fallback


def test_not_found_doubles_a_percent_sign_it_formats_itself() -> None:
    fault = heat_fault(engine_errors.NotFound("100% gone"))
    assert fault == HeatFault("NotFound", {"msg_fmt": "100%% gone"}, "100% gone")
    assert fault.kwargs["msg_fmt"] % {} == "100% gone"


@pytest.mark.parametrize("exc", NOT_HEATS, ids=lambda e: f"{type(e).__name__}:{e}")
def test_errors_heat_cannot_say_keep_our_envelope(exc: Exception) -> None:
    assert heat_fault(exc) is None


def test_a_heat_class_outside_the_model_comes_back_as_a_remote_error_by_its_name() -> None:
    back = from_heat("ResourceNotFound", "The Resource (web) could not be found in Stack s.")
    assert isinstance(back, RemoteError)
    assert (back.exc_type, back.module) == ("ResourceNotFound", HEAT_EXCEPTION_MODULE)
    assert faults.status_for(back)[0] == 404


def test_model_errors_come_back_with_their_arguments() -> None:
    found = from_heat("EntityNotFound", "The Stack (a (b)) could not be found.")
    assert isinstance(found, model.EntityNotFound)
    assert (found.entity, found.name) == ("Stack", "a (b)")
    missing = from_heat("UserParameterMissing", "The Parameter (key) was not provided.")
    assert isinstance(missing, model.UserParameterMissing) and missing.key == "key"
    cycle = from_heat("CircularDependencyException", "Circular Dependency Found: a -> b -> a")
    assert isinstance(cycle, model.CircularDependencyException)
    assert cycle.cycle == ["a", "b", "a"]
    invalid = from_heat("StackValidationFailed", "resources.web: bad")
    assert isinstance(invalid, model.StackValidationFailed)
    assert (invalid.detail, invalid.path) == ("resources.web: bad", ())


def test_a_text_its_class_did_not_make_stays_a_remote_error() -> None:
    back = from_heat("EntityNotFound", "something else entirely")
    assert isinstance(back, RemoteError) and back.exc_type == "EntityNotFound"


def test_names_heat_lacks_are_the_callers_to_decide() -> None:
    assert from_heat("WireFailure", "x") is None
    assert from_heat("NoSuchMethod", "x") is None


def test_heat_statuses_follow_heats_tree() -> None:
    assert heat_status("ResourceNotFound") == 404  # through EntityNotFound
    assert heat_status("InvalidTemplateAttribute") == 500  # a HeatException Heat never maps
    assert heat_status("NotAHeatClass") == 500


def test_api_names_are_what_the_api_maps() -> None:
    assert api_names(model.UserParameterMissing("k"))[:3] == [
        "UserParameterMissing", "StackValidationFailed", "HotplateError"]
    assert api_names(engine_errors.ResourceNotFound("r", "s")) == ["ResourceNotFound"]
    assert api_names(RemoteError("StackExists", "x")) == ["StackExists"]


def test_a_config_in_use_goes_as_heats_class_though_heat_api_answers_it_500() -> None:
    """Heat's engine raises InvalidRestrictedAction, which heat-api's fault map lacks: a
    stock heat-api answers 500 with that type and text; hotplate's API answers 409."""
    text = "Software config with id c1 can not be deleted as it is referenced."
    exc = InvalidRestrictedAction(text)
    assert heat_fault(exc) == HeatFault("InvalidRestrictedAction", {"message": text}, text)
    assert heat_status("InvalidRestrictedAction") == 500
    back = from_heat("InvalidRestrictedAction", text)
    assert isinstance(back, RemoteError)
    assert faults.status_for(back) == (409, "InvalidRestrictedAction", text) == api_view(exc)

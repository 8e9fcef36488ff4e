"""The wire format: strict JSON requests and replies, and the error envelope."""

from __future__ import annotations

import datetime
import json
import uuid
from dataclasses import dataclass
from enum import Enum, IntEnum, StrEnum
from typing import Any

import pytest

from hotplate.model import errors as model_errors
from hotplate.rpc import codec
from hotplate.rpc.errors import NoSuchMethod, NotSerializable, RemoteError


class Action(StrEnum):
    CREATE = "CREATE"


class Level(IntEnum):
    HIGH = 3


class Colour(Enum):
    RED = "red"


@dataclass
class Point:
    x: int
    y: int


def test_request_round_trip() -> None:
    data = codec.encode({"tenant": "p"}, "check_resource",
                        {"resource_id": 4, "data": {"a": [1, None, 2.5, "x", True]}})
    assert isinstance(data, str)
    message = codec.decode(data.encode())
    assert message == codec.Message({"tenant": "p"}, "check_resource",
                                    {"resource_id": 4, "data": {"a": [1, None, 2.5, "x", True]}})


def test_enum_values_travel_as_plain_values() -> None:
    message = codec.decode(codec.encode({}, "m", {"action": Action.CREATE, "level": Level.HIGH}))
    assert message.kwargs == {"action": "CREATE", "level": 3}
    assert type(message.kwargs["action"]) is str


@pytest.mark.parametrize(("value", "path", "hint"), [
    ((1, 2), "kwargs.v", "send a list"),
    ({1, 2}, "kwargs.v", "sorted list"),
    (frozenset(), "kwargs.v", "sorted list"),
    (datetime.datetime(2026, 1, 1), "kwargs.v", "ISO 8601"),
    (datetime.date(2026, 1, 1), "kwargs.v", "ISO 8601"),
    (b"x", "kwargs.v", "base64"),
    ([[0, [1, object()]]], "kwargs.v[0][1][1]", "object is not JSON"),
    ({"deep": {"my key": (1,)}}, "kwargs.v.deep['my key']", "tuple"),
    ({None: 1}, "kwargs.v[None]", "JSON object keys are strings"),
    (float("inf"), "kwargs.v", "not a JSON number"),
])
def test_what_json_cannot_carry_is_named_by_path(value: Any, path: str, hint: str) -> None:
    with pytest.raises(NotSerializable) as info:
        codec.encode({}, "m", {"v": value})
    assert info.value.path == path
    assert str(info.value).startswith(f"{path}: ")
    assert hint in str(info.value)
    assert isinstance(info.value, TypeError)


def test_circular_structures_are_refused() -> None:
    loop: list[Any] = [1]
    loop.append(loop)
    with pytest.raises(NotSerializable, match="circular"):
        codec.check_json({"x": loop}, "kwargs")


def test_shared_but_acyclic_structures_are_fine() -> None:
    shared = [1, 2]
    codec.check_json({"a": shared, "b": [shared, shared]})


def test_method_must_be_a_name() -> None:
    with pytest.raises(NotSerializable, match="method"):
        codec.encode({}, "", {})


@pytest.mark.parametrize("data", [
    "[]", '{"method": 1, "ctxt": {}, "kwargs": {}}', '{"method": "m", "ctxt": {}}', "nope",
])
def test_malformed_messages_are_value_errors(data: str) -> None:
    with pytest.raises(ValueError):
        codec.decode(data)


def test_result_round_trip() -> None:
    assert codec.decode_reply(codec.encode_result({"a": [1]})) == {"a": [1]}
    assert codec.decode_reply(codec.encode_result(None)) is None


def test_result_must_be_json() -> None:
    with pytest.raises(NotSerializable, match=r"result\.when"):
        codec.encode_result({"when": datetime.datetime(2026, 1, 1)})


@pytest.mark.parametrize("data", ["{}", "[1]", '{"other": 1}'])
def test_malformed_replies_are_value_errors(data: str) -> None:
    with pytest.raises(ValueError):
        codec.decode_reply(data)


def round_trip(exc: BaseException) -> Exception:
    with pytest.raises(Exception) as info:
        codec.decode_reply(codec.encode_failure(exc))
    return info.value


def test_envelope_fields() -> None:
    failure = codec.failure_of(model_errors.EntityNotFound("Stack", "web"))
    assert failure == {
        "exc_type": "EntityNotFound",
        "message": "The Stack (web) could not be found.",
        "module": "hotplate.model.errors",
        "attrs": {"entity": "Stack", "name": "web"},
    }
    json.dumps(failure)


@pytest.mark.parametrize("exc", [
    model_errors.EntityNotFound("Resource", "db"),
    model_errors.StackExists("s"),
    model_errors.ActionInProgress("s", "UPDATE"),
    model_errors.StackValidationFailed("bad", path=["parameters", "x"]),
    model_errors.CircularDependencyException(["a", "b", "a"]),
    model_errors.UserParameterMissing("key_name"),
    model_errors.NotSupported("no"),
    model_errors.Forbidden("no"),
    model_errors.UpdateReplace("web"),
    model_errors.ResourceFailure(ValueError("x"), "CREATE"),
])
def test_model_errors_are_rebuilt_by_class(exc: Exception) -> None:
    rebuilt = round_trip(exc)
    assert type(rebuilt) is type(exc)
    assert str(rebuilt) == str(exc)
    for key, value in vars(exc).items():
        if isinstance(value, str | int):
            assert getattr(rebuilt, key) == value


def test_unknown_errors_become_remote_errors() -> None:
    rebuilt = round_trip(KeyError("k"))
    assert isinstance(rebuilt, RemoteError)
    assert (rebuilt.exc_type, rebuilt.module) == ("KeyError", "builtins")
    assert str(rebuilt) == "Remote error: KeyError 'k'"


def test_only_model_module_classes_are_rebuilt() -> None:
    spoofed = {"exc_type": "EntityNotFound", "message": "m", "module": "elsewhere"}
    assert type(codec.error_from(spoofed)) is RemoteError
    not_a_class = {"exc_type": "annotations", "message": "m", "module": "hotplate.model.errors"}
    assert type(codec.error_from(not_a_class)) is RemoteError
    private = {"exc_type": "EntityNotFound", "message": "m", "module": "hotplate.model.errors",
               "attrs": {"_x": 1, "args": [2], "name": "n"}}
    rebuilt = codec.error_from(private)
    assert not hasattr(rebuilt, "_x")
    assert rebuilt.args == ("m",)
    assert rebuilt.name == "n"  # type: ignore[attr-defined]


def test_refusals_stay_refusals() -> None:
    rebuilt = round_trip(NoSuchMethod("hidden"))
    assert isinstance(rebuilt, NoSuchMethod)
    assert rebuilt.method == "hidden"
    assert str(rebuilt) == str(NoSuchMethod("hidden"))


def test_a_nested_remote_error_passes_through_unwrapped() -> None:
    rebuilt = round_trip(RemoteError("KeyError", "'k'", "builtins"))
    assert isinstance(rebuilt, RemoteError)
    assert (rebuilt.exc_type, rebuilt.message) == ("KeyError", "'k'")


# -- what orjson alone would get wrong, and the round trip that catches it ----------
class Key(str):
    """A str subclass: orjson refuses it as a key, JSON does not."""


@pytest.mark.parametrize("value", [
    2**64 + 1,                          # beyond orjson's integers: read back exactly
    -(2**70),
    {Key("k"): [Key("v")]},             # str subclass key
    {Action.CREATE: 1},                 # StrEnum key
    "lone \ud800 surrogate",            # orjson writes only valid UTF-8
    [[[[1]]]] * 2,
])
def test_what_only_the_standard_library_writes_still_travels(value: Any) -> None:
    message = codec.decode(codec.encode({}, "m", {"v": value}))
    assert message.kwargs["v"] == value
    assert codec.decode_reply(codec.encode_result(value)) == value
    assert codec.decode_reply(codec.encode_result(value, checked=True)) == value
    assert codec.result_as_read(value) == value


def test_deep_nesting_beyond_orjson_travels() -> None:
    deep: Any = 1
    for _ in range(300):
        deep = [deep]
    assert codec.decode(codec.encode({}, "m", {"v": deep})).kwargs["v"] == deep


def test_big_integers_are_not_read_as_floats() -> None:
    big = 2**64 + 1
    got = codec.decode_reply(codec.encode_result({"n": big}))["n"]
    assert type(got) is int and got == big
    got = codec.result_as_read({"n": big})["n"]
    assert type(got) is int and got == big


@pytest.mark.parametrize(("value", "path"), [
    ([1.0, float("nan")], "kwargs.v[1]"),           # orjson writes NaN as null
    ({"a": [uuid.UUID(int=1)]}, "kwargs.v.a[0]"),    # orjson writes UUIDs as text
    ({"at": datetime.time(1, 2)}, "kwargs.v.at"),
    (Point(1, 2), "kwargs.v"),                       # orjson writes dataclasses as objects
    (Colour.RED, "kwargs.v"),                        # a plain Enum: orjson writes its value
    ([{"x": (1,)}], "kwargs.v[0].x"),
])
def test_what_orjson_would_change_is_refused_by_path(value: Any, path: str) -> None:
    with pytest.raises(NotSerializable) as info:
        codec.encode({}, "m", {"v": value})
    assert info.value.path == path
    with pytest.raises(NotSerializable):
        codec.check_json(value)
    with pytest.raises(NotSerializable):
        codec.encode_result(value)
    with pytest.raises(NotSerializable, match=r"^result"):
        codec.result_as_read(value)


def test_a_result_as_read_is_the_replys_reading_and_shares_nothing() -> None:
    """What a caller in the same process gets: equal to what the reply's text gives,
    in the same types, and no object of the endpoint's (the caller may change it)."""
    value = {"rows": [{"name": "r0", "status": Action.CREATE, "n": 1, "x": 1.5,
                       "nested": {"ok": True, "none": None}}]}
    got = codec.result_as_read(value)
    assert got == codec.decode_reply(codec.encode_result(value))
    assert type(got["rows"][0]["status"]) is str
    got["rows"][0]["nested"]["ok"] = False
    assert value["rows"][0]["nested"]["ok"] is True


def test_text_of_the_standard_library_is_read() -> None:
    assert codec.decode_reply('{"result": [1, 2.5, "x"]}') == [1, 2.5, "x"]
    assert codec.decode_reply(b' {"result":18446744073709551617}') == 2**64 + 1
    assert codec.decode('{"method": "m", "ctxt": {}, "kwargs": {"v": NaN}}').method == "m"

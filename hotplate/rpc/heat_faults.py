"""Errors on the engine topic under Heat's exception names, as a stock heat-api reads them.

heat-api's oslo.messaging rebuilds a remote error as
``heat.common.exception.<class>(*args, **kwargs)`` (it allows that module
and no other of ours), and its fault middleware
(``heat/api/middleware/fault.py``) answers the status its ``error_map`` gives
the class or its nearest Heat base, with the rebuilt instance's ``message``.
So an error crosses as the Heat class, and keyword arguments, that make
heat-api answer what hotplate's own API answers for it::

    hotplate error (names N1..Nk, text T, status S by API_STATUS or
                    STRICTER_THAN_HEAT_API)
      1. the first Ni that Heat has, if Heat's status for it is S (or Ni is
         STRICTER_THAN_HEAT_API's, whose S heat-api cannot give) and its
         msg_fmt can say T exactly:               Ni(**fields parsed from T)
      2. else Heat's free-text class of status S: StackValidationFailed(message=T)
                                                  or NotFound(msg_fmt=T)
      3. else None: the error keeps hotplate's own envelope (heat-api: 500);
         so does an error of no Heat name at all (a ValueError)

``N1..Nk`` are the names hotplate's API would map: a model error's class and
its bases, otherwise only the class name (a remote error, by its remote
name), as ``hotplate.api.faults.status_for`` sees them.

The way back is narrower: a caller that cannot import Heat gets from
oslo.messaging only the class name and the text. ``from_heat`` parses the
text with the class's msg_fmt and rebuilds the model error (EntityNotFound
with its entity and name, ...); a validation error's path stays inside its
text. Heat classes hotplate has no model error for come back as RemoteError
under Heat's name, which the API maps by name as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from hotplate.model import errors as model
from hotplate.rpc.errors import RemoteError

HEAT_EXCEPTION_MODULE = "heat.common.exception"
"""The one module of ours heat-api's oslo.messaging will rebuild exceptions from."""

HEAT_FAULT_MAP: Mapping[str, int] = {
    **dict.fromkeys((
        "AttributeError", "ValueError", "ResourceActionNotSupported",
        "PhysicalResourceNameAmbiguity", "PhysicalResourceIDAmbiguity",
        "StackValidationFailed", "InvalidSchemaError", "InvalidTemplateReference",
        "InvalidTemplateVersion", "InvalidTemplateSection", "UnknownUserParameter",
        "NotSupported", "MissingCredentialError", "UserParameterMissing",
        "RequestLimitExceeded", "DownloadLimitExceeded", "Invalid", "ResourcePropertyConflict",
        "PropertyUnspecifiedError", "ObjectFieldInvalid", "ReadOnlyFieldError",
        "ObjectActionError", "IncompatibleObjectVersion", "OrphanedObjectError",
        "UnsupportedObjectError", "ResourceTypeUnavailable", "InvalidBreakPointHook",
        "ImmutableParameterModified", "CircularDependencyException",
    ), 400),
    "InvalidTenant": 403,
    "Forbidden": 403,
    "EntityNotFound": 404,
    "NotFound": 404,
    "ResourceNotAvailable": 404,
    "ActionInProgress": 409,
    "StackExists": 409,
    **dict.fromkeys(("InvalidGlobalResource", "RevertFailed", "StopActionFailed",
                     "EventSendFailed", "ServerBuildFailed", "InvalidEncryptionKey"), 500),
}
"""heat-api's FaultWrapper.error_map (Heat 27.0.1), as statuses; a name it lacks
is looked up by its base class, and Exception is a 500."""

API_STATUS: Mapping[str, int] = {
    **{name: status for name, status in HEAT_FAULT_MAP.items() if status != 500},
    "ResourceNotFound": 404,
    "SnapshotNotFound": 404,
}
"""The statuses hotplate's API gives by name (``hotplate.api.faults.STATUS_BY_NAME``):
Heat's map, and the EntityNotFound kinds, since a remote error is mapped by its name
alone."""

STRICTER_THAN_HEAT_API: Mapping[str, int] = {"InvalidRestrictedAction": 409}
"""Client errors heat-api answers 500 for (its fault map lacks them) and hotplate's API
answers as the client's: deleting a software config a deployment still uses. They cross
as the Heat class a Heat engine raises, so a stock heat-api answers exactly what it
answers in front of Heat: a 500 naming that class, with its message."""

REPEATED_REQUESTS: Mapping[str, int] = {"RequestInProgress": 409, "RequestIdReused": 422}
"""Errors about a request id asked again (engine/service/request_ledger.py), which Heat
has no name for: a stock heat-api gives every request an id of its own and asks once,
so it never meets them (they would cross in hotplate's envelope, a 500 there)."""


@dataclass(frozen=True)
class HeatClass:
    """One class of heat.common.exception: its text and where it sits in Heat's tree."""

    name: str
    msg_fmt: str | None
    """Heat's text with ``%(field)s`` placeholders, filled from the keyword arguments.
    None: the constructor takes the whole text as ``text_argument``."""
    parent: str = "HeatException"
    text_argument: str = ""
    pattern: re.Pattern[str] | None = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "pattern", None if self.msg_fmt is None
                           else _pattern(self.msg_fmt))

    def kwargs_for(self, text: str) -> dict[str, str] | None:
        """Keyword arguments with which Heat's constructor says exactly ``text``; None
        if its msg_fmt cannot."""
        if self.pattern is None:
            # NotFound formats its argument itself (msg_fmt % {}): a lone % must double.
            value = text.replace("%", "%%") if self.text_argument == "msg_fmt" else text
            return {self.text_argument: value}
        match = self.pattern.fullmatch(text)
        if match is None:
            return None
        fields = match.groupdict()
        assert self.msg_fmt is not None
        return fields if self.msg_fmt % fields == text else None

    def fields_of(self, text: str) -> dict[str, str] | None:
        """The placeholders' values in a text this class made; None if it could not."""
        if self.pattern is None:
            return {}
        match = self.pattern.fullmatch(text)
        return None if match is None else match.groupdict()


def _pattern(msg_fmt: str) -> re.Pattern[str]:
    parts = re.split(r"%\((\w+)\)s", msg_fmt)
    # re.split alternates literal text and field names.
    regex = "".join(re.escape(part) if index % 2 == 0 else f"(?P<{part}>.*?)"
                    for index, part in enumerate(parts))
    return re.compile(regex, re.DOTALL)


_SVF, _NOT_FOUND = "StackValidationFailed", "NotFound"

HEAT_CLASSES: Mapping[str, HeatClass] = {c.name: c for c in (
    HeatClass("EntityNotFound", "The %(entity)s (%(name)s) could not be found."),
    HeatClass("ResourceNotFound", "The Resource (%(resource_name)s) could not be found in "
              "Stack %(stack_name)s.", parent="EntityNotFound"),
    HeatClass(_NOT_FOUND, None, text_argument="msg_fmt"),
    HeatClass("SnapshotNotFound", "The Snapshot (%(snapshot)s) for Stack (%(stack)s) "
              "could not be found.", parent="EntityNotFound"),
    HeatClass("ResourceNotAvailable", "The Resource (%(resource_name)s) is not available."),
    HeatClass("StackExists", "The Stack (%(stack_name)s) already exists."),
    HeatClass("ActionInProgress",
              "Stack %(stack_name)s already has an action (%(action)s) in progress."),
    HeatClass(_SVF, None, parent="HeatExceptionWithPath", text_argument="message"),
    HeatClass("InvalidTemplateVersion", "The template version is invalid: %(explanation)s"),
    HeatClass("InvalidTemplateSection", "The template section is invalid: %(section)s"),
    HeatClass("InvalidTemplateReference",
              'The specified reference "%(resource)s" (in %(key)s) is incorrect.'),
    HeatClass("InvalidTemplateAttribute",
              "The Referenced Attribute (%(resource)s %(key)s) is incorrect."),
    HeatClass("InvalidSchemaError", "%(message)s"),
    HeatClass("UserParameterMissing", "The Parameter (%(key)s) was not provided."),
    HeatClass("UnknownUserParameter", "The Parameter (%(key)s) was not defined in template."),
    HeatClass("ImmutableParameterModified",
              "The following parameters are immutable and may not be updated: %(keys)s"),
    HeatClass("CircularDependencyException", "Circular Dependency Found: %(cycle)s"),
    HeatClass("ResourceTypeUnavailable", "HEAT-E99001 Service %(service_name)s is not "
              "available for resource type %(resource_type)s, reason: %(reason)s"),
    HeatClass("NotSupported", "%(feature)s is not supported."),
    HeatClass("RequestLimitExceeded", "Request limit exceeded: %(message)s"),
    HeatClass("Invalid", "Data supplied was not valid: %(reason)s"),
    HeatClass("ResourceActionNotSupported", "%(action)s is not supported for resource."),
    HeatClass("ResourceActionRestricted", "%(action)s is restricted for resource."),
    HeatClass("ResourcePropertyValueDependency", "%(prop1)s property should only be "
              "specified for %(prop2)s with value %(value)s."),
    HeatClass("PhysicalResourceIDAmbiguity",
              "Multiple resources were found with the physical ID (%(phys_id)s)."),
    HeatClass("InvalidBreakPointHook", "%(message)s"),
    HeatClass("Forbidden", "You are not authorized to use %(action)s."),
    HeatClass("MissingCredentialError", "Missing required credential: %(required)s"),
    HeatClass("AuthorizationFailure", "Authorization failed.%(failure_reason)s"),
    HeatClass("InvalidRestrictedAction", "%(message)s"),
)}
"""The Heat classes hotplate's errors are named after (Heat 27.0.1's texts)."""

_FREE_TEXT: Mapping[int, str] = {400: _SVF, 404: _NOT_FOUND}
"""For a status, the Heat class that says any text (its constructor takes the text)."""


@dataclass(frozen=True)
class HeatFault:
    """What a Heat engine would have raised: ``heat.common.exception.<name>(**kwargs)``,
    whose message is ``message``."""

    name: str
    kwargs: dict[str, str]
    message: str


def heat_status(name: str) -> int:
    """The status heat-api answers for Heat class ``name`` (its nearest mapped base)."""
    heat: HeatClass | None = HEAT_CLASSES.get(name)
    while heat is not None and heat.name not in HEAT_FAULT_MAP:
        heat = HEAT_CLASSES.get(heat.parent)
    return HEAT_FAULT_MAP.get(heat.name, 500) if heat is not None else 500


def api_names(exc: BaseException) -> list[str]:
    """The class names hotplate's API maps ``exc`` by, most specific first.

    A model error arrives at the API as its own class, so its bases count; any
    other error arrives as a RemoteError and is mapped by its name alone.
    """
    if isinstance(exc, RemoteError):
        return [exc.exc_type]
    if type(exc).__module__ == model.__name__:
        return [klass.__name__ for klass in type(exc).__mro__]
    return [type(exc).__name__]


def heat_fault(exc: BaseException) -> HeatFault | None:
    """The Heat error that makes heat-api answer as hotplate's API does; None if none can.

    The status to match is the API's (its tables over ``api_names``), so the two
    front ends agree even where a hotplate class and its Heat namesake sit in
    different places of their trees. The exceptions are STRICTER_THAN_HEAT_API's:
    heat-api cannot answer their status, so they go as Heat's engine sends them.
    """
    names = api_names(exc)
    if not any(name in HEAT_CLASSES for name in names):
        return None  # not an error Heat has (a ValueError): it keeps hotplate's envelope
    text = exc.message if isinstance(exc, RemoteError) else str(exc)
    answers = {**API_STATUS, **STRICTER_THAN_HEAT_API}
    status = next((answers[name] for name in names if name in answers), 500)
    for name in names:
        heat = HEAT_CLASSES.get(name)
        if heat is None or status not in (heat_status(name), STRICTER_THAN_HEAT_API.get(name)):
            continue
        kwargs = heat.kwargs_for(text)
        if kwargs is not None:
            return HeatFault(name, kwargs, text)
    fallback = _FREE_TEXT.get(status)
    if fallback is None:
        return None
    kwargs = HEAT_CLASSES[fallback].kwargs_for(text)
    assert kwargs is not None  # a free-text class says anything
    return HeatFault(fallback, kwargs, text)


_Rebuild = Callable[[Mapping[str, str], str], Exception]

_MODEL_ERRORS: Mapping[str, _Rebuild] = {
    "EntityNotFound": lambda f, text: model.EntityNotFound(f["entity"], f["name"]),
    "SnapshotNotFound": lambda f, text: model.SnapshotNotFound(f["snapshot"], f["stack"]),
    "StackExists": lambda f, text: model.StackExists(f["stack_name"]),
    "ActionInProgress": lambda f, text: model.ActionInProgress(f["stack_name"], f["action"]),
    _SVF: lambda f, text: model.StackValidationFailed(text),
    "InvalidTemplateVersion": lambda f, text: model.InvalidTemplateVersion(text),
    "InvalidTemplateSection": lambda f, text: model.InvalidTemplateSection(text),
    "CircularDependencyException":
        lambda f, text: model.CircularDependencyException(f["cycle"].split(" -> ")),
    "UserParameterMissing": lambda f, text: model.UserParameterMissing(f["key"]),
    "UnknownUserParameter": lambda f, text: model.UnknownUserParameter(f["key"]),
    "NotSupported": lambda f, text: model.NotSupported(text),
    "RequestLimitExceeded": lambda f, text: model.RequestLimitExceeded(f["message"]),
    "InvalidBreakPointHook": lambda f, text: model.InvalidBreakPointHook(text),
    "Forbidden": lambda f, text: model.Forbidden(text),
    "MissingCredentialError": lambda f, text: model.MissingCredentialError(f["required"]),
    "AuthorizationFailure":
        lambda f, text: model.AuthorizationFailure(f["failure_reason"].strip()),
}
"""Heat class -> the model error of that name, from the fields of its text."""


def from_heat(name: str, message: str) -> Exception | None:
    """The error a caller of the engine topic re-raises for a remote Heat error.

    A model error by class when its text parses (and says the same once rebuilt);
    RemoteError under Heat's name for any other Heat class; None when ``name`` is
    not a Heat class this module knows (the caller decides).
    """
    heat = HEAT_CLASSES.get(name)
    if heat is None:
        return None
    rebuild, fields = _MODEL_ERRORS.get(name), heat.fields_of(message)
    if rebuild is not None and fields is not None:
        error = rebuild(fields, message)
        if str(error) == message:
            return error
    return RemoteError(name, message, HEAT_EXCEPTION_MODULE)


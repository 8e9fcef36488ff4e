"""Errors users see, named as Heat names them (the API maps names to statuses).

::

    HotplateError
    ├── EntityNotFound            404  "The Stack (web) could not be found."
    ├── StackExists               409
    ├── ActionInProgress          409
    ├── ActionNotComplete         (heat-manage migrate_convergence_1)
    ├── StackValidationFailed     400  (every template / property / parameter error)
    │   ├── InvalidTemplateVersion
    │   ├── InvalidTemplateSection
    │   ├── CircularDependencyException
    │   ├── UserParameterMissing
    │   ├── UnknownUserParameter
    │   ├── PropertyError           (worded by where it is met: see the class)
    │   └── ResourceTypeUnavailable
    ├── NotSupported              400
    ├── RequestLimitExceeded      400
    ├── MissingCredentialError    400  "Missing required credential: roles ..."
    ├── Forbidden                 403
    ├── RequestIdReused           422  (an Idempotency-Key reused for another request)
    ├── RequestInProgress         409  (its first asking still runs; Retry-After)
    └── AuthorizationFailure      500  "Authorization failed." (Keystone refused the engine)

Resource-level outcomes (never shown as API errors):
ResourceFailure wraps a plugin's exception as "<Type>: <path>: <message>";
UpdateReplace asks the engine for a replacement; CancelOperation stops a
worker at its next progress check.
"""

from __future__ import annotations


class HotplateError(Exception):
    """Base of every error with a message meant for users."""

    def __init__(self, message: str = "") -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class EntityNotFound(HotplateError):
    def __init__(self, entity: str, name: str) -> None:
        super().__init__(f"The {entity} ({name}) could not be found.")
        self.entity = entity
        self.name = name


class SnapshotNotFound(EntityNotFound):
    def __init__(self, snapshot: str, stack: str) -> None:
        HotplateError.__init__(
            self, f"The Snapshot ({snapshot}) for Stack ({stack}) could not be found.")
        self.entity = "Snapshot"
        self.name = snapshot


class StackExists(HotplateError):
    def __init__(self, stack_name: str) -> None:
        super().__init__(f"The Stack ({stack_name}) already exists.")


class ActionInProgress(HotplateError):
    def __init__(self, stack_name: str, action: str) -> None:
        super().__init__(f"Stack {stack_name} already has an action ({action}) in progress.")


class ActionNotComplete(HotplateError):
    def __init__(self, stack_name: str, action: str) -> None:
        super().__init__(f"Stack {stack_name} has an action ({action}) in progress or "
                         "failed state.")


class StackValidationFailed(HotplateError):
    """A template, parameter or property is wrong. ``path`` names where."""

    def __init__(self, message: str, path: tuple[str | int, ...] | list[str | int] = ()) -> None:
        self.path = tuple(path)
        self.detail = message
        text = f"{'.'.join(str(p) for p in self.path)}: {message}" if self.path else message
        super().__init__(text)


class InvalidTemplateVersion(StackValidationFailed):
    pass


class InvalidTemplateSection(StackValidationFailed):
    pass


class CircularDependencyException(StackValidationFailed):
    def __init__(self, cycle: list[str]) -> None:
        self.cycle = cycle
        super().__init__(f"Circular Dependency Found: {' -> '.join(cycle)}")


class UserParameterMissing(StackValidationFailed):
    def __init__(self, key: str) -> None:
        super().__init__(f'The Parameter ({key}) was not provided.')
        self.key = key


class UnknownUserParameter(StackValidationFailed):
    def __init__(self, key: str) -> None:
        super().__init__(f'The Parameter ({key}) was not defined in template.')
        self.key = key


class PropertyError(StackValidationFailed):
    """A resource's property that cannot be taken: its name, presence, type or
    constraints, or a function in its value that fails as it resolves.

    Heat's Properties.validate reports all of these as a ``Property error``
    whose path ends at the property (a function's own path is not shown), and
    the words around it depend on where it is met:

    =====================  ===================================================
    met                    Heat's text
    =====================  ===================================================
    template validate      ``Property error: resources.r.properties.k: msg``
    stack create / update  ``Property error: : resources.r.properties.k: : msg``
                           (heat-api words the engine's error again from its
                           parts after it crossed RPC, each part keeping its
                           ``": "``)
    resource create        ``resources.r: Property error: Properties.k: msg``
                           (the resource's reason; the stack's puts ``r.``
                           before ``Properties``)
    =====================  ===================================================

    ``path`` is hotplate's (``("resources", "r", "properties", "k", 0)``);
    Heat writes an index as ``[0]`` after the step before it.
    """

    def validate_text(self) -> str:
        return f"Property error: {heat_path(self.path)}: {self.detail}"

    def request_text(self) -> str:
        return f"Property error: : {heat_path(self.path)}: : {self.detail}"

    def worded(self, text: str) -> StackValidationFailed:
        """The same error in other words; the path stays, for positions in the text."""
        error = StackValidationFailed(self.detail, self.path)
        error.message = text
        error.args = (text,)
        return error


def heat_path(path: tuple[str | int, ...] | list[str | int]) -> str:
    """A path as Heat's errors print it: steps joined by dots, indices as ``[i]``."""
    text = ""
    for step in path:
        if isinstance(step, int) or step.isdigit():
            text += f"[{step}]"
        elif text:
            text += f".{step}"
        else:
            text = step
    return text


class ResourceTypeUnavailable(StackValidationFailed):
    """An unknown type ("could not be found"), or, with ``error_code`` "99001", a type
    whose service the caller's catalog lacks ("HEAT-E99001 Service nova is not
    available for resource type ..."): Heat's code, which validation may ignore."""

    error_code: str | None = None
    resource_type: str | None = None
    """The type name that was looked up (after the environment's mappings)."""


class NotSupported(HotplateError):
    pass


class RequestLimitExceeded(HotplateError):
    def __init__(self, message: str) -> None:
        super().__init__(f"Request limit exceeded: {message}")


class Forbidden(HotplateError):
    pass


class RequestIdReused(HotplateError):
    """A request id (an Idempotency-Key, a ClientRequestToken) already used for another
    request: another method, project or arguments."""

    def __init__(self, request_id: str) -> None:
        super().__init__(f"The request id {request_id} was already used for a different "
                         "request.")
        self.request_id = request_id


class RequestInProgress(HotplateError):
    """The first asking of this request id is still running on a live engine."""

    def __init__(self, request_id: str) -> None:
        super().__init__(f"The request {request_id} is still in progress; ask again later.")
        self.request_id = request_id


class MissingCredentialError(HotplateError):
    """A credential the request needs is missing (a trust's roles the caller lacks)."""

    def __init__(self, required: str) -> None:
        super().__init__(f"Missing required credential: {required}")


class AuthorizationFailure(HotplateError):
    """Keystone refused the engine's own credentials (trustee, stack domain admin)."""

    def __init__(self, failure_reason: str = "") -> None:
        reason = f" {failure_reason}" if failure_reason else ""
        super().__init__(f"Authorization failed.{reason}")


class InvalidBreakPointHook(HotplateError):
    """A signal names a hook that is not a hook type, or not pending on the resource."""


class ResourceFailure(HotplateError):
    """A resource action failed; the text becomes the resource's status reason."""

    def __init__(self, exc: BaseException, action: str) -> None:
        self.exc = exc
        self.action = action
        super().__init__(f"{type(exc).__name__}: {exc}")


class UpdateReplace(Exception):
    """Raised by a plugin's handle_update: this change needs a new physical resource."""

    def __init__(self, resource_name: str = "") -> None:
        super().__init__(f"The Resource {resource_name} requires replacement.")


class CancelOperation(Exception):
    """Raised at a worker's progress check after cancel_check_resource."""


class StopActionFailed(HotplateError):
    """The engine holding a legacy stack's lock did not stop its thread in time."""

    def __init__(self, stack_name: str, engine_id: str) -> None:
        super().__init__(f"Failed to stop stack ({stack_name}) on other engine ({engine_id})")


class EventSendFailed(HotplateError):
    """The engine holding a legacy stack's lock did not take a message for its thread."""

    def __init__(self, stack_name: str, engine_id: str) -> None:
        super().__init__(f"Failed to send message to stack ({stack_name}) on other engine "
                         f"({engine_id})")

"""Errors only the engine topic raises, under Heat's class names and texts.

They cross the transport as remote errors named by class (the API maps the
name to a status, as heat-api does with oslo.messaging's remote errors)::

    HotplateError                      (hotplate.model.errors)
    ├── EntityNotFound
    │   └── ResourceNotFound           404  "The Resource (r) could not be found in Stack s."
    ├── ResourceNotAvailable           404  "The Resource (r) is not available."
    ├── NotFound                       404  a plain message ("Template with version x not found")
    ├── Invalid                        400  "Data supplied was not valid: <reason>"
    ├── ResourceActionNotSupported     400  "signal is not supported for resource."
    └── PhysicalResourceIDAmbiguity    400  two resources of the stack share a physical id
"""

from __future__ import annotations

from hotplate.model.errors import EntityNotFound, HotplateError


class ResourceNotFound(EntityNotFound):
    def __init__(self, resource_name: str, stack_name: str) -> None:
        super().__init__("Resource", resource_name)
        self.message = (f"The Resource ({resource_name}) could not be found "
                        f"in Stack {stack_name}.")
        self.args = (self.message,)


class ResourceNotAvailable(HotplateError):
    def __init__(self, resource_name: str) -> None:
        super().__init__(f"The Resource ({resource_name}) is not available.")


class NotFound(HotplateError):
    pass


class Invalid(HotplateError):
    def __init__(self, reason: str) -> None:
        super().__init__(f"Data supplied was not valid: {reason}")


class ResourceActionNotSupported(HotplateError):
    def __init__(self, action: str) -> None:
        super().__init__(f"{action} is not supported for resource.")


class PhysicalResourceIDAmbiguity(HotplateError):
    def __init__(self, physical_id: str) -> None:
        super().__init__(
            f"Multiple resources were found with the physical ID ({physical_id}).")

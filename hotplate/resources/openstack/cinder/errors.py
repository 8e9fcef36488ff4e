"""Heat's exceptions as the Cinder types raise them, under Heat's class names.

The engine prints a failure as ``<class>: resources.<name>: <text>``, so each
class is named as Heat's (``Error``, ``ResourceInError``...) and words its text
as Heat does::

    Error                     the text as given ("Volume in use", "Failed to extend ...")
    ResourceInError           Went to status error due to "Unknown"
    ResourceUnknownStatus     Volume create failed - Unknown status X due to "Unknown"
    NotSupported              Shrinking volume is not supported.
    ResourcePropertyConflict  Cannot define the following properties at the same time: a, b.
    PropertyUnspecifiedError  At least one of the following properties must be specified: ...

The status errors are every type's (status_errors.py); the property
errors are validation failures (``StackValidationFailed``), as the engine
reports those.
"""

from __future__ import annotations

from hotplate.model.errors import HotplateError, StackValidationFailed
from hotplate.model.errors import NotSupported as _NotSupported
from hotplate.resources.properties import PropertyPath
from hotplate.resources.status_errors import ResourceInError, ResourceUnknownStatus

__all__ = ["Error", "NotSupported", "PropertyUnspecifiedError", "ResourceInError",
           "ResourcePropertyConflict", "ResourceUnknownStatus"]


class Error(HotplateError):
    """Heat's catch-all ``exception.Error``: its text is the message as given."""


class NotSupported(_NotSupported):
    def __init__(self, feature: str) -> None:
        super().__init__(f"{feature} is not supported.")


class ResourcePropertyConflict(StackValidationFailed):
    def __init__(self, *names: str, path: PropertyPath = ()) -> None:
        super().__init__("Cannot define the following properties at the same time: "
                         f"{', '.join(names)}.", path)


class PropertyUnspecifiedError(StackValidationFailed):
    def __init__(self, *names: str, path: PropertyPath = ()) -> None:
        super().__init__("At least one of the following properties must be specified: "
                         f"{', '.join(names)}.", path)

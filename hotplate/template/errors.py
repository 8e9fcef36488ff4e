"""Template errors beyond the model's, each a ``StackValidationFailed``.

::

    StackValidationFailed                 (hotplate.model.errors)
    ├── InvalidTemplateReference          'The specified reference "db" (in web) is incorrect.'
    ├── InvalidSchemaError                a parameter's schema is wrong
    └── ProviderOutputsInvalid            a provider template's outputs (no path: Heat
                                          meets it building the resource, before any)

Heat words some messages so that they already say where the problem is
(the resource or parameter is in the text). Those keep Heat's exact text and
carry the location in ``.path`` only; every other template error puts its
path in front of the message (``resources.web.properties.image: ...``).
"""

from __future__ import annotations

from collections.abc import Sequence

from hotplate.model.errors import StackValidationFailed


def with_path(error: StackValidationFailed, path: Sequence[str]) -> StackValidationFailed:
    """Attach a location to an error whose text must stay exactly Heat's."""
    error.path = tuple(path)
    return error


class InvalidTemplateReference(StackValidationFailed):
    """A depends_on, get_resource or get_attr names a resource the template lacks."""

    def __init__(self, resource: str, key: str, path: Sequence[str] = ()) -> None:
        super().__init__(f'The specified reference "{resource}" (in {key}) is incorrect.')
        self.resource = resource
        self.key = key
        self.path = tuple(path)


def condition_error(message: str, path: Sequence[str]) -> StackValidationFailed:
    """Heat's "Condition validation error: ..." (it names the condition, not the path)."""
    return with_path(StackValidationFailed(f"Condition validation error: {message}"), path)


class InvalidSchemaError(StackValidationFailed):
    """A parameter's declaration (type, constraints, default) is invalid."""

    def __init__(self, message: str, path: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.path = tuple(path)


class ProviderOutputsInvalid(StackValidationFailed):
    """A provider template's output with a key HOT does not define.

    Heat reads these outputs as it builds the resource of that type, before
    any step names the resource, so the message stands alone.
    """

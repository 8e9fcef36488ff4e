"""Heat's status errors, one class each for every type that watches an object's status.

::

    ResourceInError        the object went ERROR: ``Went to status ERROR due to "<reason>"``;
                           a create that fails so is deleted and made again, up to
                           ``action_retry_limit`` times (engine/worker/action_retries.py)
    ResourceUnknownStatus  a status the type does not expect:
                           ``<result> - Unknown status X due to "<reason>"``

The engine recognises a create's retryable failure by this class, so a type
raising its own look-alike would not be retried: import these.
"""

from __future__ import annotations

from hotplate.model.errors import HotplateError

__all__ = ["ResourceInError", "ResourceUnknownStatus"]


class ResourceInError(HotplateError):
    """Heat's ``ResourceInError``: the object settled in an error status."""

    def __init__(self, status: str, reason: str = "Unknown") -> None:
        super().__init__(f'Went to status {status} due to "{reason}"')


class ResourceUnknownStatus(HotplateError):
    """Heat's ``ResourceUnknownStatus``: the object settled in a status the type does
    not know what to make of."""

    def __init__(self, status: str, result: str = "Resource failed",
                 reason: str = "Unknown") -> None:
        super().__init__(f'{result} - Unknown status {status} due to "{reason}"')

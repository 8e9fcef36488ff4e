"""Wait conditions: a resource that completes when its handle has enough signals.

``OS::Heat::WaitCondition`` (``handle``, ``count``, ``timeout`` in seconds;
attribute ``data``) and ``AWS::CloudFormation::WaitCondition`` (``Handle``,
the handle's pre-signed URL, ``Count``, ``Timeout``; attribute ``Data``)
stay IN_PROGRESS until ``count`` SUCCESS signals have reached the handle
(wait_condition_handle.py). A FAILURE signal fails them
(``WaitConditionFailure: resources.<name>: <reasons>``), and so does the
timeout (``WaitConditionTimeout: resources.<name>: 0 of 1 received``); the
stack's own timeout still applies.

Waiting holds no thread: the action parks (engine/worker/parking.py) on the
stack's signals, which re-check it as soon as one is applied, and
otherwise on a back-off no longer than the time left. The start of the wait
is kept in the resource's data, so an action resumed by another engine
(its engine died) keeps its deadline.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar
from urllib.parse import unquote, urlparse

from hotplate.resources import wait_condition_data as wcd
from hotplate.resources.attributes import Attribute
from hotplate.resources.base import Resource
from hotplate.resources.constraints import Range
from hotplate.resources.properties import Schema
from hotplate.resources.signals import peers, signal_wake_key
from hotplate.resources.support import SupportStatus
from hotplate.resources.wait_condition_handle import (
    BaseWaitConditionHandle,
    CfnWaitConditionHandle,
)

__all__ = ["CfnWaitCondition", "HeatWaitCondition", "WaitConditionFailure",
           "WaitConditionTimeout"]

STARTED_AT = "wait_started_at"
"""Resource data: when the current wait began (ISO 8601)."""


class WaitConditionFailure(Exception):
    """A FAILURE signal reached the handle; the reasons joined by ``;`` (Heat's)."""


class WaitConditionTimeout(Exception):
    """Not enough signals in time: ``<n> of <count> received`` (Heat's)."""


Wait = tuple[datetime, float]
"""When the wait began, and its timeout in seconds."""


class HeatWaitCondition(Resource):
    """Resource for handling signals received by WaitConditionHandle.

    Resource takes WaitConditionHandle and starts to create. Resource is in
    CREATE_IN_PROGRESS status until WaitConditionHandle doesn't receive
    sufficient number of successful signals (this number can be specified with
    count property) and successfully creates after that, or fails due to
    timeout.
    """

    HANDLE: ClassVar[str] = "handle"
    TIMEOUT: ClassVar[str] = "timeout"
    COUNT: ClassVar[str] = "count"
    DATA: ClassVar[str] = "data"

    support_status = SupportStatus(version="2014.2")
    refreshed_by_signals: ClassVar[bool] = True
    """Its ``data`` reads the handle's signals: stored values go stale on a signal."""
    properties_schema = {
        "handle": Schema(Schema.STRING, "A reference to the wait condition handle used to "
                         "signal this wait condition.", required=True),
        "timeout": Schema(Schema.NUMBER, "The number of seconds to wait for the correct "
                          "number of signals to arrive.", required=True,
                          constraints=[Range(1, 43200)]),
        "count": Schema(Schema.INTEGER, "The number of success signals that must be "
                        "received before the stack creation process continues.",
                        constraints=[Range(min=1)], default=1, update_allowed=True),
    }
    attributes_schema = {
        "data": Attribute("JSON string containing data associated with wait condition "
                          "signals sent to the handle.", type=Attribute.STRING),
    }

    # -- the handle ------------------------------------------------------------------
    def _handle(self) -> BaseWaitConditionHandle | None:
        found = peers(self).resource_by_reference(str(self.properties[self.HANDLE]))
        return found if isinstance(found, BaseWaitConditionHandle) else None

    def _valid_handle(self) -> BaseWaitConditionHandle:
        """The handle, checked as Heat checks it.

        Raises:
            ValueError: the reference is not a wait condition handle.
        """
        found = peers(self).resource_by_reference(str(self.properties[self.HANDLE]))
        if isinstance(found, BaseWaitConditionHandle):
            return found
        name = found.name if found is not None else self.properties[self.HANDLE]
        raise ValueError(f"{name} is not a valid wait condition handle.")

    # -- the wait --------------------------------------------------------------------
    def _start(self) -> Wait:
        """When the wait began: now, unless this is a retry of a wait already begun."""
        stored = self.data().get(STARTED_AT)
        if self.attempt.retry and stored:
            started = datetime.fromisoformat(stored)
        else:
            started = self.ctx.clock.now()
            self.data_set(STARTED_AT, started.isoformat())
        return started, float(self.properties[self.TIMEOUT])

    def _check(self, wait: Wait) -> bool:
        started, timeout = wait
        handle = self._valid_handle()
        keys = handle.keys
        metadata = handle.signal_metadata()
        count = int(self.properties[self.COUNT])
        state = wcd.wait_state(keys, metadata, count, started, timeout, self.ctx.clock.now())
        if state is wcd.Waiting.TIMED_OUT:
            raise WaitConditionTimeout(wcd.timeout_text(keys, metadata, count))
        if state is wcd.Waiting.FAILED:
            raise WaitConditionFailure(wcd.failure_text(keys, metadata))
        return state is wcd.Waiting.SUCCEEDED

    def handle_create(self) -> Wait:
        self._valid_handle()
        return self._start()

    def check_create_complete(self, data: Wait) -> bool:
        return self._check(data)

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Wait:
        self.properties = dict(new_properties)
        return self._start()

    def check_update_complete(self, data: Wait) -> bool:
        return self._check(data)

    def handle_delete(self) -> None:
        handle = self._handle()
        if handle is not None:
            handle.clear_signals()

    def wake_key(self) -> str | None:
        return signal_wake_key(self.ctx.stack_id)

    def next_check_after(self, data: Any) -> float | None:
        """The time left before the timeout: the back-off never sleeps past it."""
        if not isinstance(data, tuple):
            return None
        started, timeout = data
        left = timeout - (self.ctx.clock.now() - started).total_seconds()
        return max(left, 0.0) + 0.05

    def _resolve_attribute(self, name: str) -> Any:
        handle = self._handle()
        if handle is None:
            return ""
        if name == self.DATA:
            return wcd.data_attribute(handle.keys, handle.signal_metadata())
        return None


class CfnWaitCondition(HeatWaitCondition):
    """AWS::CloudFormation::WaitCondition: its Handle is the handle's pre-signed URL."""

    heat_class_name = "WaitCondition"

    HANDLE = "Handle"
    TIMEOUT = "Timeout"
    COUNT = "Count"
    DATA = "Data"

    support_status = SupportStatus(version="2014.1")
    properties_schema = {
        "Handle": Schema(Schema.STRING, "A reference to the wait condition handle used to "
                         "signal this wait condition.", required=True),
        "Timeout": Schema(Schema.INTEGER, "The number of seconds to wait for the correct "
                          "number of signals to arrive.", required=True,
                          constraints=[Range(1, 43200)]),
        "Count": Schema(Schema.INTEGER, "The number of success signals that must be "
                        "received before the stack creation process continues.",
                        constraints=[Range(min=1)], default=1, update_allowed=True),
    }
    attributes_schema = {
        "Data": Attribute("JSON string containing data associated with wait condition "
                          "signals sent to the handle.", type=Attribute.STRING),
    }

    def handle_create(self) -> Wait:
        self._check_handle_url()
        return super().handle_create()

    def _check_handle_url(self) -> None:
        """Heat's checks of the Handle URL: this project, this stack, a CFN handle.

        A handle whose engine gave it no URL is referenced by name: nothing to check.

        Raises:
            ValueError: with Heat's text.
        """
        handle_url = str(self.properties[self.HANDLE])
        if "://" not in handle_url:
            return
        tenant, stack_name, stack_id, resource = handle_identity(handle_url)
        ctx = self.ctx
        if tenant != ctx.project_id:
            raise ValueError(f"WaitCondition invalid Handle tenant {tenant}")
        if stack_name != ctx.stack_name:
            raise ValueError(f"WaitCondition invalid Handle stack {stack_name}")
        if stack_id != ctx.stack_id:
            raise ValueError(f"WaitCondition invalid Handle stack {stack_id}")
        found = peers(self).resource_by_reference(resource)
        if not isinstance(found, CfnWaitConditionHandle):
            raise ValueError(f"WaitCondition invalid Handle {resource}")


ARN_PREFIX = re.compile(r"/arn%3Aopenstack%3Aheat%3A%3A", re.IGNORECASE)
RESOURCE_ARN = re.compile(
    r"arn:openstack:heat::(?P<tenant>[^:]+):stacks/(?P<stack_name>[^/]+)/"
    r"(?P<stack_id>[^/]+)/resources/(?P<resource>.+)$")


def handle_identity(url: str) -> tuple[str, str, str, str]:
    """(project, stack name, stack id, resource name) of a pre-signed handle URL.

    Raises:
        ValueError: not a URL, not an ARN URL, or not a resource's ARN (Heat's texts).
    """
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc or not parsed.path:
        raise ValueError(f'"{url}" is not a valid URL')
    match = ARN_PREFIX.search(parsed.path)
    if match is None:
        raise ValueError(f'"{url}" is not a valid ARN URL')
    arn = unquote(parsed.path[match.start() + 1:])
    found = RESOURCE_ARN.match(arn)
    if found is None:
        raise ValueError(f'"{arn}" is not a valid ARN')
    return (found["tenant"], unquote(found["stack_name"]), found["stack_id"],
            unquote(found["resource"]))

"""OS::Heat::TestResource: stores a string, with knobs to make actions slow, fail or replace.

Heat's functional and scenario tests drive the engine through this type,
so its knobs behave as in Heat:

- ``fail``: create/update finish by failing with ``Test Resource failed <name>``
  (a ValueError), after the wait; delete ignores it. A failing create stores
  no value and no physical id.
- ``wait_secs`` / ``action_wait_secs.{create,update,delete}``: the action
  completes only after that many seconds (-1: never). An update that does
  not change ``value`` does not wait.
- ``update_replace: true`` with a changed ``value``: replacement instead of an
  in-place update. ``update_replace_value`` does not allow update at all,
  so changing it always replaces.
- ``attr_wait_secs``: resolving ``output`` takes that long.

Waiting never blocks a thread: the handler returns when it started and
``check_*_complete`` compares with ``ctx.clock.now()``, answering
``CheckAgain`` with the time left, so the engine asks again just when the
wait is over rather than on its back-off. The one exception is
``attr_wait_secs``, which has no polling protocol to hook into, so it sleeps
through ``ctx.clock`` (a fake clock in tests just advances).

- ``constraint_prop_secs``: validating the properties takes that long (as
  Heat's ``test_constr`` custom constraint; capped at an hour), at the
  request's validation and again when the resource is created.

Not simulated: ``client_name``/``entity_name`` (while waiting, Heat asks an
OpenStack client for the entity and ignores the answer); accepted, no effect.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hotplate.model.errors import UpdateReplace
from hotplate.resources.attributes import Attribute
from hotplate.resources.base import CheckAgain, CheckResult, Resource
from hotplate.resources.properties import PropertyPath, Schema
from hotplate.resources.support import SupportStatus

__all__ = ["TestResource", "Waiting"]

(
    VALUE, UPDATE_REPLACE, FAIL, CLIENT_NAME, ENTITY_NAME, WAIT_SECS, ACTION_WAIT_SECS,
    ATTR_WAIT_SECS, CONSTRAINT_PROP_SECS, UPDATE_REPLACE_VALUE,
) = (
    "value", "update_replace", "fail", "client_name", "entity_name", "wait_secs",
    "action_wait_secs", "attr_wait_secs", "constraint_prop_secs", "update_replace_value",
)
CREATE, UPDATE, DELETE = "create", "update", "delete"
OUTPUT = "output"
MAX_CONSTRAINT_SECS = 3600.0


def _action_wait(action: str) -> Schema:
    return Schema(
        Schema.NUMBER,
        f"Seconds to wait after {'an' if action == UPDATE else 'a'} {action}. "
        "Defaults to the global wait_secs.",
        update_allowed=True,
    )


@dataclass(frozen=True, slots=True)
class Waiting:
    """Handler data: an action in progress, done ``seconds`` after ``started``."""

    action: str
    started: datetime
    seconds: float


class TestResource(Resource):
    """A resource which stores the string value that was provided.

    This resource is to be used only for testing.
    It has control knobs such as 'update_replace', 'fail', 'wait_secs'.
    """

    __test__ = False  # not a pytest test class, despite the name

    support_status = SupportStatus(version="5.0.0")

    properties_schema = {
        CONSTRAINT_PROP_SECS: Schema(
            Schema.NUMBER,
            "Number value for delay during resolve constraint.",
            default=0,
            update_allowed=True,
            support_status=SupportStatus(version="6.0.0"),
        ),
        ATTR_WAIT_SECS: Schema(
            Schema.NUMBER,
            "Number value for timeout during resolving output value.",
            default=0,
            update_allowed=True,
            support_status=SupportStatus(version="6.0.0"),
        ),
        VALUE: Schema(
            Schema.STRING,
            "The input string to be stored.",
            default="test_string",
            update_allowed=True,
        ),
        UPDATE_REPLACE_VALUE: Schema(
            Schema.STRING,
            "Some value that can be stored but can not be updated.",
            support_status=SupportStatus(version="7.0.0"),
        ),
        FAIL: Schema(
            Schema.BOOLEAN,
            "Value which can be set to fail the resource operation to test failure "
            "scenarios.",
            update_allowed=True,
            default=False,
        ),
        UPDATE_REPLACE: Schema(
            Schema.BOOLEAN,
            "Value which can be set to trigger update replace for the particular resource.",
            update_allowed=True,
            default=False,
        ),
        WAIT_SECS: Schema(
            Schema.NUMBER,
            "Seconds to wait after an action (-1 is infinite).",
            update_allowed=True,
            default=0,
        ),
        ACTION_WAIT_SECS: Schema(
            Schema.MAP,
            "Options for simulating waiting.",
            update_allowed=True,
            schema={action: _action_wait(action) for action in (CREATE, UPDATE, DELETE)},
        ),
        CLIENT_NAME: Schema(
            Schema.STRING, "Client to poll.", default="", update_allowed=True
        ),
        ENTITY_NAME: Schema(
            Schema.STRING, "Client entity to poll.", default="", update_allowed=True
        ),
    }

    attributes_schema = {
        OUTPUT: Attribute(
            "The string that was stored. This value is also available by referencing "
            "the resource."
        ),
    }

    @classmethod
    def validate(cls, raw: Mapping[str, Any] | None, path: PropertyPath) -> dict[str, Any]:
        """As Heat's ``test_constr`` custom constraint: validating takes
        ``constraint_prop_secs`` seconds (it simulates a slow lookup)."""
        props = super().validate(raw, path)
        delay = props.get(CONSTRAINT_PROP_SECS) or 0
        if delay > 0:
            time.sleep(min(float(delay), MAX_CONSTRAINT_SECS))
        return props

    @classmethod
    def needs_replace_with_prop_diff(
        cls, changed: frozenset[str], new: Mapping[str, Any], old: Mapping[str, Any]
    ) -> bool:
        """A new ``value`` replaces instead of updating when ``update_replace`` is set."""
        return VALUE in changed and bool(new.get(UPDATE_REPLACE))

    # -- handlers -----------------------------------------------------------------
    def handle_create(self) -> Waiting:
        self._record(CREATE)
        if not self.properties[FAIL]:
            self.data_set("value", self.properties[VALUE])
            self.resource_id_set(self.physical_resource_name())
        return self._start(CREATE)

    def check_create_complete(self, data: Waiting) -> CheckResult:
        return self._done(data)

    def handle_check(self) -> None:
        """A resource whose create failed has nothing to check (Heat's text)."""
        if not self.resource_id:
            raise Exception("Resource not created")

    def handle_update(self, new_properties: Mapping[str, Any], prop_diff: Mapping[str, Any]
                      ) -> Waiting:
        # Also checked here, not only in needs_replace_with_prop_diff, so an
        # engine that reaches handle_update anyway still gets the replacement.
        if self.needs_replace_with_prop_diff(frozenset(prop_diff), new_properties,
                                             self.properties):
            raise UpdateReplace(self.name)
        super().handle_update(new_properties, prop_diff)
        value = prop_diff.get(VALUE)
        if not value:
            return Waiting(UPDATE, self.ctx.clock.now(), 0)
        if not self.properties[FAIL]:
            self.data_set("value", value)
        return self._start(UPDATE)

    def check_update_complete(self, data: Waiting) -> CheckResult:
        return self._done(data)

    def handle_delete(self) -> Waiting:
        return self._start(DELETE)

    def check_delete_complete(self, data: Waiting) -> CheckResult:
        return self._done(data)

    def resume_data(self, action: str) -> Waiting:
        """Taken over mid-wait: wait the whole time again (what the first try's
        engine had counted died with it)."""
        return self._start(action)

    def _record(self, action: str) -> None:
        """Each create is written down with its token (resource_attempt), so a test
        can tell one create retried from two things made."""
        record = getattr(self.ctx, "record_attempt", None)
        if self.attempt.token and callable(record):
            record(action.upper(), self.attempt)

    # -- waiting ------------------------------------------------------------------
    def _start(self, action: str) -> Waiting:
        return Waiting(action, self.ctx.clock.now(), self._wait_secs(action))

    def _wait_secs(self, action: str) -> float:
        per_action = self.properties[ACTION_WAIT_SECS] or {}
        secs = per_action.get(action)
        return float(self.properties[WAIT_SECS] if secs is None else secs)

    def _done(self, waiting: Waiting) -> CheckResult:
        """Finished once the wait is over; then a ``fail`` create or update fails."""
        if waiting.seconds < 0:
            return CheckAgain(after=math.inf)  # never: until a cancel or the deadline
        waited = (self.ctx.clock.now() - waiting.started).total_seconds()
        if waited < waiting.seconds:
            return CheckAgain(after=waiting.seconds - waited)
        if self.properties[FAIL] and waiting.action != DELETE:
            raise ValueError(f"Test Resource failed {self.name}")
        return True

    # -- attributes ---------------------------------------------------------------
    def _resolve_attribute(self, name: str) -> Any:
        delay = self.properties.get(ATTR_WAIT_SECS) or 0
        if delay > 0:
            self.ctx.clock.sleep(delay)
        if name == OUTPUT:
            return self.data().get("value")
        return None

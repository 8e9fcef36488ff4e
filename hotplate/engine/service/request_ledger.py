"""Engine-topic writes done once per request id, answered alike however often asked.

The engine topic is served through ``RepeatSafe``: a write whose context
carries a request id (rpc/requests.py) first claims that id in the request
ledger (db/requests.py), runs, and stores its answer; the same id asked
again, on any engine, at any time within ``request_retention``, gets that
answer and changes nothing::

    claim          ->  won: run the method, store its answer (the result, or the
                       error it raised for its caller); an unexpected error
                       (the database went away) releases the claim instead,
                       so that the request may be asked again
                   ->  lost, same fingerprint:
                         answered      -> that answer (a result, or the error again)
                         running       -> wait up to WAIT seconds for its answer;
                                          its engine taken for dead (engine/lease.py:
                                          fenced before that) -> take the claim over
                                          and run the method again
                                          still running -> RequestInProgress (409)
                   ->  lost, another fingerprint -> RequestIdReused (422)

Running a request again after its engine died is safe because what a write
makes is found again by its request id: a stack created with a request id
has the id ``request_uuid(ctxt, "stack")`` (so is software configs' and
deployments' ids), and the second run answers with what the first made. An
update or a delete writes its action's first event under an id derived from
the request id and the stack (``start_mark``), in the transaction that
starts the action: the second run that finds that event answers what the
first answered (the stack's identity; nothing) without acting again, even
when the action has finished or been followed by others since. The other
writes act on a stack by its state, as Heat's do.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.model.errors import RequestIdReused, RequestInProgress
from hotplate.model.ids import StackId
from hotplate.model.requests import RequestState, StoredRequest
from hotplate.rpc import codec
from hotplate.rpc.dispatch import EXPECTED_ERRORS
from hotplate.rpc.requests import WRITES, fingerprint, request_id_of, request_uuid

LOG = logging.getLogger(__name__)

WAIT = 3.0
"""Seconds a second asking waits for the first one's answer before it answers
RequestInProgress: less than the API's first try (api/rpc.py), which then asks again."""
POLL = 0.2
"""Seconds between looks at a request that is still running."""


class RepeatSafe:
    """``service`` with its writes kept by request id (see the module docstring).

    Reads, and writes without a request id, go straight through.
    """

    def __init__(self, service: Any, deps: EngineDeps, *, wait: float = WAIT) -> None:
        self._service = service
        self._deps = deps
        self._wait = wait
        self._running: set[str] = set()
        self._unsettled: dict[str, Any] = {}
        """Claims whose answer (None: release) could not be written yet."""
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._service, name)
        if name not in WRITES or not callable(method):
            return method
        return functools.partial(self._once, name, method)

    def _once(self, name: str, method: Callable[..., Any], ctxt: Mapping[str, Any], /,
              **kwargs: Any) -> Any:
        request_id = request_id_of(ctxt)
        if request_id is None:
            return method(ctxt, **kwargs)
        self._settle()
        mark = fingerprint(name, ctxt, kwargs)
        me = self._deps.engine_id
        deadline = time.monotonic() + self._wait
        found = self._deps.store.claim_request(request_id, name, mark, me)
        while True:
            if found is None:
                return self._run(request_id, method, ctxt, kwargs)
            if found.fingerprint != mark:
                raise RequestIdReused(request_id)
            if found.state is RequestState.ANSWERED:
                LOG.info("%s %s: asked again; answered as the first time", name, request_id)
                return _replay(found.answer)
            if self._ours_orphaned(found) or self._taken_from_dead(found):
                return self._run(request_id, method, ctxt, kwargs)
            if time.monotonic() >= deadline:
                raise RequestInProgress(request_id)
            self._deps.clock.sleep(POLL)
            found = self._deps.store.get_request(request_id)
            if found is None:  # released: its first asking failed, and may be asked again
                found = self._deps.store.claim_request(request_id, name, mark, me)

    def _ours_orphaned(self, found: StoredRequest) -> bool:
        """Our own claim that no thread of ours runs: its insert was committed but went
        unanswered and the store ran it again, or its release could not be written."""
        if found.engine_id != self._deps.engine_id:
            return False
        with self._lock:
            if found.request_id in self._running:
                return False
            self._unsettled.pop(found.request_id, None)
            return True

    def _taken_from_dead(self, found: StoredRequest) -> bool:
        owner = found.engine_id
        if owner == self._deps.engine_id or self._deps.is_engine_alive(owner):
            return False
        if not self._deps.store.take_over_request(found.request_id, owner,
                                                  self._deps.engine_id):
            return False
        LOG.warning("%s %s: engine %s died before answering; running it again",
                    found.method, found.request_id, owner)
        return True

    def _run(self, request_id: str, method: Callable[..., Any], ctxt: Mapping[str, Any],
             kwargs: dict[str, Any]) -> Any:
        with self._lock:
            self._running.add(request_id)
        try:
            try:
                result = method(ctxt, **kwargs)
                codec.check_json(result, "result")
            except EXPECTED_ERRORS as exc:  # the caller's error: the answer, kept
                self._answer(request_id, {"failure": codec.failure_of(exc)})
                raise
            except Exception:  # may have been cut short: let it be asked again
                self._answer(request_id, None)
                raise
            self._answer(request_id, {"result": result})
            return result
        finally:
            with self._lock:
                self._running.discard(request_id)

    def _answer(self, request_id: str, answer: Any) -> None:
        """Store ``answer`` (None: release the claim); kept for later if the store fails."""
        store, me = self._deps.store, self._deps.engine_id
        try:
            if answer is None:
                store.release_request(request_id, me)
            else:
                store.answer_request(request_id, me, answer)
        except Exception as exc:
            LOG.warning("request %s: could not store its answer (%s); later", request_id, exc)
            with self._lock:
                self._unsettled[request_id] = answer

    def _settle(self) -> None:
        """Store the answers that could not be stored before (the database was away)."""
        with self._lock:
            pending, self._unsettled = self._unsettled, {}
        for request_id, answer in pending.items():
            self._answer(request_id, answer)


def _replay(answer: Any) -> Any:
    """What the first asking answered: its result, or the error it raised, again."""
    if isinstance(answer, Mapping) and "failure" in answer:
        raise codec.error_from(answer["failure"])
    return answer.get("result") if isinstance(answer, Mapping) else None


def start_mark(ctxt: Mapping[str, Any], stack_id: StackId) -> str | None:
    """The uuid of the first event of the action this request starts on ``stack_id``
    (None without a request id): the same each time the request is asked. The stack is
    part of it, since the engine's own calls for nested stacks may carry the request's
    context."""
    return request_uuid(ctxt, f"start\n{stack_id}")


def started_before(deps: EngineDeps, ctxt: Mapping[str, Any], stack_id: StackId) -> bool:
    """Whether an earlier asking of this request started its action on ``stack_id``."""
    mark = start_mark(ctxt, stack_id)
    if mark is None:
        return False
    return bool(deps.store.list_events(stack_id, filters={"uuid": mark}, limit=1))

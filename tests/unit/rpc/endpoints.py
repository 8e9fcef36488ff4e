"""A test endpoint that records what reached it and can fail in every way."""

from __future__ import annotations

import threading
from typing import Any

from hotplate.model.errors import EntityNotFound, StackValidationFailed


class Recorder:
    ALLOWED = frozenset({
        "echo", "note", "not_found", "invalid", "boom", "bad_result", "block",
        "_secret", "data", "missing",
    })

    data = 5  # allowlisted but not callable

    def __init__(self, name: str) -> None:
        self.name = name
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self.release = threading.Event()
        self._lock = threading.Lock()

    def _record(self, method: str, kwargs: dict[str, Any]) -> None:
        with self._lock:
            self.seen.append((method, kwargs))

    def methods(self) -> list[str]:
        return [method for method, _ in self.seen]

    def echo(self, ctxt: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        self._record("echo", kwargs)
        return {"server": self.name, "ctxt": ctxt, "kwargs": kwargs,
                "thread": threading.current_thread().name}

    def note(self, ctxt: dict[str, Any], **kwargs: Any) -> None:
        self._record("note", kwargs)

    def not_found(self, ctxt: dict[str, Any], name: str) -> None:
        raise EntityNotFound("Stack", name)

    def invalid(self, ctxt: dict[str, Any]) -> None:
        raise StackValidationFailed("unknown type", path=("resources", "web", "type"))

    def boom(self, ctxt: dict[str, Any]) -> None:
        self._record("boom", {})
        raise ValueError("boom")

    def bad_result(self, ctxt: dict[str, Any]) -> object:
        return {"when": {1, 2}}

    def block(self, ctxt: dict[str, Any], seconds: float = 5.0) -> str:
        self._record("block", {})
        self.release.wait(seconds)
        return "unblocked"

    def hidden(self, ctxt: dict[str, Any]) -> None:
        self._record("hidden", {})

    def _secret(self, ctxt: dict[str, Any]) -> None:
        self._record("_secret", {})

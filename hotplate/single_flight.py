"""A bounded cache whose missing key is loaded once, however many threads ask at once.

Shared by the engine's caches (a traversal's first nodes all start together and
would each parse the same graph) and the client layer's finder cache (a group's
hundred members would each ask Glance for the same image). Imports nothing of
ours, so every layer may use it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from typing import Generic, TypeVar

__all__ = ["LruCache"]

K = TypeVar("K")
V = TypeVar("V")


class LruCache(Generic[K, V]):
    """At most ``size`` values, least recently used dropped first; with ``ttl``, a
    value older than ``ttl`` seconds of ``clock`` is treated as missing (and loaded
    again)."""

    def __init__(self, size: int, ttl: float | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        if ttl is not None and clock is None:
            raise ValueError("an expiring cache needs a clock")
        self._size = size
        self._ttl = ttl
        self._clock: Callable[[], float] = clock or (lambda: 0.0)
        self._data: OrderedDict[K, tuple[V, float]] = OrderedDict()
        self._lock = threading.Lock()
        self._loading: dict[K, Future[V]] = {}

    def get_or_load(self, key: K, load: Callable[[], V]) -> V:
        """The cached value, else ``load()``'s, run by one caller at a time per key;
        a failure is raised and not kept, and a caller that waited on it loads for itself.

        A hit on a cache without ``ttl`` takes no lock: the engine asks its caches
        several times per resource, and each of the two dictionary calls is one
        step for the interpreter (the keys are strings, numbers and tuples of them,
        hashed without running Python code). A value evicted between them is still
        the right value."""
        if self._ttl is None:
            kept = self._data.get(key)
            if kept is not None:
                try:
                    self._data.move_to_end(key)
                except KeyError:  # evicted meanwhile
                    return kept[0]
                return kept[0]
        while True:
            with self._lock:
                value = self._fresh(key)
                if value is not None:
                    return value[0]
                loading = self._loading.get(key)
                if loading is None:
                    mine: Future[V] = Future()
                    self._loading[key] = mine
                    break
            try:
                return loading.result()
            except Exception:
                continue
        try:
            loaded = load()
        except BaseException as exc:
            with self._lock:
                del self._loading[key]
            mine.set_exception(exc)
            raise
        with self._lock:
            del self._loading[key]
            self._keep(key, loaded)
        mine.set_result(loaded)
        return loaded

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._keep(key, value)

    def discard_where(self, predicate: Callable[[K], bool]) -> None:
        with self._lock:
            for key in [k for k in self._data if predicate(k)]:
                del self._data[key]

    def keys(self) -> list[K]:
        """The keys kept now (expired ones included until next looked up)."""
        with self._lock:
            return list(self._data)

    def peek(self, key: K) -> V | None:
        with self._lock:
            value = self._fresh(key)
            return None if value is None else value[0]

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def _fresh(self, key: K) -> tuple[V] | None:
        """The value kept for ``key`` (marked recently used), if it has not expired."""
        kept = self._data.get(key)
        if kept is None:
            return None
        if self._ttl is not None and kept[1] <= self._clock():
            del self._data[key]
            return None
        self._data.move_to_end(key)
        return (kept[0],)

    def _keep(self, key: K, value: V) -> None:
        expires = self._clock() + self._ttl if self._ttl is not None else 0.0
        self._data[key] = (value, expires)
        self._data.move_to_end(key)
        while len(self._data) > self._size:
            self._data.popitem(last=False)

"""LruCache: a key missing from the cache is loaded once, however many ask at once."""

from __future__ import annotations

import threading
import time

from hotplate.engine.cache import LruCache

THREADS = 8


def test_concurrent_misses_load_once_and_all_get_the_value() -> None:
    cache: LruCache[str, int] = LruCache(4)
    loads: list[int] = []
    start = threading.Barrier(THREADS)
    got: list[int] = []

    def load() -> int:
        loads.append(1)
        time.sleep(0.05)  # long enough for every other thread to miss meanwhile
        return 42

    def ask() -> None:
        start.wait()
        got.append(cache.get_or_load("t", load))

    threads = [threading.Thread(target=ask) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert loads == [1] and got == [42] * THREADS
    assert cache.get_or_load("t", lambda: 0) == 42


def test_a_failed_load_is_raised_to_its_caller_and_a_waiter_loads_again() -> None:
    cache: LruCache[str, int] = LruCache(4)
    entered, release = threading.Event(), threading.Event()

    def failing() -> int:
        entered.set()
        release.wait(5)
        raise RuntimeError("store away")

    errors: list[BaseException] = []

    def first() -> None:
        try:
            cache.get_or_load("t", failing)
        except RuntimeError as exc:
            errors.append(exc)

    loader = threading.Thread(target=first)
    loader.start()
    assert entered.wait(5)
    got: list[int] = []
    waiter = threading.Thread(target=lambda: got.append(cache.get_or_load("t", lambda: 7)))
    waiter.start()
    time.sleep(0.05)
    release.set()
    loader.join()
    waiter.join()
    assert [str(e) for e in errors] == ["store away"] and got == [7]
    assert cache.peek("t") == 7

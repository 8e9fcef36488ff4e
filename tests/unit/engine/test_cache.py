"""LruCache: a key missing from the cache is loaded once, however many ask at once."""

from __future__ import annotations

import threading
import time

from hotplate.engine.cache import EngineCaches
from hotplate.model.ids import StackId, TemplateId, TraversalId
from hotplate.single_flight import LruCache
from hotplate.template import Template, parse_template

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


class _Deps:
    """A stored graph (what ``get_stack_deps`` reads), counting its reads."""

    def __init__(self, traversal: str, data: dict[str, object] | None) -> None:
        self.traversal, self.data, self.reads = traversal, data, 0

    def get_stack_deps(self, stack_id: object) -> tuple[str, object] | None:
        self.reads += 1
        time.sleep(0.05)  # every other worker misses meanwhile
        return self.traversal, self.data


def _ask_together(caches: EngineCaches, traversal: str) -> list[int]:
    start = threading.Barrier(THREADS)
    sizes: list[int] = []

    def ask() -> None:
        start.wait()
        sizes.append(len(caches.graph(StackId("s"), TraversalId(traversal)).graph.nodes))

    threads = [threading.Thread(target=ask) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sizes


def test_a_traversal_graph_is_read_once_by_workers_missing_it_together() -> None:
    stored = _Deps("t1", {"edges": [[[1, True], None], [[2, True], [1, True]]]})
    caches = EngineCaches(stored)  # type: ignore[arg-type]
    assert _ask_together(caches, "t1") == [2] * THREADS
    assert stored.reads == 1


def test_a_graph_not_stored_is_empty_and_not_cached() -> None:
    stored = _Deps("t2", {"edges": [[[1, True], None]]})  # a newer traversal's
    caches = EngineCaches(stored)  # type: ignore[arg-type]
    assert _ask_together(caches, "t1") == [0] * THREADS
    before = stored.reads
    assert len(caches.graph(StackId("s"), TraversalId("t2")).graph.nodes) == 1
    assert stored.reads == before + 1


class _NoStacks:
    def get_stack(self, stack_id: object, include_deleted: bool = False) -> None:
        return None


def _with_default(value: str) -> Template:
    return parse_template({"heat_template_version": "2021-04-16",
                           "parameters": {"p": {"type": "string", "default": value}}})


def test_a_template_id_given_again_drops_what_was_derived_from_the_old_one() -> None:
    caches = EngineCaches(_NoStacks())  # type: ignore[arg-type]
    caches.remember_template(TemplateId(1), _with_default("old"), {}, {})
    assert caches.parameters(TemplateId(1), StackId("s"), {})["p"] == "old"
    caches.remember_template(TemplateId(1), _with_default("new"), {}, {})  # an id used again
    assert caches.parameters(TemplateId(1), StackId("s"), {})["p"] == "new"


def test_the_notes_of_derived_templates_stay_bounded() -> None:
    caches = EngineCaches(_NoStacks(), size=2)  # type: ignore[arg-type]
    for number in range(1, 50):
        caches.remember_template(TemplateId(number), _with_default(str(number)), {}, {})
        assert caches.parameters(TemplateId(number), StackId("s"), {})["p"] == str(number)
    assert len(caches._derived_from) <= 4 * 2 + 1
    caches.remember_template(TemplateId(49), _with_default("again"), {}, {})
    assert caches.parameters(TemplateId(49), StackId("s"), {})["p"] == "again"


def test_a_hit_marks_its_value_recently_used() -> None:
    cache: LruCache[str, int] = LruCache(2)
    cache.get_or_load("a", lambda: 1)
    cache.get_or_load("b", lambda: 2)
    assert cache.get_or_load("a", lambda: 0) == 1  # a hit: "b" is now the oldest
    cache.get_or_load("c", lambda: 3)
    assert cache.keys() == ["a", "c"]
    assert cache.get_or_load("b", lambda: 20) == 20  # dropped, so loaded again

"""The engine's finder cache: what it keeps, for how long, for whom, and that callers
asking one name at once wait for one lookup (the lookups here are plain functions
counting their calls; tests/cloud/test_clients_finders.py runs it against the cloud)."""

from __future__ import annotations

import threading
import time

import pytest

from hotplate.cloud.errors import CloudNotFound
from hotplate.cloud.finder_cache import FinderCache


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Lookup:
    """A finder that answers ``answer`` and counts how often it was asked."""

    def __init__(self, answer: str = "id-1", delay: float = 0.0) -> None:
        self.answer, self.delay, self.asked = answer, delay, 0
        self._lock = threading.Lock()

    def __call__(self) -> str:
        with self._lock:
            self.asked += 1
        time.sleep(self.delay)
        return self.answer


def test_a_kept_id_is_answered_until_it_expires() -> None:
    clock = Clock()
    cache, find = FinderCache(ttl=60, clock=clock), Lookup()
    assert cache.lookup("p@R", "image", "cirros", find) == "id-1"
    clock.now = 59.9
    assert cache.lookup("p@R", "image", "cirros", find) == "id-1"
    assert find.asked == 1
    clock.now = 60.0
    assert cache.lookup("p@R", "image", "cirros", find) == "id-1"
    assert find.asked == 2


def test_each_project_region_kind_and_name_is_its_own_entry() -> None:
    cache, find = FinderCache(ttl=60), Lookup()
    for scope, kind, value in [
        ("p@R", "image", "a"),
        ("q@R", "image", "a"),
        ("p@S", "image", "a"),
        ("p@R", "flavor", "a"),
        ("p@R", "image", "b"),
        ("p@R", "image", "a"),
    ]:
        cache.lookup(scope, kind, value, find)
    assert find.asked == 5


@pytest.mark.parametrize(
    ("ttl", "scope", "kind"),
    [
        (None, "p@R", "image"),  # [cache] off: Heat's default
        (60, None, "image"),  # no project: the standalone mode
        (60, "p@R", "volume"),  # a kind Heat does not memoise
        (60, "p@R", "keypair"),
    ],
)
def test_what_is_never_kept(ttl: float | None, scope: str | None, kind: str) -> None:
    cache, find = FinderCache(ttl=ttl), Lookup()
    cache.lookup(scope, kind, "x", find)
    cache.lookup(scope, kind, "x", find)
    assert find.asked == 2


def test_a_miss_is_not_kept() -> None:
    cache, asked = FinderCache(ttl=60), []

    def missing() -> str:
        asked.append(1)
        raise CloudNotFound("No images matching {'name': 'x'}.")

    for _ in range(2):
        with pytest.raises(CloudNotFound):
            cache.lookup("p@R", "image", "x", missing)
    assert len(asked) == 2
    assert cache.lookup("p@R", "image", "x", Lookup("made-since")) == "made-since"


def test_callers_asking_at_once_wait_for_one_lookup() -> None:
    cache, find = FinderCache(ttl=60), Lookup(delay=0.2)
    found: list[str] = []
    threads = [
        threading.Thread(
            target=lambda: found.append(cache.lookup("p@R", "flavor", "m1.tiny", find))
        )
        for _ in range(20)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found == ["id-1"] * 20 and find.asked == 1


def test_when_the_first_lookup_fails_the_waiting_callers_ask_themselves() -> None:
    cache, started, asked = FinderCache(ttl=60), threading.Event(), []

    def flaky() -> str:
        asked.append(1)
        if len(asked) == 1:
            started.set()
            time.sleep(0.2)
            raise CloudNotFound("not yet")
        return "id-2"

    first_failed: list[BaseException] = []

    def first() -> None:
        try:
            cache.lookup("p@R", "port", "x", flaky)
        except CloudNotFound as exc:
            first_failed.append(exc)

    leader = threading.Thread(target=first)
    leader.start()
    started.wait()
    assert cache.lookup("p@R", "port", "x", flaky) == "id-2"
    leader.join()
    assert len(first_failed) == 1 and len(asked) == 2


def test_an_object_made_here_is_found_as_itself_without_asking() -> None:
    cache, find = FinderCache(ttl=60), Lookup("asked")
    cache.remember("p@R", "port", "made-id")
    assert cache.lookup("p@R", "port", "made-id", find) == "made-id"
    assert cache.lookup("q@R", "port", "made-id", find) == "asked"  # another project asks
    assert find.asked == 1
    off, volume = FinderCache(), FinderCache(ttl=60)
    off.remember("p@R", "port", "made-id")
    volume.remember("p@R", "volume", "made-id")
    assert off.lookup("p@R", "port", "made-id", find) == "asked"
    assert volume.lookup("p@R", "volume", "made-id", find) == "asked"
    assert find.asked == 3

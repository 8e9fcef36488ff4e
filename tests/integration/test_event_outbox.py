"""The event sinks' outbox on every backend: claims, group order, retries."""

from __future__ import annotations

import threading
from datetime import timedelta

from sqlalchemy import Engine

from hotplate.db.outbox import OutboxStore
from hotplate.db.store import SqlStore
from tests.integration.helpers import FakeClock


def rows(stack: str, key: str, count: int, start: int = 0) -> list[dict[str, object]]:
    return [{"stack_id": stack, "event_uuid": f"{stack}-{key}-{i}", "sink_key": key,
             "sink": {"type": "webhook", "url": "http://x/"}, "body": {"id": f"e{i}"}}
            for i in range(start, start + count)]


def outbox_of(store: SqlStore, clock: FakeClock) -> OutboxStore:
    return OutboxStore(store.engine, clock)


def test_rows_are_claimed_once_oldest_first(store: SqlStore, clock: FakeClock) -> None:
    outbox = outbox_of(store, clock)
    outbox.add(rows("s1", "k", 3) + rows("s2", "k", 2))
    lease = clock.now() + timedelta(seconds=60)
    first = outbox.claim("engine-a", lease, 4)
    second = outbox.claim("engine-b", lease, 4)
    assert [r.event_uuid for r in first] == ["s1-k-0", "s1-k-1", "s1-k-2", "s2-k-0"]
    assert [r.event_uuid for r in second] == ["s2-k-1"]
    assert first[0].body == {"id": "e0"} and first[0].sink["type"] == "webhook"
    assert outbox.claim("engine-c", lease, 4) == []


def test_a_lapsed_claim_is_claimed_again(store: SqlStore, clock: FakeClock) -> None:
    outbox = outbox_of(store, clock)
    outbox.add(rows("s", "k", 1))
    assert outbox.claim("dead", clock.now() + timedelta(seconds=5), 10)
    clock.sleep(6)
    again = outbox.claim("live", clock.now() + timedelta(seconds=5), 10)
    assert [r.event_uuid for r in again] == ["s-k-0"]
    outbox.delivered(again[0].id, "dead")  # the lapsed holder can no longer settle it
    assert len(outbox.pending()) == 1
    outbox.delivered(again[0].id, "live")
    assert outbox.pending() == []


def test_a_failed_row_waits_and_holds_its_group_back(store: SqlStore, clock: FakeClock) -> None:
    outbox = outbox_of(store, clock)
    outbox.add(rows("s", "k", 2) + rows("s", "other", 1))
    claimed = outbox.claim("a", clock.now() + timedelta(seconds=60), 10)
    head = claimed[0]
    outbox.retry_at(head.id, "a", clock.now() + timedelta(seconds=30), "503")
    outbox.release([claimed[1].id], "a")
    outbox.delivered(claimed[2].id, "a")
    assert outbox.first_ids([("s", "k"), ("s", "other")]) == {("s", "k"): head.id}
    later = outbox.claim("b", clock.now() + timedelta(seconds=60), 10)
    assert [r.event_uuid for r in later] == ["s-k-1"]  # due, but not first of its group
    outbox.release([later[0].id], "b")
    clock.sleep(31)
    retried = outbox.claim("c", clock.now() + timedelta(seconds=60), 10)
    assert [(r.event_uuid, r.attempts, r.last_error) for r in retried] == [
        ("s-k-0", 1, "503"), ("s-k-1", 0, None)]


def test_racing_claimers_never_share_a_row(store: SqlStore, clock: FakeClock,
                                          db_engine: Engine) -> None:
    OutboxStore(db_engine, clock).add(rows("s", "k", 60))
    taken: dict[str, list[int]] = {}
    start = threading.Barrier(4)

    def claimer(name: str) -> None:
        mine = OutboxStore(db_engine, clock)
        start.wait()
        got: list[int] = []
        for _ in range(10):
            got += [r.id for r in mine.claim(name, clock.now() + timedelta(seconds=60), 5)]
        taken[name] = got

    threads = [threading.Thread(target=claimer, args=(f"e{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # A claim skips rows another claimer has locked, so under load ten rounds each may
    # leave a few unclaimed: a last claimer takes them. No row may be taken twice.
    rest = [r.id for r in OutboxStore(db_engine, clock).claim(
        "last", clock.now() + timedelta(seconds=60), 60)]
    every = [row for got in taken.values() for row in got] + rest
    assert len(every) == len(set(every)) == 60
    assert sum(len(got) for got in taken.values()) >= 20  # the racers did take rows

"""One list call per tick, per service: how Nova, Cinder and Neutron answer a batch of waits.

::

    service          changes since the watermark               exact (delete waits)
    ---------------  ----------------------------------------  ---------------------------
    Nova servers     GET /servers/detail?changes-since=T        deleted servers are listed
                     (deleted ones included, status DELETED)    (DELETED): no extra call
    Cinder volumes   GET /volumes/detail?updated_at=gte:T       GET /volumes (the project's
                     (microversion 3.60 on); else the project's ids): absent means gone
                     detailed list
    Neutron ports    GET /ports?changed_since=T (the            GET /ports?id=a&id=b...
                     standard-attr-timestamp extension); else   (chunked): absent is gone
                     GET /ports?id=...

With no watermark yet (a project's first tick), the newest object's change time
is asked first (one object, sorted by it; Cinder's by creation): the board
derives the watermark from the cloud's clock, never the engine's. Ids the
changes lists never showed are looked at one by one (``probe``: GET; 404 is
gone). Lists follow the services' pagination links.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlparse

from hotplate.resources.openstack.cinder.api import CinderApi
from hotplate.resources.openstack.cloud_errors import is_not_found
from hotplate.resources.openstack.neutron.api import NeutronApi
from hotplate.resources.openstack.nova.api import NovaApi
from hotplate.resources.openstack.status_listing import (
    MARGIN,
    Listing,
    ListPlan,
    changed_at,
    ids_of,
)

__all__ = ["CINDER_VOLUMES", "NEUTRON_PORTS", "NOVA_SERVERS", "CinderVolumes",
           "NeutronPorts", "NovaServers"]

CINDER_TIME_FILTERS = "3.60"
"""The volume microversion from which ``updated_at=gte:T`` filters a list."""
ID_CHUNK = 50
"""Ids per id-filtered list (``?id=...`` 50 times is about 2,300 characters)."""
MAX_PAGES = 50


def _stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _pages(get: Any, path: str, query: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    """Every page of a list (``<key>_links`` rel=next, or Neutron's ``<key>_links``)."""
    found: list[dict[str, Any]] = []
    params: list[tuple[str, Any]] = list(query.items())
    for _ in range(MAX_PAGES):
        answer = get(f"{path}?{urlencode(params, doseq=True)}" if params else path)
        found.extend(answer.get(key) or [])
        following = [link.get("href") for link in answer.get(f"{key}_links") or []
                     if link.get("rel") == "next"]
        if not following:
            break
        params = parse_qsl(urlparse(str(following[0])).query)
    return found


def _probe(show: Any, idents: Iterable[str]) -> tuple[dict[str, Any], set[str]]:
    """Objects looked at one by one: their records, and those that are gone."""
    records: dict[str, Any] = {}
    gone: set[str] = set()
    for ident in idents:
        try:
            records[ident] = show(ident)
        except Exception as exc:
            if not is_not_found(exc):
                raise
            gone.add(ident)
    return records, gone


def _newest(answer: Mapping[str, Any], key: str) -> datetime | None:
    """The change time of the first object of a list sorted newest first."""
    first: Mapping[str, Any] = next(iter(answer.get(key) or []), {})
    return changed_at(first)


def _seeded(since: datetime | None, newest: datetime | None) -> datetime | None:
    return since if since is not None else (newest - MARGIN if newest is not None else None)


class NovaServers:
    """Servers, by ``changes-since`` (which lists deleted servers too, as DELETED)."""

    service = "nova-servers"

    def endpoint(self, cloud: Any) -> str:
        return str(cloud.compute.get_endpoint() or "")

    def list(self, cloud: Any, plan: ListPlan) -> Listing:
        api = NovaApi(cloud)

        def get(path: str) -> Any:
            return api.request("GET", path)

        newest = None
        if plan.since is None:
            newest = _newest(get("/servers/detail?limit=1&sort_key=updated_at&sort_dir=desc"),
                             "servers")
        since = _seeded(plan.since, newest)
        query = {"changes-since": _stamp(since)} if since is not None else {}
        listed = ids_of(_pages(get, "/servers/detail", query, "servers"))
        gone = {i for i, s in listed.items() if str(s.get("status")) == "DELETED"}
        records, probed_gone = _probe(api.server, plan.probe - listed.keys())
        records.update({i: s for i, s in listed.items() if i not in gone})
        return Listing(records, frozenset(gone | probed_gone), newest)


class CinderVolumes:
    """Volumes, by ``updated_at=gte:T`` from microversion 3.60 (else the project's whole
    detailed list); delete waits by the project's list of ids (deleted volumes are not
    listed at all)."""

    service = "cinder-volumes"

    def endpoint(self, cloud: Any) -> str:
        return str(cloud.block_storage.get_endpoint() or "")

    def list(self, cloud: Any, plan: ListPlan) -> Listing:
        api = CinderApi(cloud)

        def get(path: str) -> Any:
            return api.request("GET", path)

        if not api.supports(CINDER_TIME_FILTERS):
            everything = ids_of(_pages(get, "/volumes/detail", {}, "volumes"))
            return Listing(everything, frozenset(plan.watched - everything.keys()))
        newest = None
        if plan.since is None:
            # by creation: a volume never updated yet has no updated_at to sort by
            newest = _newest(get("/volumes/detail?limit=1&sort=created_at:desc"), "volumes")
        since = _seeded(plan.since, newest)
        query = {"updated_at": f"gte:{_stamp(since)}"} if since is not None else {}
        listed = ids_of(_pages(get, "/volumes/detail", query, "volumes"))
        gone: set[str] = set()
        if plan.exact - listed.keys():
            present = ids_of(_pages(get, "/volumes", {}, "volumes")).keys()
            gone = set(plan.exact - present)
        records, probed_gone = _probe(api.volume, plan.probe - listed.keys() - gone)
        records.update(listed)
        return Listing(records, frozenset(gone | probed_gone), newest)


class NeutronPorts:
    """Ports, by ``changed_since=T`` where the standard-attr-timestamp extension is on;
    else, and for delete waits and the first tick, by their ids (absent: gone)."""

    service = "neutron-ports"

    def endpoint(self, cloud: Any) -> str:
        return str(cloud.network.get_endpoint() or "")

    def list(self, cloud: Any, plan: ListPlan) -> Listing:
        api = NeutronApi(cloud)

        def get(path: str) -> Any:
            return api.request("GET", path)

        by_time = plan.since is not None and cloud.has_extension(
            "neutron", "standard-attr-timestamp")
        asked = (plan.exact | plan.probe) if by_time else plan.watched
        records: dict[str, Any] = {}
        if by_time and plan.since is not None:
            records.update(ids_of(_pages(get, "/ports", {"changed_since": _stamp(plan.since)},
                                         "ports")))
        chunks = sorted(asked - records.keys())
        for start in range(0, len(chunks), ID_CHUNK):
            records.update(ids_of(_pages(get, "/ports", {"id": chunks[start:start + ID_CHUNK]},
                                         "ports")))
        gone = asked - records.keys()
        return Listing(records, frozenset(gone))


NOVA_SERVERS = NovaServers()
CINDER_VOLUMES = CinderVolumes()
NEUTRON_PORTS = NeutronPorts()

"""Resource types by name, from the ``hotplate.resources`` entry point group.

Built-in and third-party types register the same way (pyproject.toml)::

    [project.entry-points."hotplate.resources"]
    "OS::Heat::None" = "hotplate.resources.none:NoneResource"

Entry points are listed once per process and each is imported the first
time its type is asked for, so one broken plugin costs only its own type:
it is logged and then reported as not found, as Heat skips plugins that
fail to load. Tests add classes with ``Registry.with_extra``. The types Heat keeps
only as do-nothing stand-ins (a retired service's) resolve to one (``retired``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from importlib.metadata import EntryPoint, entry_points

from hotplate.model.errors import ResourceTypeUnavailable
from hotplate.resources.base import Resource
from hotplate.resources.retired import placeholder_class

__all__ = ["ENTRY_POINT_GROUP", "Registry"]

LOG = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "hotplate.resources"


def not_found(type_name: str) -> ResourceTypeUnavailable:
    """Heat's text for an unknown type; callers add the template path."""
    error = ResourceTypeUnavailable(f"The Resource Type ({type_name}) could not be found.")
    error.resource_type = type_name
    return error


class Registry:
    """Thread-safe lookups of resource classes by type name."""

    _default: Registry | None = None
    _default_lock = threading.Lock()

    def __init__(
        self,
        classes: Mapping[str, type[Resource]] | None = None,
        entry_points: Mapping[str, EntryPoint] | None = None,
    ) -> None:
        self._classes: dict[str, type[Resource]] = dict(classes or {})
        self._pending: dict[str, EntryPoint] = {
            name: ep for name, ep in (entry_points or {}).items() if name not in self._classes
        }
        self._broken: set[str] = set()
        self._lock = threading.RLock()  # a plugin import may look types up

    @classmethod
    def from_entry_points(cls, group: str = ENTRY_POINT_GROUP) -> Registry:
        """A registry of every installed entry point of ``group`` (not yet imported)."""
        found: dict[str, EntryPoint] = {}
        for ep in entry_points(group=group):
            if ep.name in found:
                LOG.warning("resource type %s declared twice; keeping %s, ignoring %s",
                            ep.name, found[ep.name].value, ep.value)
                continue
            found[ep.name] = ep
        return cls(entry_points=found)

    @classmethod
    def default(cls) -> Registry:
        """The process-wide registry of installed types, listed on first use."""
        with cls._default_lock:
            if cls._default is None:
                cls._default = cls.from_entry_points()
            return cls._default

    @classmethod
    def with_extra(
        cls, extra: Mapping[str, type[Resource]], *, base: Registry | None = None
    ) -> Registry:
        """A new registry: ``base`` (default: the installed types) plus ``extra``.

        ``extra`` wins over a type of the same name; ``base`` is unchanged.
        """
        source = base if base is not None else cls.default()
        with source._lock:
            classes = {**source._classes, **extra}
            pending = dict(source._pending)
        return cls(classes, pending)

    def get(self, type_name: str) -> type[Resource]:
        """The class for ``type_name``.

        Raises:
            ResourceTypeUnavailable: "The Resource Type (X) could not be found."
        """
        with self._lock:
            found = self._classes.get(type_name)
            if found is not None:
                return found
            ep = self._pending.get(type_name)
            if ep is None or type_name in self._broken:
                stand_in = placeholder_class(type_name)
                if stand_in is None:
                    raise not_found(type_name)
                self._classes[type_name] = stand_in
                return stand_in
            loaded = self._load(type_name, ep)
            if loaded is None:
                self._broken.add(type_name)
                raise not_found(type_name)
            self._classes[type_name] = loaded
            del self._pending[type_name]
            return loaded

    def types(self) -> list[str]:
        """Every registered type name, sorted (entry points listed but not yet imported too)."""
        with self._lock:
            names = (set(self._classes) | set(self._pending)) - self._broken
        return sorted(names)

    def __contains__(self, type_name: object) -> bool:
        if not isinstance(type_name, str):
            return False
        try:
            self.get(type_name)
        except ResourceTypeUnavailable:
            return False
        return True

    @staticmethod
    def _load(type_name: str, ep: EntryPoint) -> type[Resource] | None:
        try:
            loaded = ep.load()
        except Exception:
            LOG.exception("resource type %s: cannot load %s", type_name, ep.value)
            return None
        if not (isinstance(loaded, type) and issubclass(loaded, Resource)):
            LOG.error("resource type %s: %s is not a Resource subclass", type_name, ep.value)
            return None
        return loaded

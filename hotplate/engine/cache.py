"""Per-engine caches: a template is parsed once, a traversal's graph loaded once.

Heat re-parses the stack, its template and environment for every node; that
is most of its per-resource cost. Templates are immutable once stored and a
traversal's graph never changes, so both are cached by id. Bounded LRU: a
long-running engine does not grow with the number of stacks it has seen, and a
key missing is loaded once however many workers ask for it together
(``hotplate.single_flight``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from hotplate.convergence.graph_build import graph_from_json
from hotplate.graph.dag import Graph
from hotplate.model.errors import EntityNotFound
from hotplate.model.ids import StackId, TemplateId, TraversalId
from hotplate.model.nodes import NodeKey
from hotplate.model.records import StackRecord
from hotplate.ports import ResourceStorage, StackStorage, TemplateStorage
from hotplate.single_flight import LruCache
from hotplate.template import (
    Environment,
    Template,
    parse_environment,
    parse_template,
    resolve_parameters,
)

FACADE = "OS::resource_facade"
"""Where a nested stack's parameter values carry its parent resource's facade
(``resource_facade``); never shown among the stack's parameters."""


def pseudo_parameters(stack: StackRecord) -> dict[str, Any]:
    return {"OS::stack_name": stack.name, "OS::stack_id": stack.id,
            "OS::project_id": stack.project_id}


@dataclass(frozen=True, slots=True)
class LoadedTemplate:
    id: TemplateId
    template: Template
    raw: Mapping[str, Any]
    files: Mapping[str, Any]
    environment: Mapping[str, Any]
    env: Environment

    @property
    def user_parameters(self) -> Mapping[str, Any]:
        return self.environment.get("parameters") or {}

    @property
    def parameter_defaults(self) -> Mapping[str, Any]:
        return self.environment.get("parameter_defaults") or {}


@dataclass(frozen=True, slots=True)
class TraversalGraph:
    stack_id: StackId
    traversal_id: TraversalId
    graph: Graph[NodeKey]
    roots: frozenset[NodeKey]
    converge: bool = False
    """The traversal is an update with ``converge`` (graph_build.graph_to_json)."""


CACHED_PER_KIND = 2048
"""Templates, parameters, decided templates and graphs kept, each: enough for a group
of a thousand members in flight at once (a miss re-reads and re-parses from the store)."""

PARSED_TEXTS = 64
"""Distinct template texts kept parsed (provider templates of groups, mostly)."""


class CacheSource(TemplateStorage, StackStorage, ResourceStorage, Protocol):
    """What the caches read: templates, stacks and their graphs, resource rows."""


class EngineCaches:
    def __init__(self, store: CacheSource, size: int = CACHED_PER_KIND) -> None:
        self._store = store
        self._size = size
        self._templates: LruCache[TemplateId, LoadedTemplate] = LruCache(size)
        self._params: LruCache[tuple[TemplateId, StackId], dict[str, Any]] = LruCache(size)
        self._graphs: LruCache[tuple[StackId, TraversalId], TraversalGraph] = LruCache(size)
        self._decided: LruCache[tuple[TemplateId, StackId], Template] = LruCache(size)
        self._derived_from: set[TemplateId] = set()
        """Templates that parameters or a decided template may be cached for: a new
        template (one per nested stack and action) then drops nothing without
        scanning both caches for it."""
        self._texts: LruCache[str, Template] = LruCache(PARSED_TEXTS)
        self.implicit: Callable[[LoadedTemplate, Template, Mapping[str, Any]],
                                Template] | None = None
        """Adds the types' implicit dependencies to a decided template (app.py sets it:
        engine/implicit_graph.py); None adds none."""

    def parsed_text(self, text: str, files: Mapping[str, Any]) -> Template:
        """A template given as text, parsed once for every stack that sends the same text:
        a group's members all send their provider template. A text that reads files
        (``get_file``) depends on them too, so it is parsed each time."""
        if "get_file" in text:
            return parse_template(text, files=files)
        return self._texts.get_or_load(text, lambda: parse_template(text, files=files))

    def template(self, template_id: TemplateId) -> LoadedTemplate:
        def load() -> LoadedTemplate:
            raw = self._store.get_raw_template(template_id)
            if raw is None:
                raise EntityNotFound("Template", str(template_id))
            return LoadedTemplate(
                id=template_id,
                template=parse_template(raw.template, files=raw.files),
                raw=raw.template,
                files=raw.files,
                environment=raw.environment,
                env=parse_environment(raw.environment),
            )

        return self._templates.get_or_load(template_id, load)

    def remember_template(self, template_id: TemplateId, template: Template,
                          files: Mapping[str, Any], environment: Mapping[str, Any]) -> None:
        """Seed the cache with a template this engine just parsed and stored.

        It replaces whatever was cached under that id, with everything derived
        from it: SQLite may hand out the id of a template deleted since.
        """
        loaded = LoadedTemplate(template_id, template, template.to_dict(), dict(files),
                                dict(environment), parse_environment(environment))
        if template_id in self._derived_from:
            self._params.discard_where(lambda key: key[0] == template_id)
            self._decided.discard_where(lambda key: key[0] == template_id)
            self._derived_from.discard(template_id)
        self._templates.put(template_id, loaded)

    def parameters(
        self, template_id: TemplateId, stack_id: StackId, pseudo: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Validated parameter values plus the pseudo parameters of the stack."""

        def load() -> dict[str, Any]:
            loaded = self.template(template_id)
            values = resolve_parameters(
                loaded.template,
                loaded.user_parameters,
                param_defaults=loaded.parameter_defaults,
            )
            values.update(pseudo)
            self._derive(template_id)
            stack = self._store.get_stack(stack_id, include_deleted=True)
            if (stack is not None and stack.owner_id is not None
                    and stack.parent_resource_name and _mentions_facade(loaded.raw)):
                # Read only when used: it lists the parent's resources, and a group's
                # thousand members would each list the thousand.
                values[FACADE] = self._facade(stack.owner_id, stack.parent_resource_name,
                                              stack_id)
            return values

        return self._params.get_or_load((template_id, stack_id), load)

    def _facade(self, owner_id: StackId, resource_name: str, stack_id: StackId,
                ) -> dict[str, Any]:
        """The parent resource's metadata and policies, as ``resource_facade`` reads them."""
        parent = self._store.get_stack(owner_id, include_deleted=True)
        if parent is None:
            return {}
        defn = self.template(parent.raw_template_id).template.resources.get(resource_name)
        rows = [r for r in self._store.list_resources(owner_id) if r.name == resource_name]
        mine = [r for r in rows if r.physical_resource_id == str(stack_id)] or rows
        metadata = dict(mine[-1].metadata or {}) if mine else {}
        return {
            "metadata": metadata,
            "deletion_policy": defn.deletion_policy if defn is not None else "Delete",
            "update_policy": dict(getattr(defn, "update_policy", None) or {}),
        }

    def for_stack(self, template_id: TemplateId, stack: StackRecord) -> Template:
        """The template as this stack sees it: its conditions decided by its parameters.

        Resources whose condition is false are absent from it, from its graph
        and from its attribute references.
        """

        def load() -> Template:
            params = self.parameters(template_id, stack.id, pseudo_parameters(stack))
            self._derive(template_id)
            loaded = self.template(template_id)
            decided = loaded.template.with_parameters(params)
            if self.implicit is None:
                return decided
            return self.implicit(loaded, decided, params)

        return self._decided.get_or_load((template_id, stack.id), load)

    def _derive(self, template_id: TemplateId) -> None:
        """Note that something derived from the template may be cached; the notes are
        rebuilt from the caches' keys once they outgrow them (evicted entries)."""
        derived = self._derived_from
        derived.add(template_id)
        if len(derived) > 4 * self._size:
            kept = {key[0] for key in (*self._params.keys(), *self._decided.keys())}
            self._derived_from = kept | {template_id}

    def graph(self, stack_id: StackId, traversal_id: TraversalId) -> TraversalGraph:
        """The traversal's graph; empty (and not cached) if it is not, or no longer, stored."""
        key = (stack_id, traversal_id)
        cached = self._graphs.peek(key)
        if cached is not None:
            return cached

        def load() -> TraversalGraph:
            found = self._store.get_stack_deps(stack_id)
            if found is None or found[0] != traversal_id or found[1] is None:
                raise _GraphNotStored
            graph = graph_from_json(found[1])
            return TraversalGraph(stack_id, traversal_id, graph, frozenset(graph.roots()),
                                  converge=bool(found[1].get("converge")))

        # Loaded once however many workers miss it together: a batch's first nodes
        # each parsed the whole graph (a 4000-node update's, sixteen times an engine).
        try:
            return self._graphs.get_or_load(key, load)
        except _GraphNotStored:
            return TraversalGraph(stack_id, traversal_id, Graph(), frozenset())

    def remember_graph(
        self, stack_id: StackId, traversal_id: TraversalId, graph: Graph[NodeKey], *,
        converge: bool = False,
    ) -> None:
        """Seed the cache with a graph this engine just built (saves a reload)."""
        self._graphs.get_or_load(
            (stack_id, traversal_id),
            lambda: TraversalGraph(stack_id, traversal_id, graph, frozenset(graph.roots()),
                                   converge=converge),
        )


class _GraphNotStored(Exception):
    """The traversal's graph is not (or no longer) the stack's: nothing to cache."""


_FACADE_FUNCTIONS = frozenset({"resource_facade", "Fn::ResourceFacade"})


def _mentions_facade(data: Any) -> bool:
    """Whether a template calls resource_facade anywhere (one walk, no parse)."""
    pending = [data]
    while pending:
        node = pending.pop()
        if isinstance(node, Mapping):
            if not _FACADE_FUNCTIONS.isdisjoint(node.keys()):
                return True
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return False

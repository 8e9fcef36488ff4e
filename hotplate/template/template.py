"""``Template``: a parsed template, immutable, parsed once and resolved many times.

The engine caches one per stored template and, for each resource, resolves
that resource's definition against what its predecessors reported. Nothing
here is recomputed per call: the dependency graph and the attributes other
resources read were derived when the template was parsed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hotplate.graph import Graph
from hotplate.model.errors import CircularDependencyException
from hotplate.template.definitions import OutputDefinition, ResourceDefinition
from hotplate.template.document import copy_data
from hotplate.template.parameters import ParameterSchema
from hotplate.template.versions import TemplateVersion


@dataclass(frozen=True, slots=True, eq=False)
class Template:
    """A parsed template, HOT or CFN. Build it with ``parse_template``.

    ``resources`` and ``outputs`` keep template order. Resources that a
    plainly-false condition leaves out are not in ``resources``.
    """

    version: str
    """The canonical date of the version, even when given by name ("wallaby").

    Dates are unique across formats: "2010-09-09" is CFN's AWS version.
    """
    description: str
    parameters: Mapping[str, ParameterSchema]
    resources: Mapping[str, ResourceDefinition]
    outputs: Mapping[str, OutputDefinition]
    conditions: Mapping[str, Any]
    parameter_groups: Any
    hot_version: TemplateVersion = field(repr=False)
    """The version's rules (the name dates from when only HOT was parsed)."""
    _source: dict[str, Any] = field(repr=False)
    _graph: Graph[str] = field(repr=False)
    _cycle: list[str] | None = field(repr=False)
    _attributes: Mapping[str, frozenset[str]] = field(repr=False)
    _files: Mapping[str, Any] = field(default_factory=dict, repr=False)
    _path_reads: dict[str, frozenset[tuple[str, tuple[Any, ...]]]] = field(
        default_factory=dict, repr=False, compare=False)
    """Filled on first use by ``attribute_paths_referenced``."""
    conditions_decided: bool = False
    """True once ``with_parameters`` has evaluated every condition."""
    declared_resources: frozenset[str] = frozenset()
    """Every resource the template names, those a false condition leaves out included."""
    computed_names: bool = False
    """A get_resource or get_attr computes a name: parameter values decide what it reads."""
    computed_attribute_reads: frozenset[str] = frozenset()
    """Resources read by a get_attr whose attribute name comes from another resource's
    attribute: known only when resolving, so not in ``attributes_referenced``."""

    def with_parameters(self, values: Mapping[str, Any]) -> Template:
        """This template with its conditions evaluated against parameter values.

        ``values`` are what ``get_param`` reads: the validated values from
        ``resolve_parameters`` plus the pseudo parameters (``OS::stack_name``...).
        In the result, resources whose condition is false are gone from
        ``resources``, ``dependencies()`` and ``attributes_referenced()``;
        outputs whose condition is false resolve to None; ``if`` keeps only
        the chosen branch, so only its references are dependencies; and a
        resource or attribute name computed from parameters is known, so it
        is a dependency and an attribute referenced.

        Raises:
            StackValidationFailed: a condition is invalid or reads a missing parameter.
        """
        from hotplate.template.parser import parse_data  # the parser builds Templates

        if not self.computed_names and not _mentions_conditions(self._source):
            return self  # nothing to decide: the parse we have is the answer
        return parse_data(self._source, self._files, _Values(values))

    @property
    def version_key(self) -> str:
        """The key that declares the version (``AWSTemplateFormatVersion`` for CFN)."""
        return self.hot_version.key

    def dependencies(self) -> Graph[str]:
        """The resource graph (a fresh copy the caller may change).

        Raises:
            CircularDependencyException: naming the cycle, e.g.
                "Circular Dependency Found: a -> b -> a".
        """
        if self._cycle is not None:
            raise CircularDependencyException(list(self._cycle))
        return self._graph.copy()

    def attributes_referenced(self) -> Mapping[str, frozenset[str]]:
        """Per resource, the attribute names other definitions read with get_attr.

        What a finished resource must resolve and pass on to its dependants;
        ``ALL_ATTRIBUTES`` stands for ``get_attr: [name]``. A name computed from
        another resource's attribute is not here (``computed_attribute_reads``).
        """
        return self._attributes

    def attribute_paths_referenced(self, target: str
                                   ) -> frozenset[tuple[str, tuple[Any, ...]]]:
        """The ``(attribute, path)`` pairs read from ``target`` with a literal path.

        Found in one walk of the template the first time any resource asks
        (only types that resolve paths themselves ask), then kept.
        """
        if not self._path_reads:
            from hotplate.template.references import attribute_paths_read

            self._path_reads.update(attribute_paths_read(self.resources, self.outputs))
            self._path_reads.setdefault("", frozenset())  # walked, even if nothing found
        return self._path_reads.get(target, frozenset())

    def to_dict(self) -> dict[str, Any]:
        """The template as given (normalized to JSON-safe data), for storage."""
        result: dict[str, Any] = copy_data(self._source)
        return result


class _Values:
    """Parameter values as a ResolveContext; conditions read nothing else."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self._values = dict(values)

    def parameter(self, name: str) -> Any:
        return self._values[name]

    def resource_reference(self, name: str) -> str | None:
        raise RuntimeError("conditions do not read resources")

    def resource_attribute(self, name: str, attribute: str) -> Any:
        raise RuntimeError("conditions do not read resources")


_CONDITION_KEYS = frozenset({"conditions", "condition", "if", "Conditions", "Condition",
                             "Fn::If"})


def _mentions_conditions(data: Any) -> bool:
    """Whether any mapping key in the document is about conditions (one linear walk)."""
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            if not _CONDITION_KEYS.isdisjoint(node.keys()):
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False

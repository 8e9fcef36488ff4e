"""Engine-topic lookups heat-api and heat-api-cfn ask for: ``count_stacks`` (a stack
list's ``with_count``), ``describe_stack_resources`` and ``find_physical_resource``
(CFN's DescribeStackResources), ``get_revision`` (``/build_info``) and
``authenticated_to_backend``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate import __version__
from hotplate.engine.service.lookups import project_of, reaches
from hotplate.engine.service.service_resources import ResourceMethods
from hotplate.engine.views import stack_identity
from hotplate.model.errors import EntityNotFound, HotplateError
from hotplate.model.ids import StackId


class PhysicalResourceIDAmbiguity(HotplateError):
    def __init__(self, physical_id: str) -> None:
        super().__init__(
            f"Multiple resources were found with the physical ID ({physical_id}).")


class LookupMethods(ResourceMethods):
    LOOKUP_METHODS = frozenset({"count_stacks", "describe_stack_resources",
                                "find_physical_resource", "get_revision",
                                "authenticated_to_backend"})

    def count_stacks(self, ctxt: Mapping[str, Any], filters: Any = None,
                     tenant_safe: bool = True, show_deleted: bool = False,
                     show_nested: bool = False, show_hidden: bool = False, tags: Any = None,
                     tags_any: Any = None, not_tags: Any = None,
                     not_tags_any: Any = None) -> int:
        """How many stacks ``list_stacks`` would answer with no page limit."""
        project = None if (ctxt.get("is_admin") and not tenant_safe) else project_of(ctxt)
        return len(self._deps.store.list_stacks(
            project, limit=None, marker=None, sort_keys=("created_at",), sort_dir="desc",
            filters=filters, show_deleted=show_deleted, show_nested=show_nested))

    def describe_stack_resources(self, ctxt: Mapping[str, Any], stack_identity: Any,
                                 resource_name: str | None) -> list[dict[str, Any]]:
        """The detailed view of each of the stack's resources (or of the one named)."""
        stack = self._get_stack(ctxt, stack_identity)
        scope = self._scope(stack)
        return [self._view(scope, row, detail=True)
                for name, row in self._current_rows(stack).items()
                if name in scope.template.resources
                and (resource_name is None or name == resource_name)]

    def find_physical_resource(self, ctxt: Mapping[str, Any],
                               physical_resource_id: str) -> dict[str, str]:
        """The identity of the resource whose physical id this is, in a stack the caller
        may see.

        Raises:
            EntityNotFound: no such resource the caller may see.
            PhysicalResourceIDAmbiguity: resources of more than one stack have it.
        """
        found = []
        for row in self._deps.store.resources_by_physical_id(str(physical_resource_id)):
            stack = self._deps.store.get_stack(StackId(str(row.stack_id)))
            if stack is not None and reaches(ctxt, stack):
                found.append((row, stack))
        if not found:
            raise EntityNotFound("Resource", str(physical_resource_id))
        if len({str(stack.id) for _, stack in found}) > 1:
            raise PhysicalResourceIDAmbiguity(str(physical_resource_id))
        row, stack = found[0]
        return {**stack_identity(stack), "path": f"/resources/{row.name}"}

    def get_revision(self, ctxt: Mapping[str, Any]) -> str:
        return __version__

    def authenticated_to_backend(self, ctxt: Mapping[str, Any]) -> bool:
        """Whether the caller's credentials are good for the cloud behind the engine."""
        return self._deps.clouds.for_context(ctxt).authenticated()

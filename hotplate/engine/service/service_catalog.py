"""Engine-topic methods about what the engine offers rather than about one stack.

Template validation, template versions and their functions, resource types
and their schemas, and the engine registry. Part of ``EngineService``;
Heat's method names and arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.engine.deps import EngineDeps
from hotplate.engine.service import template_catalog, type_schemas
from hotplate.engine.service.lookups import request_environment
from hotplate.engine.service.template_check import validate_template
from hotplate.engine.service.type_access import TypeAccess
from hotplate.engine.views import format_service
from hotplate.model.errors import HotplateError


class CatalogMethods:
    _deps: EngineDeps

    CATALOG_METHODS = frozenset({
        "validate_template", "list_template_versions", "list_template_functions",
        "list_resource_types", "resource_schema", "generate_template", "list_services",
    })

    def validate_template(
        self, ctxt: Mapping[str, Any], template: Any, params: Any = None, files: Any = None,
        environment_files: Any = None, files_container: Any = None, show_nested: bool = False,
        ignorable_errors: Any = None,
    ) -> dict[str, Any]:
        """Heat's parameter view of a template, or ``{"Error": message}``."""
        try:
            env = request_environment(params, files or {}, environment_files)
        except HotplateError as exc:
            return {"Error": str(exc)}
        return validate_template(self._deps, template, env, files or {}, ignorable_errors,
                                 show_nested=bool(show_nested),
                                 access=TypeAccess.for_context(ctxt, self._deps.clouds))

    def list_template_versions(self, ctxt: Mapping[str, Any]) -> list[dict[str, Any]]:
        return template_catalog.list_template_versions()

    def list_template_functions(self, ctxt: Mapping[str, Any], template_version: str,
                                with_condition: bool = False) -> list[dict[str, str]]:
        return template_catalog.list_template_functions(template_version, with_condition)

    def list_resource_types(self, ctxt: Mapping[str, Any], support_status: str | None = None,
                            type_name: str | None = None, heat_version: str | None = None,
                            with_description: bool = False) -> list[Any]:
        return type_schemas.list_resource_types(
            self._deps.types, support_status=support_status, type_name=type_name,
            heat_version=heat_version, with_description=with_description,
            access=TypeAccess.for_context(ctxt, self._deps.clouds))

    def resource_schema(self, ctxt: Mapping[str, Any], type_name: str,
                        with_description: bool = False) -> dict[str, Any]:
        return type_schemas.resource_schema(
            self._deps.types, type_name, with_description,
            access=TypeAccess.for_context(ctxt, self._deps.clouds))

    def generate_template(self, ctxt: Mapping[str, Any], type_name: str,
                          template_type: str = "cfn") -> dict[str, Any]:
        return type_schemas.generate_template(
            self._deps.types, type_name, template_type,
            access=TypeAccess.for_context(ctxt, self._deps.clouds))

    def list_services(self, ctxt: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The engines registered in the service table, ``up`` or ``down`` by their
        last report, as Heat lists them: every engine reports on a timer
        (``engine/heartbeat.py``), so a row that stopped moving is a dead engine
        and nothing needs asking."""
        now = self._deps.clock.now()
        return [format_service(service, now) for service in self._deps.store.list_services()]

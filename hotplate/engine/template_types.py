"""Template resource classes, one per template file content, built once and kept."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.template_resource import TemplateResource, template_resource_class
from hotplate.template import Template, parse_template
from hotplate.template.resource_parser import check_provider_outputs

MAX_CLASSES = 256


class TemplateTypes:
    """``type: server.yaml`` to a TemplateResource class, by the file's content.

    A parameter without a default of its own is a required property, unless
    the environment's ``parameter_defaults`` give it one (as Heat builds the
    schema from the template's parameters with those defaults applied); so
    each file has a class per set of parameters the environment covers.
    """

    def __init__(self, size: int = MAX_CLASSES) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._parsed: OrderedDict[tuple[str, str], Template] = OrderedDict()
        self._classes: OrderedDict[tuple[str, str, frozenset[str]],
                                   type[TemplateResource]] = OrderedDict()

    def for_file(self, template_name: str, files: Mapping[str, Any],
                 param_defaults: Mapping[str, Any] | None = None) -> type[TemplateResource]:
        """Raises StackValidationFailed: no such file, or not a valid template."""
        source = files.get(template_name)
        if source is None:
            raise StackValidationFailed(
                f'Could not fetch remote template "{template_name}": it is not among '
                "the files sent with the request")
        text = source if isinstance(source, str) else json.dumps(source, sort_keys=True)
        parsed = self._parse(template_name, text, files)
        defaults = param_defaults or {}
        covered = frozenset(name for name, param in parsed.parameters.items()
                            if not param.has_default and defaults.get(name) is not None)
        key = (template_name, text, covered)
        with self._lock:
            found = self._classes.get(key)
            if found is not None:
                self._classes.move_to_end(key)
                return found
        check_provider_outputs(parsed.to_dict().get(parsed.hot_version.spelling.outputs),
                               parsed.hot_version)
        cls = template_resource_class(template_name, parsed, text, defaulted=covered)
        with self._lock:
            self._classes[key] = cls
            _trim(self._classes, self._size)
        return cls

    def _parse(self, template_name: str, text: str, files: Mapping[str, Any]) -> Template:
        key = (template_name, text)
        with self._lock:
            found = self._parsed.get(key)
            if found is not None:
                self._parsed.move_to_end(key)
                return found
        try:
            parsed = parse_template(text, files=files)
        except StackValidationFailed as exc:
            raise StackValidationFailed(
                f'Failed to parse template "{template_name}": {exc.detail}') from None
        with self._lock:
            self._parsed[key] = parsed
            _trim(self._parsed, self._size)
        return parsed


def _trim(cache: OrderedDict[Any, Any], size: int) -> None:
    while len(cache) > size:
        cache.popitem(last=False)

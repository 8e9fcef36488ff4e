"""Template resource classes, one per template file content, built once and kept."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.template_resource import TemplateResource, template_resource_class
from hotplate.template import parse_template

MAX_CLASSES = 256


class TemplateTypes:
    """``type: server.yaml`` to a TemplateResource class, by the file's content."""

    def __init__(self, size: int = MAX_CLASSES) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._classes: OrderedDict[tuple[str, str], type[TemplateResource]] = OrderedDict()

    def for_file(self, template_name: str, files: Mapping[str, Any]) -> type[TemplateResource]:
        """Raises StackValidationFailed: no such file, or not a valid template."""
        source = files.get(template_name)
        if source is None:
            raise StackValidationFailed(
                f'Could not fetch remote template "{template_name}": it is not among '
                "the files sent with the request")
        text = source if isinstance(source, str) else json.dumps(source, sort_keys=True)
        key = (template_name, text)
        with self._lock:
            found = self._classes.get(key)
            if found is not None:
                self._classes.move_to_end(key)
                return found
        try:
            parsed = parse_template(text, files=files)
        except StackValidationFailed as exc:
            raise StackValidationFailed(
                f'Failed to parse template "{template_name}": {exc.detail}') from None
        cls = template_resource_class(template_name, parsed, text)
        with self._lock:
            self._classes[key] = cls
            while len(self._classes) > self._size:
                self._classes.popitem(last=False)
        return cls

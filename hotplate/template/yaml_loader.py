"""Template text to data, the way Heat reads it: JSON first, then YAML.

YAML goes through PyYAML's C loader when it is built in (it is many times
faster than the pure-Python one), with one change that Heat also makes:
timestamps stay text. ``heat_template_version: 2013-05-23`` must be the
string "2013-05-23", not a ``datetime.date``, or the version lookup and JSON
storage both break. The result is then normalized (``document.normalize``)
with a node budget tied to the text's length, which is what defuses YAML
alias bombs.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from hotplate.model.errors import StackValidationFailed
from hotplate.template.document import normalize, text_budget

_SafeBase: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _FastLoader(_SafeBase):  # type: ignore[valid-type,misc]
    """Safe loader (C when available) that keeps timestamps as text."""


class _DetailedLoader(yaml.SafeLoader):
    """Pure-Python safe loader, used only to word an error: its messages quote the text."""


def _timestamp_as_text(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    return loader.construct_scalar(node)  # type: ignore[arg-type]


for _loader in (_FastLoader, _DetailedLoader):
    _loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_text)

NOT_A_MAPPING = "The template is not a JSON object or YAML mapping."


def load_text(source: str, *, name: str = "[root stack]") -> dict[str, Any]:
    """Parse template text into normalized data.

    Raises:
        StackValidationFailed: the text is neither JSON nor YAML, is not a
            mapping at the top, or breaks the document bounds.
    """
    data = parse_text(source, name=name)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise StackValidationFailed(NOT_A_MAPPING)
    return normalize(data, budget=text_budget(len(source)))


def parse_text(source: str, *, name: str, kind: str = "template") -> Any:
    """JSON, else YAML, with no check of the shape; ``kind`` words the error.

    Raises:
        StackValidationFailed: the text is neither JSON nor YAML.
    """
    try:
        return json.loads(source)
    except RecursionError:
        raise StackValidationFailed(
            f"Error parsing {kind} {name} the document is nested too deeply"
        ) from None
    except ValueError:
        pass
    try:
        return yaml.load(source, Loader=_FastLoader)
    except yaml.YAMLError:
        detail = _describe_yaml_error(source)
    except RecursionError:
        detail = "the document is nested too deeply"
    except ValueError as exc:  # text the C parser cannot encode, a number too long to read
        detail = str(exc)
    raise StackValidationFailed(f"Error parsing {kind} {name} {detail}")


def _describe_yaml_error(source: str) -> str:
    try:
        yaml.load(source, Loader=_DetailedLoader)
    except yaml.YAMLError as exc:
        return str(exc)
    except RecursionError:
        return "the document is nested too deeply"
    return "the document is not valid YAML"

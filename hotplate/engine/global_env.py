"""The global environment: every ``*.yaml`` of a directory, read once at engine start.

As Heat's ``environment_dir`` (``/etc/heat/environment.d``): operators map
resource types for every stack there (``OS::Custom::Thing: thing.yaml``),
and a stack's own environment still wins. The files are merged in name
order. A template a mapping names by a relative path is read from the same
directory, so provider templates can live beside the environment (a file
with a template version key is a template, not an environment).

Unlike Heat, which logs an unreadable file and goes on, a file that does
not parse stops the engine from starting, naming the file: a silently
missing mapping would only show up later as an unknown resource type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from hotplate.model.errors import StackValidationFailed
from hotplate.template import Environment, merge_environments, parse_environment
from hotplate.template.environment import TEMPLATE_SUFFIXES

ENV_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class GlobalEnvironment:
    env: Environment = field(default_factory=Environment)
    files: dict[str, Any] = field(default_factory=dict)
    """Provider templates the global registry names, by that name."""
    sources: tuple[str, ...] = ()

    def resolve_type(self, name: str, type_name: str, is_known: Any) -> str:
        if not self.sources:
            return type_name
        resolved: str = self.env.resource_registry.resolve_type(name, type_name,
                                                                is_known=is_known)
        return resolved


def load_global_environment(directory: str | Path | None) -> GlobalEnvironment:
    """Raises ValueError naming the file that does not parse (or a missing template)."""
    if directory is None:
        return GlobalEnvironment()
    root = Path(directory)
    if not root.is_dir():
        raise ValueError(f"environment directory {root} does not exist")
    candidates = sorted(p for p in root.iterdir()
                        if p.suffix in ENV_SUFFIXES and p.is_file())
    paths, texts = [], []
    for path in candidates:
        text = path.read_text()
        if not _is_template(text):  # provider templates may sit beside the environments
            paths.append(path)
            texts.append(text)
    envs = []
    for path, text in zip(paths, texts, strict=True):
        try:
            envs.append(parse_environment(text, path=str(path)))
        except StackValidationFailed as exc:
            raise ValueError(f"global environment file {path}: {exc}") from None
    try:
        merged = merge_environments([Environment(), *envs],
                                    names=["", *(str(p) for p in paths)])
    except StackValidationFailed as exc:
        raise ValueError(f"global environment in {root}: {exc}") from None
    files: dict[str, Any] = {}
    for target in merged.resource_registry.to_dict().values():
        if isinstance(target, str) and target.endswith(TEMPLATE_SUFFIXES):
            path = root / target
            if not path.is_file():
                raise ValueError(f"global environment in {root}: the template {target} "
                                 f"it maps to is not in {root}")
            files[target] = path.read_text()
    return GlobalEnvironment(merged, files, tuple(str(p) for p in paths))


def _is_template(text: str) -> bool:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return False  # let the environment parser word the error
    return isinstance(data, dict) and any(
        key in data for key in ("heat_template_version", "AWSTemplateFormatVersion",
                                "HeatTemplateFormatVersion"))

"""Write ``hotplate/resources/heat_types.py``: every resource type Heat registers.

Reads a Heat source tree from a bare git mirror (``HEAT_MIRROR``, default
``/work/.mirror/openstack+heat/repo``, at ``HEAT_REF``, default ``HEAD``) without
importing it: each module under ``heat/engine/resources`` is parsed, its
``resource_mapping()`` read, and for each class the service client it names
(``default_client_name``, through its bases), its support status and the
service extension it requires are found; the client plugins' ``service_types``
and the ``resource_types:<type>`` policies restricted to admins complete the
table. The output is a data module, regenerated when the reference release
changes; nothing of Heat's code is copied.

Usage: python scripts/heat_types.py [--check]
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "hotplate" / "resources" / "heat_types.py"
MIRROR = os.environ.get("HEAT_MIRROR", "/work/.mirror/openstack+heat/repo")
REF = os.environ.get("HEAT_REF", "HEAD")


def git(*args: str) -> str:
    return subprocess.run(["git", f"--git-dir={MIRROR}", *args], check=True,
                          capture_output=True, text=True).stdout


def source(path: str) -> str:
    return git("show", f"{REF}:{path}")


def module_name(path: str) -> str:
    name = path[:-3].replace("/", ".")
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


@dataclass
class ClassInfo:
    module: str
    name: str
    bases: list[ast.expr]
    attrs: dict[str, ast.expr]


@dataclass
class Module:
    name: str
    tree: ast.Module
    imports: dict[str, str] = field(default_factory=dict)  # alias -> dotted target
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    constants: dict[str, ast.expr] = field(default_factory=dict)


def load_module(path: str) -> Module:
    tree = ast.parse(source(path))
    mod = Module(module_name(path), tree)
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                mod.imports[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                mod.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.ClassDef):
            attrs: dict[str, ast.expr] = {}
            for stmt in node.body:
                if isinstance(stmt, ast.Assign):
                    for target in stmt.targets:
                        if isinstance(target, ast.Name):
                            attrs[target.id] = stmt.value
            mod.classes[node.name] = ClassInfo(mod.name, node.name, node.bases, attrs)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    mod.constants[target.id] = node.value
    return mod


class Index:
    def __init__(self, paths: list[str]) -> None:
        self.modules = {module_name(p): load_module(p) for p in paths}

    def resolve(self, mod: Module, expr: ast.expr) -> ClassInfo | None:
        """The class an expression names (``Name`` or ``module.Name``), if it is Heat's."""
        if isinstance(expr, ast.Name):
            if expr.id in mod.classes:
                return mod.classes[expr.id]
            target = mod.imports.get(expr.id)
            if target is not None:
                owner, _, name = target.rpartition(".")
                other = self.modules.get(owner)
                if other is not None:
                    return other.classes.get(name)
            return None
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            target = mod.imports.get(expr.value.id)
            other = self.modules.get(target) if target else None
            if other is not None:
                return other.classes.get(expr.attr)
        return None

    def derives_from(self, cls: ClassInfo, name: str) -> bool:
        """Whether ``cls`` is Heat's class ``name`` or inherits from it."""
        if cls.name == name:
            return True
        mod = self.modules[cls.module]
        for base in cls.bases:
            found = self.resolve(mod, base)
            if found is not None and self.derives_from(found, name):
                return True
        return False

    def lookup(self, cls: ClassInfo, attr: str) -> tuple[ClassInfo, ast.expr] | None:
        """Where ``attr`` is set for ``cls``, through its bases in order (Python's MRO
        suffices here: the plugins use single or mixin-first inheritance)."""
        if attr in cls.attrs:
            return cls, cls.attrs[attr]
        mod = self.modules[cls.module]
        for base in cls.bases:
            found = self.resolve(mod, base)
            if found is not None:
                hit = self.lookup(found, attr)
                if hit is not None:
                    return hit
        return None


def literal(mod: Module, expr: ast.expr, scope: dict[str, ast.expr] | None = None) -> Any:
    """A constant, ``_('text')``, a concatenation, or a class or module constant."""
    scope = scope or {}
    if isinstance(expr, ast.Constant):
        return expr.value
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "_":
        return literal(mod, expr.args[0], scope)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return literal(mod, expr.left, scope) + literal(mod, expr.right, scope)
    if isinstance(expr, ast.Name) and expr.id in scope:
        return literal(mod, scope[expr.id], scope)
    if isinstance(expr, ast.Name) and expr.id in mod.constants:
        return literal(mod, mod.constants[expr.id])
    if isinstance(expr, ast.Attribute) and expr.attr in {
            "SUPPORTED", "DEPRECATED", "HIDDEN", "UNSUPPORTED", "UNKNOWN"}:
        return expr.attr
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        target = mod.imports.get(expr.value.id)
        return ("ref", target, expr.attr)
    raise ValueError(f"{mod.name}: cannot read {ast.dump(expr)}")


def support_status(mod: Module, expr: ast.expr, scope: dict[str, ast.expr],
                   ) -> tuple[str, str | None, str | None]:
    assert isinstance(expr, ast.Call), ast.dump(expr)
    values = {kw.arg: literal(mod, kw.value, scope) for kw in expr.keywords
              if kw.arg in ("status", "version", "message")}
    return values.get("status", "SUPPORTED"), values.get("version"), values.get("message")


def client_services(index_paths: list[str]) -> dict[str, tuple[str, ...]]:
    """Client name (setup.cfg's ``heat.clients``) -> the service types its plugin serves."""
    services: dict[str, tuple[str, ...]] = {}
    cfg = source("setup.cfg")
    section = cfg.split("heat.clients =", 1)[1].split("\n\n", 1)[0]
    for line in section.strip().splitlines():
        name, _, target = (part.strip() for part in line.partition("="))
        module, _, cls_name = target.partition(":")
        path = module.replace(".", "/")
        try:
            text = source(f"{path}.py")
        except subprocess.CalledProcessError:
            text = source(f"{path}/__init__.py")
        tree = ast.parse(text)
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == cls_name:
                for stmt in node.body:
                    if (isinstance(stmt, ast.Assign)
                            and any(isinstance(t, ast.Name) and t.id == "service_types"
                                    for t in stmt.targets)):
                        assert isinstance(stmt.value, ast.List)
                        services[name] = tuple(
                            ast.literal_eval(e) for e in stmt.value.elts)
    return services


def admin_only_types() -> list[str]:
    text = source("heat/policies/resource_types.py")
    tree = ast.parse(text)
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "RuleDefault":
            kw = {k.arg: k.value for k in node.keywords}
            name = kw["name"]
            assert isinstance(name, ast.BinOp) and isinstance(name.right, ast.Constant)
            check = kw["check_str"]
            assert isinstance(check, ast.Attribute) and check.attr == "RULE_PROJECT_ADMIN"
            names.append(name.right.value)
    return names


def resource_types() -> list[dict[str, Any]]:
    paths = [p for p in git("ls-tree", "-r", "--name-only", REF, "heat/engine/").split()
             if p.endswith(".py") and "/tests/" not in p]
    index = Index(paths)
    rows = []
    for mod in index.modules.values():
        if not mod.name.startswith("heat.engine.resources"):
            continue
        for node in mod.tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == "resource_mapping":
                returned = [n for n in ast.walk(node) if isinstance(n, ast.Return)]
                assert len(returned) == 1 and isinstance(returned[0].value, ast.Dict)
                mapping = returned[0].value
                for key, value in zip(mapping.keys, mapping.values, strict=True):
                    assert isinstance(key, ast.Constant) and value is not None
                    cls = index.resolve(mod, value)
                    assert cls is not None, (mod.name, ast.dump(value))
                    rows.append(describe(index, key.value, cls))
    return sorted(rows, key=lambda r: r["name"])


def describe(index: Index, type_name: str, cls: ClassInfo) -> dict[str, Any]:
    client = None
    hit = index.lookup(cls, "default_client_name")
    if hit is not None:
        client = literal(index.modules[hit[0].module], hit[1])
        if isinstance(client, tuple):  # a module constant elsewhere (CLIENT_NAME)
            _, target, attr = client
            client = literal(index.modules[target], index.modules[target].constants[attr])
    status = ("SUPPORTED", None, None)
    hit = index.lookup(cls, "support_status")
    if hit is not None:
        status = support_status(index.modules[hit[0].module], hit[1], hit[0].attrs)
    extension = None
    hit = index.lookup(cls, "required_service_extension")
    if hit is not None:
        extension = literal(index.modules[hit[0].module], hit[1])
    return {"name": type_name, "client": client, "status": status[0], "version": status[1],
            "message": status[2], "extension": extension, "heat_class": cls.name,
            "placeholder": index.derives_from(cls, "NoneResource")}


HEADER = '''"""Every resource type Heat 27.0.1 registers, with what it needs of a cloud.

Generated by ``scripts/heat_types.py`` from Heat's source; do not edit by hand.

``HEAT_TYPES`` maps a type name to:

- ``client``: the service client Heat's plugin uses (its ``default_client_name``;
  None: the engine itself implements it, no cloud service is needed);
- ``status``, ``version``, ``message``: its support status as Heat reports it;
- ``extension``: a service extension the type requires (Neutron's ``trunk``...);
- ``heat_class``: the name of Heat's class, as Heat's texts name the type;
- ``placeholder``: Heat keeps the type only as a stand-in that does nothing (a
  retired service's: OS::Sahara::*, OS::Senlin::*...), so old stacks still load.

``CLIENT_SERVICES`` maps a client name to the catalog service types its
endpoint may be listed under (any one will do), and ``ADMIN_ONLY_TYPES`` lists
the ``resource_types:<type>`` policies Heat's defaults restrict to admins
(``OS::Keystone::*`` covers every type of that namespace).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hotplate.resources.support import Status

__all__ = ["ADMIN_ONLY_TYPES", "CLIENT_SERVICES", "HEAT_TYPES", "HeatType"]


@dataclass(frozen=True, slots=True)
class HeatType:
    client: str | None
    status: Status = Status.SUPPORTED
    version: str | None = None
    message: str | None = None
    extension: str | None = None
    heat_class: str = ""
    placeholder: bool = False

'''


def wrapped(text: str, width: int = 72) -> str:
    """A long string as parenthesised pieces, to keep lines short."""
    if len(text) <= width:
        return repr(text)
    pieces, line = [], ""
    for word in text.split(" "):
        if line and len(line) + len(word) + 1 > width:
            pieces.append(line + " ")
            line = word
        else:
            line = f"{line} {word}" if line else word
    pieces.append(line)
    inner = "\n            ".join(repr(p) for p in pieces)
    return f"(\n            {inner})"


def render() -> str:
    services = client_services([])
    lines = [HEADER]
    lines.append("CLIENT_SERVICES: Mapping[str, tuple[str, ...]] = {")
    for name, types in sorted(services.items()):
        lines.append(f"    {name!r}: {types!r},")
    lines.append("}\n")
    lines.append("ADMIN_ONLY_TYPES: frozenset[str] = frozenset({")
    for name in admin_only_types():
        lines.append(f"    {name!r},")
    lines.append("})\n")
    lines.append("_D, _H, _U = Status.DEPRECATED, Status.HIDDEN, Status.UNSUPPORTED\n")
    short = {"DEPRECATED": "_D", "HIDDEN": "_H", "UNSUPPORTED": "_U"}
    lines.append("HEAT_TYPES: Mapping[str, HeatType] = {")
    for row in resource_types():
        args = [repr(row["client"])]
        if row["status"] != "SUPPORTED":
            args.append(short[row["status"]])
        if row["version"] is not None:
            args.append(f"version={row['version']!r}")
        if row["message"] is not None:
            args.append(f"message={wrapped(row['message'])}")
        if row["extension"] is not None:
            args.append(f"extension={row['extension']!r}")
        args.append(f"heat_class={row['heat_class']!r}")
        if row["placeholder"] and row["heat_class"] != "NoneResource":
            args.append("placeholder=True")
        entry = f"    {row['name']!r}: HeatType({', '.join(args)}),"
        if len(entry) > 99 or "\n" in entry:
            inner = ",\n        ".join(args)
            entry = f"    {row['name']!r}: HeatType(\n        {inner}),"
        lines.append(entry)
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if the module differs from what would be written")
    args = parser.parse_args()
    text = render()
    if args.check:
        return 0 if OUTPUT.read_text() == text else 1
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A grammar of valid HOT templates, for hypothesis, with the model each one implies.

``templates()`` draws a template together with what it must mean: the
parameter values, the conditions' values, which resources exist, the
dependency graph and the attributes read. Tests then check hotplate's
reading of the template against this model.

How validity is kept by construction:

* every function gets arguments of the type it needs: expressions are
  drawn by the type they produce (text, list of text, map, boolean);
* a resource references only resources drawn before it (a DAG) and only
  unconditional ones, except inside ``if`` on the target's own condition,
  which is how templates reach an optional resource;
* parameter defaults and values satisfy the constraints drawn with them;
* the attributes a context reports are fixed (``ATTRIBUTES``), so a
  ``get_attr`` of ``text`` is text, of ``items`` a list, of ``mapping`` a map.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from hotplate.template import ALL_ATTRIBUTES

ATTRIBUTES: dict[str, Any] = {"text": "attr-text", "items": ["a", "b", "c"],
                              "mapping": {"k": "v", "n": "1"}}
"""What every resource reports in a generated stack (``get_attr: [r]`` reads all)."""

FILES = {"files/setup.sh": "#!/bin/sh\necho setup\n", "files/motd.txt": "hello"}
VERSIONS = ("2017-09-01", "pike", "2018-03-02", "queens", "2018-08-31", "rocky",
            "2021-04-16", "wallaby")
TYPES = ("OS::Heat::None", "OS::Heat::TestResource", "OS::Heat::RandomString",
         "OS::Heat::Value")
WORD = st.text(alphabet=string.ascii_lowercase + string.digits + "-_. é✓", min_size=1,
               max_size=8)
TOKEN = st.text(alphabet=string.ascii_lowercase + string.digits, min_size=1, max_size=6)
KEY = TOKEN.map(lambda token: f"k_{token}")
"""Mapping keys: never a function's name, so a one-key map stays data."""
MARKERS = ("%A%", "%B%", "<X>", "$y")

Read = tuple[str, str | None]
"""A reference: (resource, attribute), the attribute None for get_resource."""


@dataclass(frozen=True)
class Expr:
    """A snippet and the references it makes when resolved (``if``: the chosen branch)."""

    snippet: Any
    reads: frozenset[Read] = frozenset()


@dataclass
class Model:
    """A generated template and what it must mean."""

    template: dict[str, Any]
    user_params: dict[str, Any]
    values: dict[str, Any]
    """Every parameter's value once converted to its type."""
    enabled: list[str]
    edges: set[tuple[str, str]]
    """(requirer, required) among enabled resources."""
    attributes: dict[str, set[str]]
    """Per enabled resource, the attributes enabled resources and outputs read."""
    files: dict[str, str] = field(default_factory=lambda: dict(FILES))


class _Params:
    """Parameters by the type of their value, with their values."""

    def __init__(self) -> None:
        self.by_kind: dict[str, list[str]] = {"text": [], "list": [], "map": [], "number": [],
                                              "bool": []}
        self.values: dict[str, Any] = {}


def _merge_reads(*exprs: Expr) -> frozenset[Read]:
    return frozenset().union(*(e.reads for e in exprs))


class _Builder:
    """Draws one template; each method draws a piece of it (see the module docstring)."""

    def __init__(self, draw: Callable[..., Any]) -> None:
        self.draw = draw
        self.params = _Params()
        self.declared: dict[str, Any] = {}
        self.user: dict[str, Any] = {}
        self.conditions: dict[str, bool] = {}
        self.referable: list[str] = []
        self.optional: dict[str, str] = {}  # conditional resource -> its condition name

    # -- parameters --------------------------------------------------------------------
    def parameters(self) -> None:
        for i in range(self.draw(st.integers(0, 6))):
            kind = self.draw(st.sampled_from(("text", "list", "map", "number", "bool")))
            name = f"p{i}_{kind}"
            declaration, value, given = getattr(self, f"_param_{kind}")()
            self.declared[name] = declaration
            if given is not None:
                self.user[name] = given
            self.params.by_kind[kind].append(name)
            self.params.values[name] = value

    def _param_text(self) -> tuple[dict[str, Any], Any, Any]:
        default = self.draw(TOKEN)
        value = self.draw(st.one_of(st.none(), TOKEN))
        final = default if value is None else value
        declaration: dict[str, Any] = {"type": "string", "default": default, "constraints": [
            {"length": {"min": 1, "max": 6}}, {"allowed_pattern": "[a-z0-9]+"}]}
        if self.draw(st.booleans()):
            declaration["constraints"].append({"allowed_values": sorted({default, final})})
        return declaration, final, value

    def _param_list(self) -> tuple[dict[str, Any], Any, Any]:
        items = self.draw(st.lists(TOKEN, max_size=4))
        as_text = self.draw(st.booleans())
        given = self.draw(st.one_of(st.none(), st.just(",".join(items) if as_text else items)))
        declaration = {"type": "comma_delimited_list",
                       "default": self.draw(st.lists(TOKEN, max_size=3).map(",".join)),
                       "constraints": [{"length": {"max": 4}}]}
        final = items if given is not None else (
            declaration["default"].split(",") if declaration["default"] else [])
        return declaration, final, given

    def _param_map(self) -> tuple[dict[str, Any], Any, Any]:
        value = self.draw(st.dictionaries(TOKEN, TOKEN, max_size=3))
        return {"type": "json", "default": value}, value, None

    def _param_number(self) -> tuple[dict[str, Any], Any, Any]:
        step = self.draw(st.integers(1, 5))
        value = self.draw(st.integers(-50, 50))
        given = self.draw(st.sampled_from((None, value, str(value))))
        default = value if given is None else self.draw(st.integers(-50, 50))
        declaration = {"type": "number", "default": default, "constraints": [
            {"range": {"min": -50, "max": 50}},
            {"modulo": {"step": step, "offset": default % step}}]}
        if given is not None:  # the user value must satisfy the constraints too
            declaration["constraints"] = declaration["constraints"][:1]
        return declaration, value, given

    def _param_bool(self) -> tuple[dict[str, Any], Any, Any]:
        value = self.draw(st.booleans())
        spelled = self.draw(st.sampled_from(
            (value, str(value).lower(), ("yes" if value else "no"), ("on" if value else "off"))))
        return {"type": "boolean", "default": spelled}, value, None

    # -- conditions --------------------------------------------------------------------
    def condition_sections(self) -> dict[str, Any]:
        section: dict[str, Any] = {}
        for i in range(self.draw(st.integers(0, 4))):
            snippet, value = self.condition(2, top=True)
            section[f"c{i}"] = snippet
            self.conditions[f"c{i}"] = value
        return section

    def condition(self, depth: int, *, top: bool = False) -> tuple[Any, bool]:
        """A condition function (or name, or boolean) and its value.

        ``top``: a definition in the conditions section, which may not be a bare name.
        """
        options: list[str] = ["literal"]
        if self.conditions and not top:
            options.append("name")
        if self.params.by_kind["text"] or self.params.by_kind["number"]:
            options.append("equals")
        if self.params.by_kind["list"]:
            options.append("contains")
        if self.params.by_kind["number"]:
            options.append("yaql")
        if depth > 0:
            options += ["not", "and", "or"]
        choice = self.draw(st.sampled_from(options))
        if choice == "literal":
            value = self.draw(st.booleans())
            return value, value
        if choice == "name":
            name = self.draw(st.sampled_from(sorted(self.conditions)))
            return name, self.conditions[name]
        if choice == "equals":
            kind = "text" if self.params.by_kind["text"] else "number"
            name = self.draw(st.sampled_from(self.params.by_kind[kind]))
            actual = self.params.values[name]
            other = self.draw(st.sampled_from((actual, f"{actual}x")))
            return {"equals": [{"get_param": name}, other]}, actual == other
        if choice == "contains":
            name = self.draw(st.sampled_from(self.params.by_kind["list"]))
            item = self.draw(st.one_of(TOKEN, st.sampled_from(self.params.values[name] or ["z"])))
            return {"contains": [item, {"get_param": name}]}, item in self.params.values[name]
        if choice == "yaql":
            name = self.draw(st.sampled_from(self.params.by_kind["number"]))
            bound = self.draw(st.integers(-50, 50))
            return ({"yaql": {"expression": f"$.data.n > {bound}",
                              "data": {"n": {"get_param": name}}}},
                    self.params.values[name] > bound)
        if choice == "not":
            inner, value = self.condition(depth - 1)
            return {"not": inner}, not value
        parts = [self.condition(depth - 1) for _ in range(self.draw(st.integers(2, 3)))]
        values = [v for _, v in parts]
        result = all(values) if choice == "and" else any(values)
        return {choice: [p for p, _ in parts]}, result

    # -- expressions, by the type they produce -----------------------------------------
    def text(self, depth: int) -> Expr:
        leaves: list[Callable[[], Expr]] = [lambda: Expr(self.draw(WORD))]
        if self.params.by_kind["text"]:
            leaves.append(lambda: Expr({"get_param": self._param("text")}))
        if self.referable:
            leaves += [self._get_attr_text, self._get_resource]
        leaves.append(lambda: Expr({"get_file": self.draw(st.sampled_from(sorted(FILES)))}))
        if depth <= 0:
            leaf: Expr = self.draw(st.sampled_from(leaves))()
            return leaf
        nodes: list[Callable[[int], Expr]] = [
            self._list_join, self._str_replace, self._digest, self._yaql_text,
            self._str_split_index, self._make_url, self._if_text,
        ]
        if self.optional:
            nodes.append(lambda _: self._optional_attr())
        chosen = self.draw(st.sampled_from([*(lambda _, f=f: f() for f in leaves), *nodes]))
        expr: Expr = chosen(depth - 1)
        return expr

    def text_list(self, depth: int) -> Expr:
        leaves: list[Callable[[], Expr]] = [
            lambda: Expr(self.draw(st.lists(WORD, max_size=3)))]
        if self.params.by_kind["list"]:
            leaves.append(lambda: Expr({"get_param": self._param("list")}))
        if self.referable:
            leaves.append(lambda: self._get_attr(self._target(), "items"))
        if depth <= 0:
            leaf: Expr = self.draw(st.sampled_from(leaves))()
            return leaf
        nodes: list[Callable[[int], Expr]] = [
            self._list_of_texts, self._list_concat, self._filter, self._repeat,
            self._str_split, self._yaql_list, self._if_list,
        ]
        chosen = self.draw(st.sampled_from([*(lambda _, f=f: f() for f in leaves), *nodes]))
        expr: Expr = chosen(depth - 1)
        return expr

    def mapping(self, depth: int) -> Expr:
        leaves: list[Callable[[], Expr]] = [
            lambda: Expr(self.draw(st.dictionaries(KEY, WORD, max_size=3)))]
        if self.params.by_kind["map"]:
            leaves.append(lambda: Expr({"get_param": self._param("map")}))
        if self.referable:
            leaves += [lambda: self._get_attr(self._target(), "mapping"),
                       lambda: self._get_all(self._target())]
        if depth <= 0:
            leaf: Expr = self.draw(st.sampled_from(leaves))()
            return leaf
        nodes: list[Callable[[int], Expr]] = [self._map_of, self._map_merge, self._map_replace]
        chosen = self.draw(st.sampled_from([*(lambda _, f=f: f() for f in leaves), *nodes]))
        expr: Expr = chosen(depth - 1)
        return expr

    def boolean(self, depth: int) -> Expr:
        item, items = self.text(depth - 1), self.text_list(depth - 1)
        return Expr({"contains": [item.snippet, items.snippet]}, _merge_reads(item, items))

    def value(self, depth: int) -> Expr:
        kind = self.draw(st.sampled_from(("text", "text_list", "mapping", "boolean")))
        expr: Expr = getattr(self, kind)(depth)
        return expr

    # leaves
    def _param(self, kind: str) -> str:
        name: str = self.draw(st.sampled_from(self.params.by_kind[kind]))
        return name

    def _target(self) -> str:
        target: str = self.draw(st.sampled_from(self.referable))
        return target

    def _get_attr(self, target: str, attribute: str, *path: Any) -> Expr:
        return Expr({"get_attr": [target, attribute, *path]}, frozenset({(target, attribute)}))

    def _get_attr_text(self) -> Expr:
        target = self._target()
        form = self.draw(st.sampled_from(("text", "item", "key")))
        if form == "text":
            return self._get_attr(target, "text")
        if form == "item":
            return self._get_attr(target, "items", self.draw(st.integers(0, 2)))
        return self._get_attr(target, "mapping", "k")

    def _get_all(self, target: str) -> Expr:
        return Expr({"get_attr": [target]}, frozenset({(target, ALL_ATTRIBUTES)}))

    def _get_resource(self) -> Expr:
        target = self._target()
        return Expr({"get_resource": target}, frozenset({(target, None)}))

    def _optional_attr(self) -> Expr:
        """``if`` on an optional resource's own condition: its attribute, else a default."""
        target = self.draw(st.sampled_from(sorted(self.optional)))
        condition = self.optional[target]
        reads = frozenset({(target, "text")}) if self.conditions[condition] else frozenset()
        return Expr({"if": [condition, {"get_attr": [target, "text"]}, "absent"]}, reads)

    # text functions
    def _list_join(self, depth: int) -> Expr:
        lists = [self.text_list(depth) for _ in range(self.draw(st.integers(1, 2)))]
        delimiter = self.draw(st.sampled_from(("", ",", " - ", "\n")))
        return Expr({"list_join": [delimiter, *(e.snippet for e in lists)]}, _merge_reads(*lists))

    def _str_replace(self, depth: int) -> Expr:
        function = self.draw(st.sampled_from(
            ("str_replace", "str_replace_strict", "str_replace_vstrict")))
        keys = self.draw(st.lists(st.sampled_from(MARKERS), min_size=1, max_size=3, unique=True))
        body = self.text(depth)
        values = {}
        for key in keys:
            # vstrict refuses empty values: a literal word is never empty.
            values[key] = Expr(self.draw(WORD)) if function.endswith("vstrict") \
                else self.text(depth)
        template = {"list_join": ["", [body.snippet, " ", *keys]]}
        return Expr({function: {"template": template,
                                "params": {k: v.snippet for k, v in values.items()}}},
                    _merge_reads(body, *values.values()))

    def _digest(self, depth: int) -> Expr:
        algorithm = self.draw(st.sampled_from(("md5", "sha1", "sha256", "SHA512", "sha3_256")))
        # Heat digests Latin-1 bytes: generated text could fall outside it, so a literal.
        data = self.draw(st.text(st.characters(min_codepoint=32, max_codepoint=255,
                                               exclude_categories=("Cc", "Cs")),
                                 max_size=20))  # printable: YAML keeps it as it is
        return Expr({"digest": [algorithm, data]}, frozenset())

    def _yaql_text(self, depth: int) -> Expr:
        data = self.text(depth)
        return Expr({"yaql": {"expression": "$.data.s", "data": {"s": data.snippet}}}, data.reads)

    def _str_split_index(self, depth: int) -> Expr:
        data = self.text(depth)
        return Expr({"str_split": [",", data.snippet, 0]}, data.reads)

    def _make_url(self, depth: int) -> Expr:
        path = self.text(depth)
        return Expr({"make_url": {"scheme": "https", "host": self.draw(TOKEN),
                                  "port": self.draw(st.integers(1, 65535)),
                                  "path": path.snippet, "query": {"q": self.draw(WORD)}}},
                    path.reads)

    def _if_text(self, depth: int) -> Expr:
        return self._if(self.text(depth), self.text(depth))

    def _if(self, when_true: Expr, when_false: Expr) -> Expr:
        snippet, value = (self.draw(st.sampled_from(sorted(self.conditions))), None) \
            if self.conditions and self.draw(st.booleans()) else self.condition(1)
        chosen = self.conditions[snippet] if value is None else value
        return Expr({"if": [snippet, when_true.snippet, when_false.snippet]},
                    when_true.reads if chosen else when_false.reads)

    # list functions
    def _list_of_texts(self, depth: int) -> Expr:
        items = [self.text(depth) for _ in range(self.draw(st.integers(0, 3)))]
        return Expr([e.snippet for e in items], _merge_reads(*items))

    def _list_concat(self, depth: int) -> Expr:
        function = self.draw(st.sampled_from(("list_concat", "list_concat_unique")))
        parts = [self.text_list(depth) for _ in range(self.draw(st.integers(1, 3)))]
        return Expr({function: [p.snippet for p in parts]}, _merge_reads(*parts))

    def _filter(self, depth: int) -> Expr:
        values, items = self.text_list(depth), self.text_list(depth)
        return Expr({"filter": [values.snippet, items.snippet]}, _merge_reads(values, items))

    def _repeat(self, depth: int) -> Expr:
        items = self.text_list(depth)
        body = self.text(depth)
        arguments: dict[str, Any] = {
            "template": {"list_join": ["", [body.snippet, "<%v%>"]]},
            "for_each": {"<%v%>": items.snippet}}
        if self.draw(st.booleans()):
            arguments["permutations"] = True
        return Expr({"repeat": arguments}, _merge_reads(items, body))

    def _str_split(self, depth: int) -> Expr:
        data = self.text(depth)
        return Expr({"str_split": [self.draw(st.sampled_from((",", "-", "é"))), data.snippet]},
                    data.reads)

    def _yaql_list(self, depth: int) -> Expr:
        data = self.text_list(depth)
        return Expr({"yaql": {"expression": "$.data.l.distinct()",
                              "data": {"l": data.snippet}}}, data.reads)

    def _if_list(self, depth: int) -> Expr:
        return self._if(self.text_list(depth), self.text_list(depth))

    # map functions
    def _map_of(self, depth: int) -> Expr:
        entries = {self.draw(KEY): self.value(depth) for _ in range(self.draw(st.integers(0, 3)))}
        return Expr({k: e.snippet for k, e in entries.items()}, _merge_reads(*entries.values()))

    def _map_merge(self, depth: int) -> Expr:
        parts = [self.mapping(depth) for _ in range(self.draw(st.integers(1, 3)))]
        return Expr({"map_merge": [p.snippet for p in parts]}, _merge_reads(*parts))

    def _map_replace(self, depth: int) -> Expr:
        source = self.mapping(depth)
        values = self.draw(st.dictionaries(KEY, WORD, max_size=2))
        return Expr({"map_replace": [source.snippet, {"values": values}]}, source.reads)

    # -- resources and outputs ---------------------------------------------------------
    def resources(self) -> tuple[dict[str, Any], dict[str, set[Read]], dict[str, list[str]]]:
        section: dict[str, Any] = {}
        reads: dict[str, set[Read]] = {}
        depends: dict[str, list[str]] = {}
        for i in range(self.draw(st.integers(1, 7))):
            name = f"r{i}"
            entry, found, deps = self.resource(name, sorted(section))
            section[name] = entry
            reads[name] = found
            depends[name] = deps
            if "condition" in entry:
                self.optional[name] = entry["condition"]
            else:
                self.referable.append(name)
        return section, reads, depends

    def resource(self, name: str, before: list[str]) -> tuple[dict[str, Any], set[Read],
                                                              list[str]]:
        entry: dict[str, Any] = {"type": self.draw(st.sampled_from(TYPES))}
        depth = self.draw(st.integers(0, 3))
        properties = {f"prop{k}": self.value(depth) for k in range(self.draw(st.integers(0, 3)))}
        found: set[Read] = set(_merge_reads(*properties.values()))
        if properties:
            entry["properties"] = {k: e.snippet for k, e in properties.items()}
        if self.draw(st.booleans()):
            metadata = self.mapping(depth)
            entry["metadata"] = metadata.snippet
            found |= metadata.reads
        deps = self.draw(st.lists(st.sampled_from(before), max_size=3)) if before else []
        if deps:
            entry["depends_on"] = deps[0] if len(deps) == 1 and self.draw(st.booleans()) \
                else deps
        if self.conditions and self.draw(st.integers(0, 3)) == 0:
            entry["condition"] = self.draw(st.sampled_from(sorted(self.conditions)))
        if self.draw(st.booleans()):
            entry["deletion_policy"] = self.draw(st.sampled_from(
                ("Delete", "Retain", "delete", "retain")))
        return entry, found, deps

    def outputs(self) -> tuple[dict[str, Any], set[Read]]:
        section: dict[str, Any] = {}
        found: set[Read] = set()
        for i in range(self.draw(st.integers(0, 3))):
            expr = self.value(self.draw(st.integers(0, 2)))
            entry: dict[str, Any] = {"value": expr.snippet}
            enabled = True
            if self.conditions and self.draw(st.booleans()):
                entry["condition"] = self.draw(st.sampled_from(sorted(self.conditions)))
                enabled = self.conditions[entry["condition"]]
            if enabled:
                found |= expr.reads
            section[f"out{i}"] = entry
        return section, found


@st.composite
def templates(draw: Callable[..., Any]) -> Model:
    """A valid template (see the module docstring) and its ``Model``."""
    builder = _Builder(draw)
    builder.parameters()
    conditions = builder.condition_sections()
    resources, reads, depends = builder.resources()
    outputs, output_reads = builder.outputs()
    data: dict[str, Any] = {"heat_template_version": draw(st.sampled_from(VERSIONS))}
    if builder.declared:
        data["parameters"] = builder.declared
    if conditions:
        data["conditions"] = conditions
    data["resources"] = resources
    if outputs:
        data["outputs"] = outputs
    enabled = [n for n, e in resources.items()
               if "condition" not in e or builder.conditions[e["condition"]]]
    edges = {(name, target) for name in enabled for target, _ in reads[name]}
    edges |= {(name, dep) for name in enabled for dep in depends[name] if dep in enabled}
    attributes: dict[str, set[str]] = {name: set() for name in enabled}
    for source in [*(reads[n] for n in enabled), output_reads]:
        for target, attribute in source:
            if attribute is not None:
                attributes[target].add(attribute)
    return Model(data, builder.user, builder.params.values, enabled, edges, attributes)

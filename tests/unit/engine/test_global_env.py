"""The global environment directory: mappings for every stack, read at engine start."""

from __future__ import annotations

from pathlib import Path

import pytest

from hotplate.engine.deps import ResourceTypes
from hotplate.engine.global_env import load_global_environment
from hotplate.resources.none import NoneResource
from hotplate.resources.registry import Registry
from hotplate.resources.template_resource import TemplateResource
from hotplate.template import parse_environment

NESTED = "heat_template_version: 2021-04-16\nparameters: {size: {type: number}}\n"


def test_mappings_apply_after_the_stacks_own(tmp_path: Path) -> None:
    (tmp_path / "10-base.yaml").write_text(
        "resource_registry:\n  My::Thing: OS::Heat::None\n  My::Nested: nested.yaml\n")
    (tmp_path / "20-more.yaml").write_text(
        "resource_registry:\n  My::Other: OS::Heat::RandomString\n")
    (tmp_path / "nested.yaml").write_text(NESTED)  # a template beside them: not an env
    found = load_global_environment(tmp_path)
    assert [Path(p).name for p in found.sources] == ["10-base.yaml", "20-more.yaml"]
    types = ResourceTypes(Registry.default(), found)
    assert types.for_resource(None, "r", "My::Thing") is NoneResource
    assert types.for_resource(None, "r", "My::Other").__name__ == "RandomString"
    nested = types.for_resource(None, "r", "My::Nested")
    assert issubclass(nested, TemplateResource)
    assert set(nested.properties_schema) == {"size"}
    own = parse_environment({"resource_registry": {"My::Thing": "OS::Heat::Value"}})
    assert types.for_resource(own, "r", "My::Thing").__name__ == "Value"


def test_no_directory_changes_nothing() -> None:
    types = ResourceTypes(Registry.default(), load_global_environment(None))
    assert types.for_resource(None, "r", "OS::Heat::None") is NoneResource


def test_a_broken_file_stops_the_start_naming_it(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("resource_registry: [1, 2]\n")
    with pytest.raises(ValueError, match=r"bad\.yaml"):
        load_global_environment(tmp_path)
    (tmp_path / "bad.yaml").write_text("resource_registry: {My::X: missing.yaml}\n")
    with pytest.raises(ValueError, match=r"missing\.yaml"):
        load_global_environment(tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        load_global_environment(tmp_path / "nowhere")


def test_an_engine_reads_it_at_start(tmp_path: Path) -> None:
    from hotplate.app import embedded
    from hotplate.engine.options import EngineOptions

    envdir = tmp_path / "environment.d"
    envdir.mkdir()
    (envdir / "site.yaml").write_text("resource_registry:\n  Site::Thing: OS::Heat::None\n")
    assert EngineOptions.from_environ(
        {"HOTPLATE_ENVIRONMENT_DIR": str(envdir)}).environment_dir == str(envdir)
    engine, transport = embedded(f"sqlite:///{tmp_path}/g.sqlite", workers=2,
                                 options=EngineOptions(environment_dir=str(envdir)))
    try:
        body = {"heat_template_version": "2021-04-16",
                "resources": {"t": {"type": "Site::Thing"}}}
        ctxt = {"project_id": "demo", "username": "demo", "is_admin": False}
        sid = engine.service.create_stack(ctxt, "g", body, {}, {}, {})["stack_id"]
        assert transport.join(timeout=30)
        stack = engine.store.get_stack(sid)
        assert stack is not None and (stack.action, stack.status) == ("CREATE", "COMPLETE")
    finally:
        transport.stop()

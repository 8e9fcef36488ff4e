"""Provider template classes: schemas per environment, and which type changes keep a resource."""

from hotplate.engine.template_types import TemplateTypes
from hotplate.engine.worker.update_checks import same_implementation
from hotplate.resources.none import NoneResource
from hotplate.resources.value import Value

NESTED = """
heat_template_version: 2013-05-23
parameters:
  length: {type: string}
  size: {type: number, default: 3}
"""
FILES = {"nested.yaml": NESTED, "other.yaml": NESTED}


def test_properties_have_no_defaults_and_parameter_defaults_lift_required() -> None:
    types = TemplateTypes()
    plain = types.for_file("nested.yaml", FILES)
    assert plain.properties_schema["length"].required
    assert not plain.properties_schema["size"].required
    assert plain.properties_schema["size"].default is None
    covered = types.for_file("nested.yaml", FILES, {"length": 12, "unrelated": 1})
    assert not covered.properties_schema["length"].required
    # One class per set of parameters the environment covers, kept.
    assert types.for_file("nested.yaml", FILES, {"length": 7}) is covered
    assert types.for_file("nested.yaml", FILES, {"size": 7}) is plain
    assert types.for_file("nested.yaml", FILES, {"length": None}) is plain


def test_any_provider_template_is_one_implementation_as_in_heat() -> None:
    types = TemplateTypes()
    one, other = types.for_file("nested.yaml", FILES), types.for_file("other.yaml", FILES)
    assert same_implementation(one, other)
    assert same_implementation(Value, Value)
    assert not same_implementation(Value, NoneResource)
    assert not same_implementation(one, Value)

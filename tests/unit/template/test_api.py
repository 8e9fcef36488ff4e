import hotplate.graph
import hotplate.template


def test_template_exports() -> None:
    assert sorted(hotplate.template.__all__) == [
        "ALL_ATTRIBUTES",
        "Environment",
        "HotVersion",
        "InvalidSchemaError",
        "InvalidTemplateReference",
        "OutputDefinition",
        "PSEUDO_PARAMETERS",
        "ParameterSchema",
        "ResolveContext",
        "ResourceDefinition",
        "ResourceOverrides",
        "ResourceRegistry",
        "TEMPLATE_VERSIONS",
        "Template",
        "TemplateVersion",
        "VERSIONS",
        "merge_environments",
        "parse_environment",
        "parse_template",
        "resolve_parameters",
        "version_key",
    ]
    for name in hotplate.template.__all__:
        assert hasattr(hotplate.template, name)


def test_graph_exports() -> None:
    assert sorted(hotplate.graph.__all__) == ["CycleError", "Graph"]


def test_errors_are_validation_failures() -> None:
    from hotplate.model.errors import StackValidationFailed

    assert issubclass(hotplate.template.InvalidTemplateReference, StackValidationFailed)
    assert issubclass(hotplate.template.InvalidSchemaError, StackValidationFailed)

from typing import Any

import pytest

from hotplate.model.errors import (
    InvalidTemplateSection,
    InvalidTemplateVersion,
    StackValidationFailed,
)
from hotplate.template import (
    TEMPLATE_VERSIONS,
    VERSIONS,
    HotVersion,
    TemplateVersion,
    parse_template,
    version_key,
)
from hotplate.template.function_listing import describe, listed_functions
from hotplate.template.versions import find_version_label
from tests.unit.template.fakes import FakeContext, resolve_web

BY_NAME = {
    "newton": "2016-10-14",
    "ocata": "2017-02-24",
    "pike": "2017-09-01",
    "queens": "2018-03-02",
    "rocky": "2018-08-31",
    "wallaby": "2021-04-16",
}
DATES = [
    "2013-05-23", "2014-10-16", "2015-04-30", "2015-10-15", "2016-04-08", "2016-10-14",
    "2017-02-24", "2017-09-01", "2018-03-02", "2018-08-31", "2021-04-16",
]
AVAILABLE = ", ".join([*DATES, "newton", "ocata", "pike", "queens", "rocky", "wallaby"])


@pytest.mark.parametrize("date", DATES)
def test_every_date_is_accepted_in_yaml_unquoted(date: str) -> None:
    assert parse_template(f"heat_template_version: {date}\n").version == date


@pytest.mark.parametrize(("name", "date"), BY_NAME.items())
def test_release_names_map_to_dates(name: str, date: str) -> None:
    template = parse_template({"heat_template_version": name})
    assert template.version == date
    assert template.to_dict() == {"heat_template_version": name}


def test_the_table_lists_every_version() -> None:
    assert [v.date for v in VERSIONS] == DATES


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"heat_template_version": "2012-01-01"},
         'The template version is invalid: "heat_template_version: 2012-01-01". '
         f'"heat_template_version" should be one of: {AVAILABLE}'),
        ({"description": "no version"},
         "The template version is invalid: Template version was not provided"),
        ({"heat_template_version": 20130523},
         "The template version is invalid: Template version was not provided"),
        ({"heat_template_version": "2013-05-23", "HeatTemplateFormatVersion": "2012-12-12"},
         "The template version is invalid: Ambiguous versions "
         "(HeatTemplateFormatVersion, heat_template_version)"),
        ({"AWSTemplateFormatVersion": "2012-12-12"},
         'The template version is invalid: "AWSTemplateFormatVersion: 2012-12-12". '
         '"AWSTemplateFormatVersion" should be: 2010-09-09'),
        ({"HeatTemplateFormatVersion": "2010-09-09"},
         'The template version is invalid: "HeatTemplateFormatVersion: 2010-09-09". '
         '"HeatTemplateFormatVersion" should be: 2012-12-12'),
        ({"AWSTemplateFormatVersion": "2010-09-09", "HeatTemplateFormatVersion": "2012-12-12"},
         "The template version is invalid: Ambiguous versions "
         "(AWSTemplateFormatVersion, HeatTemplateFormatVersion)"),
    ],
)
def test_bad_versions(data: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidTemplateVersion) as info:
        parse_template(data)
    assert str(info.value) == message


def test_text_without_any_version_key() -> None:
    with pytest.raises(InvalidTemplateVersion) as info:
        parse_template("resources: {}\n")
    assert str(info.value) == "Template format version not found."


@pytest.mark.parametrize(
    ("version", "section"),
    [("2021-04-16", "Resources"), ("2016-04-08", "conditions"), ("2013-05-23", "mappings")],
)
def test_unknown_sections(version: str, section: str) -> None:
    with pytest.raises(InvalidTemplateSection) as info:
        parse_template({"heat_template_version": version, section: {}})
    assert str(info.value) == f"The template section is invalid: {section}"
    assert info.value.path == (section,)


def test_every_section_of_a_recent_version() -> None:
    template = parse_template(
        {
            "heat_template_version": "2016-10-14",
            "description": "all sections",
            "parameter_groups": [{"label": "g", "parameters": ["p"]}],
            "parameters": {"p": {"type": "string", "default": "x"}},
            "resources": {},
            "outputs": {},
            "conditions": {"never": False},
        }
    )
    assert template.description == "all sections"
    assert template.parameter_groups == [{"label": "g", "parameters": ["p"]}]
    assert dict(template.conditions) == {"never": False}


def test_missing_description_reads_as_heat_says() -> None:
    assert parse_template({"heat_template_version": "2013-05-23"}).description == "No description"


CFN_FUNCTIONS = [
    "Fn::Select", "Fn::Join", "Fn::Split", "Fn::Replace", "Fn::Base64", "Fn::GetAZs",
    "Fn::MemberListToMap", "Fn::ResourceFacade", "Ref",
]
REMOVED_IN_2014 = [name for name in CFN_FUNCTIONS if name != "Fn::Select"]
CALLS: dict[str, Any] = {
    "Fn::Select": {"Fn::Select": [1, ["a", "b"]]},
    "Fn::Join": {"Fn::Join": [",", ["a", "b"]]},
    "Fn::Split": {"Fn::Split": [",", "a,b"]},
    "Fn::Replace": {"Fn::Replace": [{"$x": "a"}, "$x,b"]},
    "Fn::Base64": {"Fn::Base64": "a,b"},
    "Fn::GetAZs": {"Fn::GetAZs": ""},
    "Fn::MemberListToMap": {"Fn::MemberListToMap": ["K", "V", [".member.0.K=a", ".member.0.V=b"]]},
    "Ref": {"Ref": "db"},
}


@pytest.mark.parametrize("name", CFN_FUNCTIONS)
def test_2013_05_23_evaluates_its_cfn_functions(name: str) -> None:
    functions = VERSIONS[0].functions
    assert functions[name].__name__ not in ("Unsupported", "Removed")
    if name in CALLS:
        ctx = FakeContext(refs={"db": "db-id"})
        resolved = resolve_web({"a": CALLS[name]}, ctx, version="2013-05-23")["a"]
        assert resolved not in (None, CALLS[name])


@pytest.mark.parametrize("name", REMOVED_IN_2014)
@pytest.mark.parametrize("date", ["2014-10-16", "2015-04-30", "2021-04-16"])
def test_later_versions_refuse_the_removed_cfn_functions(name: str, date: str) -> None:
    with pytest.raises(StackValidationFailed) as info:  # when validated, as Heat
        resolve_web({"a": {name: "x"}}, version=date)
    assert info.value.detail == (
        f"The template version is invalid: The function {name} is not supported in this "
        "version of HOT."
    )
    assert info.value.path == ("resources", "web", "properties", "a", name)


def test_fn_select_lasts_until_2015_10_15() -> None:
    for date in ("2014-10-16", "2015-04-30"):
        assert resolve_web({"a": CALLS["Fn::Select"]}, version=date) == {"a": "b"}
    with pytest.raises(StackValidationFailed, match="not supported in this version"):
        resolve_web({"a": CALLS["Fn::Select"]}, version="2015-10-15")


def test_cfn_versions_parse() -> None:
    assert parse_template("AWSTemplateFormatVersion: 2010-09-09\n").version == "2010-09-09"
    assert parse_template('{"HeatTemplateFormatVersion": "2012-12-12"}').version == "2012-12-12"


def test_every_version_is_listed_as_heat_lists_them() -> None:
    listed = [(v.label, v.kind, v.aliases) for v in TEMPLATE_VERSIONS]
    assert listed[:3] == [
        ("AWSTemplateFormatVersion.2010-09-09", "cfn", ()),
        ("HeatTemplateFormatVersion.2012-12-12", "cfn", ()),
        ("heat_template_version.2013-05-23", "hot", ()),
    ]
    assert ("heat_template_version.2016-10-14", "hot",
            ("heat_template_version.newton",)) in listed
    assert len(listed) == len(VERSIONS) + 2


def test_versions_by_label_and_alias() -> None:
    newton = find_version_label("heat_template_version.newton")
    assert newton is find_version_label("heat_template_version.2016-10-14")
    assert newton is not None and newton.date == "2016-10-14"
    assert find_version_label("heat_template_version.2012-12-12") is None
    assert HotVersion is TemplateVersion


@pytest.mark.parametrize(
    ("date", "key"),
    [("2010-09-09", "AWSTemplateFormatVersion"), ("2012-12-12", "HeatTemplateFormatVersion"),
     ("2013-05-23", "heat_template_version"), ("2021-04-16", "heat_template_version")],
)
def test_version_key_of_a_date(date: str, key: str) -> None:
    assert version_key(date) == key


def test_listed_functions_leave_out_removed_ones() -> None:
    by_label = {v.label: v for v in TEMPLATE_VERSIONS}
    hot2013 = dict(listed_functions(by_label["heat_template_version.2013-05-23"]))
    assert set(CFN_FUNCTIONS) <= set(hot2013)
    assert hot2013["get_param"] == describe(VERSIONS[0].functions["get_param"])
    assert all(hot2013.values())
    wallaby = dict(listed_functions(by_label["heat_template_version.2021-04-16"]))
    assert not set(CFN_FUNCTIONS) & set(wallaby)
    assert "equals" not in wallaby
    with_conditions = dict(
        listed_functions(by_label["heat_template_version.2021-04-16"], with_conditions=True)
    )
    assert {"equals", "not", "and", "or", "contains"} <= set(with_conditions)
    aws = dict(listed_functions(by_label["AWSTemplateFormatVersion.2010-09-09"],
                                with_conditions=True))
    assert {"Fn::If", "Fn::Equals", "Fn::Not", "Fn::FindInMap", "Fn::GetAtt"} <= set(aws)
    heat = dict(listed_functions(by_label["HeatTemplateFormatVersion.2012-12-12"],
                                 with_conditions=True))
    assert "Fn::If" not in heat and "Fn::Equals" not in heat

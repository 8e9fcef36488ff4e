from typing import Any

import pytest

from hotplate.model.errors import InvalidTemplateSection, InvalidTemplateVersion
from hotplate.template import VERSIONS, parse_template

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
        ({"AWSTemplateFormatVersion": "2010-09-09"},
         'The template version is invalid: "AWSTemplateFormatVersion: 2010-09-09". '
         'Only "heat_template_version" templates are supported'),
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

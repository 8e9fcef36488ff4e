"""The adopt document's helpers: a child's adopt request, parameters, the self-adopting types."""

from __future__ import annotations

import json

from hotplate.engine.hosting.adopt import (
    AdoptsItself,
    child_adopt_request,
    resource_entry,
    with_adopt_data,
    with_adopt_parameters,
)
from hotplate.resources.resource_chain import ResourceChain
from hotplate.resources.resource_group import ResourceGroup
from hotplate.resources.stack_resource import StackResource
from hotplate.resources.template_resource import TemplateResource
from hotplate.resources.test_resource import TestResource

CHILD = {"heat_template_version": "2015-04-30", "resources": {"0": {"type": "OS::Heat::None"}}}
ENV = {"parameters": {"one": "given"}, "parameter_defaults": {}, "resource_registry": {}}


def test_a_child_request_gets_the_childs_template_and_environment_when_missing() -> None:
    entry = {"resources": {"0": {"resource_id": "x"}}}
    data = json.loads(child_adopt_request(entry, CHILD, ENV))
    assert data == {"resources": {"0": {"resource_id": "x"}}, "template": CHILD,
                    "environment": ENV}
    assert "template" not in entry  # the parent's document is left as it was


def test_a_child_request_keeps_the_entrys_own_template_and_environment() -> None:
    entry = {"resources": {}, "template": {"abandoned": True},
             "environment": {"parameters": {"one": "old"}}}
    data = json.loads(child_adopt_request(entry, CHILD, ENV))
    assert data["template"] == {"abandoned": True}
    assert data["environment"] == {"parameters": {"one": "old"}}


def test_parameters_of_the_document_come_back_under_the_requests() -> None:
    data = {"environment": {"parameters": {"one": "old", "two": "old"}}}
    assert with_adopt_parameters(ENV, data)["parameters"] == {"one": "given", "two": "old"}
    assert with_adopt_parameters({}, data) == {"parameters": {"one": "old", "two": "old"}}


def test_a_document_without_parameters_leaves_the_environment_alone() -> None:
    for data in ({}, {"environment": {}}, {"environment": "text"},
                 {"environment": {"parameters": {}}}):
        assert with_adopt_parameters(ENV, data) == ENV


def test_entries_are_read_from_the_hidden_file() -> None:
    files = with_adopt_data({"a.yaml": "x"}, {"resources": {"r": {"resource_id": "1"}}})
    assert resource_entry(files, "r") == {"resource_id": "1"}
    assert resource_entry(files, "other") is None
    assert resource_entry({"a.yaml": "x"}, "r") is None


def test_only_heats_self_adopting_types_adopt_through_their_child() -> None:
    assert issubclass(TemplateResource, AdoptsItself)
    assert issubclass(ResourceGroup, AdoptsItself)
    for plain in (TestResource, ResourceChain, StackResource):
        assert not issubclass(plain, AdoptsItself)

"""OS::Heat::SoftwareDeploymentGroup and OS::Heat::StructuredDeploymentGroup.

A ResourceGroup whose members are deployments, one per entry of ``servers``
(a map of member name to server id): the member named ``web1`` deploys the
config to ``servers.web1``. Every other property is each member's. The
group's attributes are maps of member name to the member's attribute:
``deploy_stdouts``, ``deploy_stderrs``, ``deploy_status_codes``, and any
attribute a deployment has (its config's outputs included). A
``rolling_update`` policy replaces ``max_batch_size`` members at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hotplate.resources import resource_group as rg
from hotplate.resources import software_deployment as sd
from hotplate.resources.attributes import Attribute
from hotplate.resources.base import select_path
from hotplate.resources.group_steps import Apply, Steps
from hotplate.resources.properties import Schema, with_defaults
from hotplate.resources.structured_deployment import STRUCTURED_PROPERTIES
from hotplate.resources.support import Status, SupportStatus

__all__ = ["SoftwareDeploymentGroup", "SoftwareDeployments", "StructuredDeploymentGroup",
           "StructuredDeployments"]

SERVERS = "servers"
STDOUTS, STDERRS, STATUS_CODES = "deploy_stdouts", "deploy_stderrs", "deploy_status_codes"
MEMBER_ATTRIBUTE = {STDOUTS: sd.STDOUT, STDERRS: sd.STDERR, STATUS_CODES: sd.STATUS_CODE}


class SoftwareDeploymentGroup(rg.ResourceGroup):
    """This resource associates a group of servers with some configuration.

    The configuration is to be deployed to all servers in the group.

    The properties work in a similar way to OS::Heat::SoftwareDeployment,
    and in addition to the attributes documented, you may pass any
    attribute supported by OS::Heat::SoftwareDeployment, including those
    exposing arbitrary outputs, and return a map of deployment names to
    the specified attribute.
    """

    member_type = "OS::Heat::SoftwareDeployment"
    support_status = SupportStatus(version="5.0.0")
    properties_schema = {
        SERVERS: Schema(Schema.MAP, "A map of names and server IDs to apply configuration "
                        "to. The name is arbitrary and is used as the Heat resource name for "
                        "the corresponding deployment.", update_allowed=True, required=True),
        **{key: schema for key, schema in sd.DEPLOYMENT_PROPERTIES.items()},
    }
    attributes_schema = {
        STDOUTS: Attribute("A map of Nova names and captured stdouts from the configuration "
                           "execution to each server.", Attribute.MAP),
        STDERRS: Attribute("A map of Nova names and captured stderrs from the configuration "
                           "execution to each server.", Attribute.MAP),
        STATUS_CODES: Attribute("A map of Nova names and returned status code from the "
                                "configuration execution.", Attribute.MAP),
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._counted()

    # -- members: one per server ------------------------------------------------------
    def _skiplist(self) -> list[str]:
        return []

    def _update_skiplist(self) -> None:
        return None

    def _servers(self) -> dict[str, Any]:
        return dict(self.properties.get(SERVERS) or {})

    def _names(self, size: int | None = None) -> list[str]:
        names = [str(name) for name in self._servers()]
        return names if size is None else names[:size]

    def _counted(self) -> None:
        """The base group's ``count`` is the number of servers."""
        self.properties[rg.COUNT] = len(self._servers())

    def member_definition(self, name: str) -> dict[str, Any]:
        props = {key: value for key, value in self.properties.items()
                 if key in self.properties_schema and key != SERVERS and value is not None}
        props[sd.SERVER] = self._servers().get(name)
        return {"type": self.member_type, "properties": props}

    @classmethod
    def validation_template(cls, properties: Mapping[str, Any]) -> dict[str, Any] | None:
        props = with_defaults(cls.properties_schema, properties)
        servers = props.get(SERVERS) or {}
        if not servers:
            return None
        group = cls.__new__(cls)
        group.properties = props
        first = str(next(iter(servers)))
        return group._template([(first, group.member_definition(first))])

    def handle_create(self) -> Any:
        self._counted()
        return super().handle_create()

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        """Every change reaches the members (Heat's ``res_def_changed`` is always true);
        a rolling_update policy replaces them ``max_batch_size`` at a time."""
        self.properties = with_defaults(self.properties_schema, new_properties)
        self._counted()
        policy = self._policy(rg.ROLLING_UPDATE)
        if policy is not None and self.resource_id is not None:
            steps = self._batched(0, rg._int(policy, rg.MAX_BATCH_SIZE, 1),
                                  rg._number(policy, rg.PAUSE_TIME))
        else:
            steps = Steps([Apply(self.child_template)])
        steps.advance(self)
        return steps

    # -- attributes: maps of member name to the member's attribute ---------------------
    def get_attribute(self, name: str) -> Any:
        if name == "show":
            return super().get_attribute(name)
        member = MEMBER_ATTRIBUTE.get(name, name)
        return {n: self._member_attribute(n, member) for n in self._names()}

    def get_attribute_path(self, name: str, path: tuple[Any, ...]) -> Any:
        return select_path(self.get_attribute(name), path)

    def _resolve_attribute(self, name: str) -> Any:
        return self.get_attribute(name)


class StructuredDeploymentGroup(SoftwareDeploymentGroup):
    """This resource associates a group of servers with some configuration.

    This resource works similar as OS::Heat::SoftwareDeploymentGroup, but for
    structured resources.
    """

    member_type = "OS::Heat::StructuredDeployment"
    support_status = SupportStatus(version="5.0.0")
    properties_schema = {**SoftwareDeploymentGroup.properties_schema, **STRUCTURED_PROPERTIES}


def _hidden(substitute: str, cls: type) -> SupportStatus:
    return SupportStatus(status=Status.HIDDEN, version="7.0.0",
                         message=f"Please use {substitute} instead.",
                         previous_status=SupportStatus(status=Status.DEPRECATED,
                                                       version="2014.2"),
                         substitute_class=cls)


class SoftwareDeployments(SoftwareDeploymentGroup):
    """The old name of OS::Heat::SoftwareDeploymentGroup (hidden, still accepted)."""

    support_status = _hidden("OS::Heat::SoftwareDeploymentGroup", SoftwareDeploymentGroup)


class StructuredDeployments(StructuredDeploymentGroup):
    """The old name of OS::Heat::StructuredDeploymentGroup (hidden, still accepted)."""

    support_status = _hidden("OS::Heat::StructuredDeploymentGroup", StructuredDeploymentGroup)

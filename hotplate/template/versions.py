"""Every template version Heat accepts, HOT and CFN, and what each one allows.

One ``TemplateVersion`` per version: the key that declares it
(``heat_template_version``, ``AWSTemplateFormatVersion``,
``HeatTemplateFormatVersion``), its sections and how it spells them,
resource and output keys, deletion policies, parameter schema keys, pseudo
parameters, and its function tables (``function_tables``)::

    kind  key                          versions
    hot   heat_template_version        2013-05-23 ... 2021-04-16, and release
                                       names newton ... wallaby as aliases
    cfn   AWSTemplateFormatVersion     2010-09-09 (with Conditions)
    cfn   HeatTemplateFormatVersion    2012-12-12

What the versions listing of an API needs is here too: ``TEMPLATE_VERSIONS``
in Heat's order, each with its ``label``, ``kind`` and ``aliases``
(``function_listing`` lists one version's functions as Heat describes them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from hotplate.model.errors import InvalidTemplateVersion
from hotplate.template import function_tables as ft
from hotplate.template.functions import (
    CFN_PSEUDO_PARAMETERS,
)
from hotplate.template.spelling import CFN_SPELLING, HOT_SPELLING, Spelling

VERSION_KEY = "heat_template_version"
AWS_VERSION_KEY = "AWSTemplateFormatVersion"
HEAT_VERSION_KEY = "HeatTemplateFormatVersion"
CFN_VERSION_KEYS = (AWS_VERSION_KEY, HEAT_VERSION_KEY)
VERSION_KEYS = (VERSION_KEY, *CFN_VERSION_KEYS)

HOT = "hot"
CFN = "cfn"

HOT_PSEUDO_PARAMETERS = ("OS::stack_id", "OS::stack_name", "OS::project_id")
"""Supplied by the engine for every stack; HOT's ``get_param`` may always name them."""

FunctionTable = ft.FunctionTable


@dataclass(frozen=True, slots=True)
class TemplateVersion:
    date: str
    name: str | None
    functions: FunctionTable
    condition_functions: FunctionTable
    """What a condition may use; every other function is ``Invalid`` there."""
    sections: frozenset[str]
    resource_keys: tuple[str, ...]
    output_keys: tuple[str, ...]
    deletion_policies: Mapping[str, str]
    parameter_keys: tuple[str, ...]
    modulo_constraint: bool
    key: str = VERSION_KEY
    """The top-level key that declares this version."""
    kind: str = HOT
    """``hot`` or ``cfn``, as Heat's template versions listing says."""
    spelling: Spelling = HOT_SPELLING
    pseudo_parameters: tuple[str, ...] = HOT_PSEUDO_PARAMETERS
    strict_keys: bool = True
    """Unknown keys in resources and outputs are refused (HOT); CFN ignores them, as Heat."""

    @property
    def has_conditions(self) -> bool:
        return self.spelling.conditions in self.sections

    @property
    def label(self) -> str:
        """Heat's name for the version: ``heat_template_version.2016-10-14``."""
        return f"{self.key}.{self.date}"

    @property
    def aliases(self) -> tuple[str, ...]:
        """Other names for it: ``heat_template_version.newton``."""
        return () if self.name is None else (f"{self.key}.{self.name}",)


HotVersion = TemplateVersion
"""The earlier name, from when only HOT was parsed."""

_HOT_SECTIONS = frozenset(
    {VERSION_KEY, "description", "parameter_groups", "parameters", "resources", "outputs"}
)
_HOT_RESOURCE_KEYS = (
    "type", "properties", "metadata", "depends_on", "deletion_policy", "update_policy",
    "description",
)
_POLICIES = MappingProxyType({"Delete": "Delete", "Retain": "Retain", "Snapshot": "Snapshot"})
_POLICIES_2016 = MappingProxyType(
    {**_POLICIES, "delete": "Delete", "retain": "Retain", "snapshot": "Snapshot"}
)
_HOT_PARAMETER_KEYS = (
    "type", "description", "default", "schema", "constraints", "hidden", "label", "immutable",
)


def _hot(
    date: str,
    name: str | None,
    functions: FunctionTable,
    conditions: FunctionTable = ft.NO_FUNCTIONS,
) -> TemplateVersion:
    newton = date >= "2016-10-14"
    return TemplateVersion(
        date=date,
        name=name,
        functions=functions,
        condition_functions=conditions,
        sections=(_HOT_SECTIONS | {"conditions"}) if newton else _HOT_SECTIONS,
        resource_keys=(
            (*_HOT_RESOURCE_KEYS, "external_id", "condition") if newton else _HOT_RESOURCE_KEYS
        ),
        output_keys=("description", "value", "condition") if newton else ("description", "value"),
        deletion_policies=_POLICIES_2016 if newton else _POLICIES,
        parameter_keys=(
            (*_HOT_PARAMETER_KEYS, "tags") if date >= "2018-03-02" else _HOT_PARAMETER_KEYS
        ),
        modulo_constraint=date >= "2017-02-24",
    )


VERSIONS: tuple[TemplateVersion, ...] = (
    _hot("2013-05-23", None, ft.F20130523),
    _hot("2014-10-16", None, ft.F20141016),
    _hot("2015-04-30", None, ft.F20150430),
    _hot("2015-10-15", None, ft.F20151015),
    _hot("2016-04-08", None, ft.F20160408),
    _hot("2016-10-14", "newton", ft.F20161014, ft.C20161014),
    _hot("2017-02-24", "ocata", ft.F20170224, ft.C20170224),
    _hot("2017-09-01", "pike", ft.F20170901, ft.C20170901),
    _hot("2018-03-02", "queens", ft.F20170901, ft.C20170901),
    _hot("2018-08-31", "rocky", ft.F20170901, ft.C20170901),
    _hot("2021-04-16", "wallaby", ft.F20210416, ft.C20210416),
)
"""The HOT versions, oldest first."""

_CFN_SECTIONS = frozenset(
    {*CFN_VERSION_KEYS, "Description", "Mappings", "Parameters", "Resources", "Outputs"}
)
_CFN_RESOURCE_KEYS = (
    "Type", "Properties", "Metadata", "DependsOn", "DeletionPolicy", "UpdatePolicy",
    "Description",
)
CFN_PARAMETER_KEYS = (
    "Type", "Default", "NoEcho", "AllowedValues", "AllowedPattern", "MaxLength", "MinLength",
    "MaxValue", "MinValue", "Description", "ConstraintDescription", "Label",
)


def _cfn(
    key: str, date: str, functions: FunctionTable, conditions: FunctionTable
) -> TemplateVersion:
    with_conditions = bool(conditions)
    extra = ("Condition",) if with_conditions else ()
    return TemplateVersion(
        date=date,
        name=None,
        functions=functions,
        condition_functions=conditions,
        sections=(_CFN_SECTIONS | {"Conditions"}) if with_conditions else _CFN_SECTIONS,
        resource_keys=(*_CFN_RESOURCE_KEYS, *extra),
        output_keys=("Description", "Value", *extra),
        deletion_policies=_POLICIES,
        parameter_keys=CFN_PARAMETER_KEYS,
        modulo_constraint=False,
        key=key,
        kind=CFN,
        spelling=CFN_SPELLING,
        pseudo_parameters=CFN_PSEUDO_PARAMETERS,
        strict_keys=False,
    )


CFN_VERSIONS: tuple[TemplateVersion, ...] = (
    _cfn(AWS_VERSION_KEY, "2010-09-09", ft.AWS_20100909, ft.AWS_CONDITIONS_20100909),
    _cfn(HEAT_VERSION_KEY, "2012-12-12", ft.HEAT_20121212, ft.NO_FUNCTIONS),
)

TEMPLATE_VERSIONS: tuple[TemplateVersion, ...] = tuple(
    sorted((*CFN_VERSIONS, *VERSIONS), key=lambda v: v.label)
)
"""Every version, in the order Heat lists them (by label: CFN first, then HOT by date)."""

_BY_KEY: Mapping[str, Mapping[str, TemplateVersion]] = MappingProxyType(
    {
        key: MappingProxyType(
            {
                label: v
                for v in TEMPLATE_VERSIONS
                if v.key == key
                for label in (v.date, v.name)
                if label is not None
            }
        )
        for key in VERSION_KEYS
    }
)
_BY_DATE: Mapping[str, TemplateVersion] = MappingProxyType(
    {v.date: v for v in TEMPLATE_VERSIONS}
)
_BY_LABEL: Mapping[str, TemplateVersion] = MappingProxyType(
    {label: v for v in TEMPLATE_VERSIONS for label in (v.label, *v.aliases)}
)


def _invalid(explanation: str) -> InvalidTemplateVersion:
    return InvalidTemplateVersion(f"The template version is invalid: {explanation}")


def find_version(template: Mapping[str, Any]) -> TemplateVersion:
    """The version a template declares, by date or by release name.

    Raises:
        InvalidTemplateVersion: no version, two version keys, or a version
            Heat does not know (Heat's messages).
    """
    present = sorted(k for k in VERSION_KEYS if isinstance(template.get(k), str))
    if len(present) > 1:
        raise _invalid(f"Ambiguous versions ({', '.join(present)})")
    if not present:
        raise _invalid("Template version was not provided")
    key = present[0]
    value = template[key]
    known = _BY_KEY[key]
    version = known.get(value)
    if version is None:
        expected = "should be one of" if len(known) > 1 else "should be"
        raise _invalid(f'"{key}: {value}". "{key}" {expected}: {", ".join(sorted(known))}')
    return version


def version_key(date: str) -> str:
    """The key that declares the version of canonical date ``date`` (``Template.version``).

    Dates are unique across formats, so the date alone names a version; an
    empty template of a stack's own version is ``{version_key(d): d}``.

    Raises:
        KeyError: no version has this date.
    """
    return _BY_DATE[date].key


def find_version_label(label: str) -> TemplateVersion | None:
    """A version by Heat's label or alias (``heat_template_version.newton``), if any."""
    return _BY_LABEL.get(label)

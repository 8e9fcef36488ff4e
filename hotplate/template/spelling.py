"""How a template format spells its sections and keys: HOT in lower case, CFN capitalised.

Both formats describe the same things (resources with a type, properties,
dependencies, a deletion policy...), so one parser serves both and asks the
version's ``Spelling`` for each name. The names appear in error paths and
messages exactly as the template wrote them, as Heat reports them:
``resources.web.properties: ...`` for HOT, ``Resources.web.Properties: ...``
for CFN.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Spelling:
    # Top-level sections.
    description: str
    parameters: str
    conditions: str
    resources: str
    outputs: str
    # Keys of a resource.
    type: str
    properties: str
    metadata: str
    depends_on: str
    deletion_policy: str
    update_policy: str
    resource_description: str
    condition: str
    external_id: str
    # Keys of an output.
    value: str
    output_description: str
    condition_typename: str
    """How Heat names a condition field's type in its error ("string_or_boolean")."""


HOT_SPELLING = Spelling(
    description="description",
    parameters="parameters",
    conditions="conditions",
    resources="resources",
    outputs="outputs",
    type="type",
    properties="properties",
    metadata="metadata",
    depends_on="depends_on",
    deletion_policy="deletion_policy",
    update_policy="update_policy",
    resource_description="description",
    condition="condition",
    external_id="external_id",
    value="value",
    output_description="description",
    condition_typename="string_or_boolean",
)

CFN_SPELLING = Spelling(
    description="Description",
    parameters="Parameters",
    conditions="Conditions",
    resources="Resources",
    outputs="Outputs",
    type="Type",
    properties="Properties",
    metadata="Metadata",
    depends_on="DependsOn",
    deletion_policy="DeletionPolicy",
    update_policy="UpdatePolicy",
    resource_description="Description",
    condition="Condition",
    external_id="ExternalId",  # no CFN version has it; never in a CFN key list
    value="Value",
    output_description="Description",
    condition_typename="string or boolean",
)

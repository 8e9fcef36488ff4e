"""The templates of the stacks a Heat source holds (``shapes.py`` makes them).

Heat-native types only, none reaching a cloud, so Heat needs nothing but its database and
broker. Each template exercises what an import must carry over: parameters (one hidden),
outputs, dependencies through ``get_attr``, provider templates in ``files`` with an
environment alias, groups, failed and suspended resources, software configs.
"""

from __future__ import annotations

from typing import Any

VERSION = "2021-04-16"

PLAIN = f"""
heat_template_version: {VERSION}
description: Every local Heat type, a dependency through get_attr, a hidden parameter.
parameters:
  greeting: {{type: string, default: hello}}
  secret: {{type: string, hidden: true, default: not-for-your-eyes}}
resources:
  name: {{type: OS::Heat::RandomString, properties: {{length: 12}}}}
  test:
    type: OS::Heat::TestResource
    properties:
      value: {{list_join: ['-', [{{get_param: greeting}}, {{get_attr: [name, value]}}]]}}
  kept: {{type: OS::Heat::Value, properties: {{type: string, value: {{get_param: secret}}}}}}
  nothing: {{type: OS::Heat::None, depends_on: [test]}}
outputs:
  greeting: {{value: {{get_attr: [test, output]}}, description: the greeting and the name}}
  kept: {{value: {{get_attr: [kept, value]}}}}
"""

UPDATED_BEFORE = f"""
heat_template_version: {VERSION}
parameters:
  greeting: {{type: string, default: before}}
  secret: {{type: string, hidden: true, default: first-secret}}
resources:
  name: {{type: OS::Heat::RandomString, properties: {{length: 8}}}}
  test: {{type: OS::Heat::TestResource, properties: {{value: {{get_param: greeting}}}}}}
  gone: {{type: OS::Heat::None}}
outputs:
  name: {{value: {{get_attr: [name, value]}}}}
"""

UPDATED_AFTER = f"""
heat_template_version: {VERSION}
parameters:
  greeting: {{type: string, default: before}}
  secret: {{type: string, hidden: true, default: first-secret}}
resources:
  name: {{type: OS::Heat::RandomString, properties: {{length: 16}}}}
  test: {{type: OS::Heat::TestResource, properties: {{value: {{get_param: greeting}}}}}}
  added:
    type: OS::Heat::Value
    properties:
      value: {{list_join: [':', [{{get_param: secret}}, {{get_attr: [test, output]}}]]}}
outputs:
  name: {{value: {{get_attr: [name, value]}}}}
  added: {{value: {{get_attr: [added, value]}}}}
"""
"""``name`` is replaced (a RandomString's length cannot change in place), ``test`` updated
in place (its value, from the parameter the update changes), ``gone`` removed, ``added``
added."""

UPDATED_PARAMETERS = {"greeting": "after", "secret": "second-secret"}

THING = f"""
heat_template_version: {VERSION}
parameters:
  label: {{type: string, default: unlabelled}}
resources:
  held: {{type: OS::Heat::Value, properties: {{value: {{get_param: label}}}}}}
  mark: {{type: OS::Heat::RandomString, properties: {{length: 6}}}}
outputs:
  label: {{value: {{get_attr: [held, value]}}}}
"""

NESTED = f"""
heat_template_version: {VERSION}
resources:
  thing: {{type: My::Thing, properties: {{label: provided}}}}
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 3
      resource_def: {{type: OS::Heat::RandomString, properties: {{length: 10}}}}
  chain:
    type: OS::Heat::ResourceChain
    properties:
      resources: [OS::Heat::None, My::Thing]
  scaled:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 3
      desired_capacity: 2
      resource: {{type: OS::Heat::None}}
outputs:
  thing: {{value: {{get_attr: [thing, label]}}}}
  group: {{value: {{get_attr: [group, value]}}}}
"""

NESTED_FILES = {"thing.yaml": THING}
NESTED_ENVIRONMENT: dict[str, Any] = {"resource_registry": {"My::Thing": "thing.yaml"}}

FAILED = f"""
heat_template_version: {VERSION}
resources:
  fine: {{type: OS::Heat::TestResource, properties: {{value: fine}}}}
  broken:
    type: OS::Heat::TestResource
    properties: {{value: broken, fail: true}}
    depends_on: [fine]
"""

SUSPENDABLE = f"""
heat_template_version: {VERSION}
resources:
  name: {{type: OS::Heat::RandomString}}
  test: {{type: OS::Heat::TestResource, properties: {{value: {{get_attr: [name, value]}}}}}}
  nothing: {{type: OS::Heat::None}}
"""

SOFTWARE = f"""
heat_template_version: {VERSION}
resources:
  script:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      config: "#!/bin/sh\\necho $foo > $heat_outputs_path.result\\n"
      inputs: [{{name: foo, default: bar}}]
      outputs: [{{name: result}}]
      options: {{sanity: checked}}
  cloud:
    type: OS::Heat::CloudConfig
    properties:
      cloud_config: {{runcmd: [[echo, hello]], write_files: [{{path: /tmp/x, content: y}}]}}
  parts:
    type: OS::Heat::MultipartMime
    properties:
      parts:
      - config: {{get_resource: cloud}}
      - config: {{get_resource: script}}
        type: multipart
outputs:
  script: {{value: {{get_resource: script}}}}
"""

API_CONFIG: dict[str, Any] = {
    "name": "made-through-the-api", "group": "script", "config": "#!/bin/sh\necho $a\n",
    "inputs": [{"name": "a", "default": "1"}], "outputs": [{"name": "b"}],
    "options": {"origin": "api"}}
"""A software config made outside any stack, with ``software_configs.create``."""

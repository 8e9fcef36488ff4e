"""Templates written where a test's ``hotplate`` process reads them."""

from __future__ import annotations

from pathlib import Path

VALUE_TEMPLATE = """\
heat_template_version: 2021-04-16
description: a greeting
parameters:
  greeting: {type: string, default: hello}
resources:
  source:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: greeting}
  message:
    type: OS::Heat::Value
    properties:
      value:
        str_replace:
          template: $g, world
          params: {$g: {get_attr: [source, output]}}
outputs:
  message:
    description: the greeting
    value: {get_attr: [message, value]}
"""

PLAIN_TEMPLATE = """\
heat_template_version: 2021-04-16
resources:
  first:
    type: OS::Heat::TestResource
    properties: {value: one}
  second:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [first, output]}}
"""

FAILING_TEMPLATE = """\
heat_template_version: 2021-04-16
resources:
  good:
    type: OS::Heat::TestResource
    properties: {value: fine}
  bad:
    type: OS::Heat::TestResource
    depends_on: good
    properties: {value: broken, fail: true}
"""

# Slow enough to be caught in progress; short, because stopping the engine waits for it.
SLOW_TEMPLATE = """\
heat_template_version: 2021-04-16
resources:
  slow:
    type: OS::Heat::TestResource
    properties: {value: patience, wait_secs: 3}
"""


def write(directory: Path, name: str, text: str) -> str:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)

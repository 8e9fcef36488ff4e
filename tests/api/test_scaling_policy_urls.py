"""A ScalingPolicy's ``alarm_url`` (pre-signed heat-api-cfn) and ``signal_url`` (the API's
signal route) through python-heatclient; a POST to ``signal_url`` scales the group."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

import httpx

from tests.api.conftest import Api
from tests.api.helpers import create_complete, output_values

TEMPLATE = """
heat_template_version: 2014-10-16
resources:
  group:
    type: OS::Heat::AutoScalingGroup
    properties:
      cooldown: 0
      desired_capacity: 1
      max_size: 3
      min_size: 1
      resource: {type: OS::Heat::None}
  up:
    type: OS::Heat::ScalingPolicy
    properties:
      adjustment_type: change_in_capacity
      auto_scaling_group_id: {get_resource: group}
      scaling_adjustment: 1
outputs:
  alarm_url: {value: {get_attr: [up, alarm_url]}}
  signal_url: {value: {get_attr: [up, signal_url]}}
  size: {value: {get_attr: [group, current_size]}}
"""


def test_policy_urls_and_a_signal_to_the_signal_url(api: Api, hc: Any) -> None:
    stack_id = create_complete(hc, TEMPLATE, name="policy-urls")
    outputs = output_values(hc.stacks.get(stack_id))
    alarm = urlparse(outputs["alarm_url"])
    assert unquote(alarm.path).startswith("/v1/signal/arn:openstack:heat::admin:stacks/")
    assert alarm.path.endswith("/resources/up")
    assert {"AWSAccessKeyId", "Signature", "SignatureMethod"} <= set(parse_qs(alarm.query))
    assert outputs["signal_url"].endswith(
        f"/v1/admin/stacks/policy-urls/{stack_id}/resources/up/signal")

    # the URL names the configured API ([clients_heat] url); this one serves on another port
    path = urlparse(outputs["signal_url"]).path
    reply = httpx.post(api.base + path, json={}, headers={"X-Auth-Token": "noauth"})
    assert reply.status_code == 200, reply.text
    deadline = time.monotonic() + 30
    while output_values(hc.stacks.get(stack_id))["size"] != 2:
        assert time.monotonic() < deadline, "the signal never scaled the group"
        time.sleep(0.1)

"""Heat's real agents configuring a DeployedServer of ``hotplate serve``, end to end.

``hotplate serve`` runs as a real process on SQLite; the "server" is
os-collect-config from the agents' virtualenv, running as a process of its
own in a network namespace joined to this host by a veth pair where the
machine allows it (else over loopback; see ``netns``), configured from the
DeployedServer's ``os_collect_config`` attribute as read through
python-heatclient. Its ``cfn`` source polls hotplate's CFN API
(DescribeStackResource, SigV2-signed with the stack user's keys) and runs
``hotplate agent-hook`` (this project's entry point, by absolute path),
which runs the script deployment and signals its outcome to the pre-signed
CFN_SIGNAL URL: a deployment writes a file and returns an output, an update
with new inputs runs it once more, a failing script fails it, and an agent
killed mid-deployment and restarted runs nothing twice (the interrupted
deployment is signalled FAILED); a TOKEN_SIGNAL deployment signals through
the orchestration API. From the same namespace, heat-cfntools' ``cfn-signal``
completes an AWS::CloudFormation::WaitCondition (a forged signature is
refused with 403) and ``curl``, as a handle's ``curl_cli`` gives it, an
OS::Heat::WaitCondition. Nothing is mocked between them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.agents.agents_venv import tool
from tests.agents.collector import collector_conf, start_agent, stop
from tests.agents.hotplate_server import HOTPLATE, HotplateServer, hotplate_serve
from tests.agents.netns import Network, server_network

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  greeting: {type: string, default: hello}
  target: {type: string}
  transport: {type: string, default: CFN_SIGNAL}
  script:
    type: string
    default: |
      #!/bin/sh
      echo "$greeting" >> "$target"
      printf 'said %s' "$greeting" > "$heat_outputs_path.result"
      echo configured
resources:
  server:
    type: OS::Heat::DeployedServer
    properties:
      software_config_transport: POLL_SERVER_CFN
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      inputs: [{name: greeting}, {name: target}]
      outputs: [{name: result}]
      config: {get_param: script}
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_resource: server}
      signal_transport: {get_param: transport}
      input_values:
        greeting: {get_param: greeting}
        target: {get_param: target}
outputs:
  result:
    value: {get_attr: [deployment, result]}
  stdout:
    value: {get_attr: [deployment, deploy_stdout]}
"""


@pytest.fixture(scope="module")
def network() -> Iterator[Network]:
    with server_network() as net:
        yield net


@pytest.fixture(scope="module")
def hotplate(network: Network,
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[HotplateServer]:
    with hotplate_serve(network.host_ip, tmp_path_factory.mktemp("hotplate")) as running:
        yield running


def wait_stack(heat: Any, stack_id: str, agent: subprocess.Popen[bytes] | None = None,
               timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        stack = heat.stacks.get(stack_id)
        if (not stack.stack_status.endswith("IN_PROGRESS") or time.monotonic() > deadline
                or (agent is not None and agent.poll() is not None)):
            return stack
        time.sleep(0.3)


def wait_resource(heat: Any, stack_id: str, name: str, status: str,
                  timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        resource = heat.resources.get(stack_id, name)
        if resource.resource_status == status:
            return resource
        assert time.monotonic() < deadline, f"{name} is {resource.resource_status}"
        time.sleep(0.2)


@dataclass
class Deployed:
    """A stack with a DeployedServer and the os-collect-config that configures it."""

    heat: Any
    stack_id: str
    conf: Path
    log: Path
    agent: subprocess.Popen[bytes]

    def wait(self) -> Any:
        return wait_stack(self.heat, self.stack_id, self.agent)

    def why(self, stack: Any, hotplate: HotplateServer) -> str:
        return (f"{stack.stack_status} {stack.stack_status_reason}\nagent:\n"
                f"{self.log.read_text()[-3000:]}\nhotplate:\n{hotplate.log_tail()}")


@pytest.fixture
def deploy(agents: Path, network: Network, hotplate: HotplateServer,
           tmp_path: Path) -> Iterator[Callable[..., Deployed]]:
    """Creates the stack, reads the server's os_collect_config through heatclient and
    starts os-collect-config from it, running this project's ``hotplate agent-hook``."""
    started: list[Deployed] = []

    def create(**parameters: str) -> Deployed:
        heat = hotplate.heat()
        created = heat.stacks.create(stack_name=f"deployed-{tmp_path.name}", template=TEMPLATE,
                                     parameters=parameters)
        stack_id = created["stack"]["id"]
        server = wait_resource(heat, stack_id, "server", "CREATE_COMPLETE")
        attribute = server.attributes["os_collect_config"]
        assert attribute["cfn"]["metadata_url"].startswith(f"http://{network.host_ip}:")
        state = tmp_path / "heat-config"
        conf = collector_conf(attribute, f"{HOTPLATE} agent-hook --state-dir {state}",
                              tmp_path)
        log = tmp_path / "agent.log"
        deployed = Deployed(heat, stack_id, conf, log, start_agent(agents, network, conf, log))
        started.append(deployed)
        return deployed

    yield create
    for deployed in started:
        stop(deployed.agent)


def outputs_of(stack: Any) -> dict[str, Any]:
    return {o["output_key"]: o["output_value"] for o in stack.outputs}


def test_os_collect_config_deploys_a_script_to_a_deployed_server(
        deploy: Callable[..., Deployed], hotplate: HotplateServer, tmp_path: Path) -> None:
    target = tmp_path / "configured"
    deployed = deploy(target=str(target))
    stack = deployed.wait()
    assert stack.stack_status == "CREATE_COMPLETE", deployed.why(stack, hotplate)
    assert target.read_text() == "hello\n"
    assert outputs_of(stack) == {"result": "said hello", "stdout": "configured\n"}

    deployed.heat.stacks.update(deployed.stack_id, template=TEMPLATE, existing=True,
                                parameters={"greeting": "bonjour"})
    time.sleep(0.5)
    updated = deployed.wait()
    assert updated.stack_status == "UPDATE_COMPLETE", deployed.why(updated, hotplate)
    assert target.read_text() == "hello\nbonjour\n"  # ran again, and only once more
    assert outputs_of(updated)["result"] == "said bonjour"


def _signalled(deployed: Deployed) -> dict[str, Any]:
    """What the agent signalled, as the deployment API shows it."""
    deployment_id = deployed.heat.resources.get(deployed.stack_id,
                                                "deployment").physical_resource_id
    values: dict[str, Any] = deployed.heat.software_deployments.get(
        deployment_id).output_values
    return values


def test_a_failing_script_fails_the_deployment_with_its_stderr(
        deploy: Callable[..., Deployed], hotplate: HotplateServer, tmp_path: Path) -> None:
    deployed = deploy(target=str(tmp_path / "unused"),
                      script="#!/bin/sh\necho 'disk is full' >&2\nexit 3\n")
    stack = deployed.wait()
    assert stack.stack_status == "CREATE_FAILED", deployed.why(stack, hotplate)
    assert "Deployment exited with non-zero status code: 3" in stack.stack_status_reason
    assert _signalled(deployed)["deploy_stderr"] == "disk is full\n"


def test_an_agent_killed_mid_deployment_and_restarted_runs_nothing_twice(
        deploy: Callable[..., Deployed], agents: Path, network: Network,
        hotplate: HotplateServer, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    deployed = deploy(target=str(tmp_path / "unused"),
                      script=f"#!/bin/sh\necho run >> {runs}\nsleep 30\necho finished\n")
    deadline = time.monotonic() + 60
    while not runs.exists():
        assert deployed.agent.poll() is None, deployed.log.read_text()
        assert time.monotonic() < deadline, deployed.log.read_text()
        time.sleep(0.1)
    os.killpg(deployed.agent.pid, signal.SIGKILL)  # os-collect-config and the hook runner
    deployed.agent.wait(10)

    deployed.agent = start_agent(agents, network, deployed.conf, deployed.log)
    stack = deployed.wait()
    assert stack.stack_status == "CREATE_FAILED", deployed.why(stack, hotplate)
    assert "non-zero status code: -1" in stack.stack_status_reason
    assert "stopped while this deployment's hook ran" in _signalled(deployed)["deploy_stderr"]
    time.sleep(2)  # a few more polls: the deployment is not run again
    assert runs.read_text() == "run\n"


WAIT_TEMPLATE = """\
heat_template_version: 2018-08-31
resources:
  handle:
    type: AWS::CloudFormation::WaitConditionHandle
  wait:
    type: AWS::CloudFormation::WaitCondition
    properties:
      Handle: {get_resource: handle}
      Timeout: 60
      Count: 1
outputs:
  url:
    value: {get_resource: handle}
  data:
    value: {get_attr: [wait, Data]}
"""


def cfn_signal(agents: Path, network: Network, url: str, *args: str) -> None:
    done = subprocess.run([*network.prefix, str(tool(agents, "cfn-signal")), *args, url],
                          capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, "LC_ALL": "C"})
    assert done.returncode == 0, done.stdout + done.stderr


def test_cfn_signal_completes_a_wait_condition(
        agents: Path, network: Network, hotplate: HotplateServer, tmp_path: Path) -> None:
    heat = hotplate.heat()
    created = heat.stacks.create(stack_name="waiting", template=WAIT_TEMPLATE)
    stack_id = created["stack"]["id"]
    wait_resource(heat, stack_id, "wait", "CREATE_IN_PROGRESS")
    url = heat.stacks.output_show(stack_id, "url")["output"]["output_value"]
    assert url.startswith(f"http://{network.host_ip}:") and "Signature=" in url

    forged = url.replace("Signature=", "Signature=x")
    cfn_signal(agents, network, forged, "-e", "0", "-i", "intruder", "-d", "forged")
    refused = urllib.request.Request(forged, data=b'{"Status": "SUCCESS"}', method="PUT")
    with pytest.raises(urllib.error.HTTPError) as answer:
        urllib.request.urlopen(refused, timeout=10)
    assert answer.value.code == 403
    answer.value.close()
    time.sleep(1)
    assert heat.stacks.get(stack_id).stack_status == "CREATE_IN_PROGRESS"

    cfn_signal(agents, network, url, "-e", "0", "-r", "configured", "-i", "web-1",
               "-d", "ready to serve")
    stack = wait_stack(heat, stack_id)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    assert json.loads(outputs_of(stack)["data"]) == {"web-1": "ready to serve"}


def test_a_token_signal_deployment_signals_through_the_orchestration_api(
        deploy: Callable[..., Deployed], hotplate: HotplateServer, tmp_path: Path) -> None:
    target = tmp_path / "configured"
    deployed = deploy(target=str(target), transport="TOKEN_SIGNAL")
    stack = deployed.wait()
    assert stack.stack_status == "CREATE_COMPLETE", deployed.why(stack, hotplate)
    assert outputs_of(stack)["result"] == "said hello"
    assert target.read_text() == "hello\n"


HANDLE_TEMPLATE = """\
heat_template_version: 2018-08-31
resources:
  handle:
    type: OS::Heat::WaitConditionHandle
  wait:
    type: OS::Heat::WaitCondition
    properties:
      handle: {get_resource: handle}
      timeout: 60
outputs:
  data:
    value: {get_attr: [wait, data]}
"""


def test_curl_cli_as_given_completes_a_wait_condition(
        network: Network, hotplate: HotplateServer) -> None:
    heat = hotplate.heat()
    created = heat.stacks.create(stack_name="curled", template=HANDLE_TEMPLATE)
    stack_id = created["stack"]["id"]
    wait_resource(heat, stack_id, "wait", "CREATE_IN_PROGRESS")
    curl_cli = heat.resources.get(stack_id, "handle").attributes["curl_cli"]
    assert network.host_ip in curl_cli
    body = json.dumps({"status": "SUCCESS", "id": "web-1", "data": "up"})
    command = f"{curl_cli} --data-binary '{body}'"  # as Heat's docs show it used
    done = subprocess.run([*network.prefix, "sh", "-c", command], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    stack = wait_stack(heat, stack_id)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    assert json.loads(outputs_of(stack)["data"]) == {"web-1": "up"}

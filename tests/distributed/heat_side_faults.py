"""Run by heat-api's own interpreter: what heat-api answers for each remote failure.

Reads a JSON list of failures as oslo.messaging puts them on the wire
(``class``, ``module``, ``message``, ``tb``, ``args``, ``kwargs``), rebuilds each
as heat-api's RPC client does (oslo.messaging allowing ``heat.common.exception``,
as ``heat/common/messaging.py`` sets it up), passes it through heat-api's
FaultWrapper, and prints a JSON list of ``{"code", "type", "message"}``: the
status and the body's error fields a client of heat-api would get.
"""

import json
import sys

from heat.api.middleware.fault import FaultWrapper
from oslo_config import cfg
from oslo_log import log as logging
from oslo_messaging._drivers import common as rpc_common

ALLOWED = ["heat.common.exception"]


def answer(wire: str) -> dict:
    error = FaultWrapper(None)._error(rpc_common.deserialize_remote_exception(wire, ALLOWED))
    return {"code": error["code"], "type": error["error"]["type"],
            "message": error["error"].get("message")}


def main() -> None:
    logging.register_options(cfg.CONF)
    cfg.CONF([], project="heat")
    print(json.dumps([answer(wire) for wire in json.load(sys.stdin)]))


if __name__ == "__main__":
    main()

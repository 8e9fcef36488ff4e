"""The ``openstack`` command as the suites run it: the unchanged program, except that
``--wait`` looks at the stack every ``WAIT_POLL`` seconds.

python-heatclient's ``--wait`` reads the stack's events every 5 seconds (only
``stack create`` takes ``--poll``, in whole seconds), while the stacks of these
suites take the engine a second or two: each wait would cost a test most of 5
seconds for nothing. The program below is the ``openstack`` console script with
heatclient's event poll given a shorter period; what it sends and prints, and
when it stops waiting, are the CLI's own.
"""

from __future__ import annotations

import importlib.util
import sys

WAIT_POLL = 0.5

_PROGRAM = f"""
import sys
from heatclient.common import event_utils

_poll = event_utils.poll_for_events


def _quick(*args, **kwargs):
    kwargs["poll_period"] = min(float(kwargs.get("poll_period", 5)), {WAIT_POLL})
    return _poll(*args, **kwargs)


event_utils.poll_for_events = _quick
from openstackclient.shell import main

sys.argv[0] = "openstack"
sys.exit(main())
"""


def openstack_command() -> list[str]:
    """The argv prefix that runs ``openstack`` (arguments follow it)."""
    return [sys.executable, "-c", _PROGRAM]


def openstack_available() -> bool:
    """Whether python-openstackclient and python-heatclient are installed here."""
    return all(importlib.util.find_spec(name) is not None
               for name in ("openstackclient", "heatclient"))

"""``hotplate config sample``: every option with its help, in heat.conf's format.

The layout is oslo-config-generator's (the tool that writes Heat's own
heat.conf.sample): each section, each option's help as comments, its type
and bounds, then the option commented out at its default. One line more
than oslo's names the environment variable that also sets it.
"""

from __future__ import annotations

import textwrap
from typing import Any

from oslo_config import cfg

from hotplate.config.options import GROUPS, env_name

WIDTH = 70

HEADER = """\
# hotplate.conf: hotplate's configuration, in Heat's format.
#
# Read from --config-file (or the first of ~/.hotplate/hotplate.conf and
# /etc/hotplate/hotplate.conf), then the *.conf files of --config-dir (or
# of hotplate.conf.d beside it). A heat.conf works as it is: options and
# sections hotplate does not know are ignored. A command-line flag wins
# over the option's environment variable, which wins over the file.
"""


def render() -> str:
    """The whole sample, ending with a newline."""
    parts = [HEADER]
    for group, opts in GROUPS:
        parts.append(f"\n[{group}]\n")
        for opt in opts:
            parts.append("\n" + _option(group, opt))
    return "".join(parts)


def _option(group: str, opt: cfg.Opt) -> str:
    lines = [f"# {line}" for line in
             textwrap.wrap(opt.help or "", WIDTH, break_on_hyphens=False)]
    lines.append(f"# ({getattr(opt.type, 'type_name', 'value')})")
    for label, bound in (("Minimum", "min"), ("Maximum", "max")):
        limit = getattr(opt.type, bound, None)
        if limit is not None:
            lines.append(f"# {label} value: {limit}")
    choices = getattr(opt.type, "choices", None)
    if choices:
        lines.append("# Possible values: " + ", ".join(str(c) for c in choices))
    lines.append(f"# Environment variable: {env_name(group, opt.dest)}")
    lines.append(f"#{opt.dest} = {_default(opt)}".rstrip())
    return "\n".join(lines) + "\n"


def _default(opt: cfg.Opt) -> str:
    if opt.sample_default is not None:
        return str(opt.sample_default)
    value: Any = opt.default
    if value is None:
        return "<None>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(str(item) for item in value)
    return str(value)

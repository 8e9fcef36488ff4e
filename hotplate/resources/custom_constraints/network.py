"""Address and name checks of the ``ip_addr``, ``mac_addr``, ``net_cidr``, ``ip_or_cidr``,
``dns_name``, ``rel_dns_name`` and ``dns_domain`` custom constraints.

Each returns None for a valid value, else the reason Heat gives (``""`` when
Heat gives none). The rules are Heat's, which leans on neutron-lib's
validators and netaddr: an IPv4 address has exactly four dotted parts in
their canonical form (no leading zero, no whitespace), an IPv6 address has
no zone; a subnet names its prefix length (``10.0.0.1/24`` is accepted: host
bits may be set), IPv4 again in canonical form; a DNS label is lowercase
letters, digits and hyphens, 1 to 63 of them, not starting or ending with a
hyphen, and a name is at most 255 characters.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

__all__ = ["check_cidr", "check_dns_domain", "check_dns_name", "check_ip",
           "check_ip_or_cidr", "check_mac", "check_relative_dns_name"]

FQDN_MAX_LEN = 255
DNS_LABEL_MAX_LEN = 63
_DNS_LABEL = re.compile(r"[a-z0-9-]{1,63}$")
_ALL_DIGITS = re.compile(r"^[0-9]+$")
_WHITESPACE = re.compile(r"\s")

_MAC_FORMATS = tuple(re.compile(pattern, re.IGNORECASE) for pattern in (
    "^" + ":".join(["[0-9A-F]{1,2}"] * 6) + "$",       # 00:11:22:33:44:55
    "^" + "-".join(["[0-9A-F]{1,2}"] * 6) + "$",       # 00-11-22-33-44-55
    "^" + ":".join(["[0-9A-F]{1,4}"] * 3) + "$",       # 0011:2233:4455
    "^" + "-".join(["[0-9A-F]{1,4}"] * 3) + "$",
    "^" + r"\.".join(["[0-9A-F]{1,4}"] * 3) + "$",     # 0011.2233.4455 (Cisco)
    "^" + "-".join(["[0-9A-F]{5,6}"] * 2) + "$",       # 001122-334455 (PostgreSQL)
    "^" + ":".join(["[0-9A-F]{5,6}"] * 2) + "$",
    "^[0-9A-F]{12}$",                                   # bare
    "^[0-9A-F]{11}$",
))
_ABBREVIATED_V4 = re.compile(r"^\d{1,3}(\.\d{1,3}){0,3}(/\d{1,2})?$")


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """What an address parser that accepts leading zeros in IPv4 octets reads, if anything."""
    if "%" in text:
        return None  # no IPv6 zone
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    parts = text.split(".")
    if len(parts) == 4 and all(p.isdigit() and p.isascii() for p in parts):
        try:
            return ipaddress.IPv4Address(".".join(str(int(p)) for p in parts))
        except ValueError:
            return None
    return None


def _ip_problem(value: str) -> str | None:
    """neutron-lib's ``validate_ip_address``: None, or why ``value`` is no IP address."""
    if _WHITESPACE.search(value):
        return f"'{value}' is not a valid IP address"
    ip = _address(value)
    if ip is None or (":" not in value and value.count(".") != 3):
        return f"'{value}' is not a valid IP address"
    if ip.version == 4 and str(ip) != value:
        return f"'{value}' is not an accepted IP address, '{ip}' is recommended"
    return None


def _subnet_problem(value: str) -> str | None:
    """neutron-lib's ``validate_subnet``: an address with its prefix length."""
    invalid = f"'{value}' is not a valid IP subnet"
    if _WHITESPACE.search(value) or "/" not in value:
        return invalid
    try:
        interface = ipaddress.ip_interface(value)
    except ValueError:
        return invalid
    if interface.version == 4 and str(interface) != value:
        return invalid
    return None


def check_ip(value: Any) -> str | None:
    if not isinstance(value, str) or _ip_problem(value) is not None:
        return "Invalid IP address"
    return None


def check_mac(value: Any) -> str | None:
    if isinstance(value, str) and any(p.search(value) for p in _MAC_FORMATS):
        return None
    return "Invalid MAC address."


def _parses_as_network(value: str) -> bool:
    """Whether netaddr would read ``value`` as a network at all (abbreviations too)."""
    if _ABBREVIATED_V4.match(value):
        address, _, prefix = value.partition("/")
        return (all(int(octet) <= 255 for octet in address.split("."))
                and (not prefix or int(prefix) <= 32))
    try:
        ipaddress.ip_network(value, strict=False)
        return True
    except ValueError:
        return False


def check_cidr(value: Any) -> str | None:
    text = value if isinstance(value, str) else str(value)
    if not isinstance(value, str) or not _parses_as_network(value):
        return f"Invalid net cidr invalid IPNetwork {text} "
    return _subnet_problem(value)


def check_ip_or_cidr(value: Any) -> str | None:
    if not isinstance(value, str):
        return f"{value} is not a valid IP or CIDR"
    return _subnet_problem(value) if "/" in value else _ip_problem(value)


def _dns_format_problem(value: str) -> str | None:
    """Heat's ``validate_dns_format``: the reason a name is malformed, if it is."""
    if not value:
        return None
    trimmed = value[:-1] if value.endswith(".") else value
    if len(trimmed) > FQDN_MAX_LEN:
        return f"'{trimmed}' exceeds the {FQDN_MAX_LEN} character FQDN limit"
    names = trimmed.split(".")
    for name in names:
        if not name:
            return "Encountered an empty component."
        if name.startswith("-") or name.endswith("-"):
            return f"Name '{name}' must not start or end with a hyphen."
        if not _DNS_LABEL.match(name):
            return (f"Name '{name}' must be 1-{DNS_LABEL_MAX_LEN} characters long, each of "
                    "which can only be alphanumeric or a hyphen.")
    if value.endswith(".") and len(names) > 1 and _ALL_DIGITS.match(names[-1]):
        return f"TLD '{names[-1]}' must not be all numeric."
    return None


def check_dns_name(value: Any) -> str | None:
    if not isinstance(value, str):
        return f"'{value}' not in valid format. Reason: expected string or bytes-like object"
    problem = _dns_format_problem(value)
    if problem is None:
        return None
    return f"'{value}' not in valid format. Reason: {problem}"


def check_relative_dns_name(value: Any) -> str | None:
    if not value:
        return None
    if isinstance(value, str) and value.endswith("."):
        return f"'{value}' is a FQDN. It should be a relative domain name."
    length = len(value)
    if length > FQDN_MAX_LEN - 3:
        return (f"'{value}' contains '{length}' characters. Adding a domain name will cause "
                f"it to exceed the maximum length of a FQDN of '{FQDN_MAX_LEN}'.")
    return check_dns_name(value)


def check_dns_domain(value: Any) -> str | None:
    if not value:
        return None
    problem = check_dns_name(value)
    if problem is not None:
        return problem
    if not value.endswith("."):
        return f"'{value}' must end with '.'."
    return None

"""The pure custom constraints against what Heat 27.0.1's own checks answer.

Each expected text below is what Heat's ``heat.engine.constraint.common_constraints``
classes said for the value (their ``error(value)``), run once against Heat's code;
None: Heat accepted the value.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hotplate.resources.constraints import CustomConstraint
from hotplate.resources.custom_constraints import (
    CLOUD_CONSTRAINTS,
    PURE_CONSTRAINTS,
    CheckContext,
    check_custom,
)

NOW = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
EV = "Error validating value"

HEAT_ANSWERS = [
    ("ip_addr", "1.2.3.4", None),
    ("ip_addr", "not-an-ip", f"{EV} 'not-an-ip': Invalid IP address"),
    ("ip_addr", "::1", None),
    ("ip_addr", "1.2.3", f"{EV} '1.2.3': Invalid IP address"),
    ("ip_addr", "01.2.3.4", f"{EV} '01.2.3.4': Invalid IP address"),
    ("ip_addr", "1.2.3.4 ", f"{EV} '1.2.3.4 ': Invalid IP address"),
    ("ip_addr", "fe80::1%eth0", f"{EV} 'fe80::1%eth0': Invalid IP address"),
    ("ip_addr", "256.1.1.1", f"{EV} '256.1.1.1': Invalid IP address"),
    ("ip_addr", 123, f"{EV} '123': Invalid IP address"),
    ("ip_addr", "0.0.0.0", None),
    ("ip_addr", "::ffff:1.2.3.4", None),
    ("ip_addr", "", f"{EV} '': Invalid IP address"),
    ("mac_addr", "00:11:22:33:44:55", None),
    ("mac_addr", "00-11-22-33-44-55", None),
    ("mac_addr", "0011.2233.4455", None),
    ("mac_addr", "001122334455", None),
    ("mac_addr", "0:1:2:3:4:5", None),
    ("mac_addr", "zz:11:22:33:44:55", f"{EV} 'zz:11:22:33:44:55': Invalid MAC address."),
    ("mac_addr", "00:11:22:33:44", f"{EV} '00:11:22:33:44': Invalid MAC address."),
    ("mac_addr", "", f"{EV} '': Invalid MAC address."),
    ("net_cidr", "10.0.0.0/24", None),
    ("net_cidr", "10.0.0.1/24", None),
    ("net_cidr", "::/0", None),
    ("net_cidr", "fe80::/64", None),
    ("net_cidr", "1.2.3.4/32", None),
    ("net_cidr", "10.0.0.0", f"{EV} '10.0.0.0': '10.0.0.0' is not a valid IP subnet"),
    ("net_cidr", "10.0/8", f"{EV} '10.0/8': '10.0/8' is not a valid IP subnet"),
    ("net_cidr", "10.0.0.0/024",
     f"{EV} '10.0.0.0/024': '10.0.0.0/024' is not a valid IP subnet"),
    ("net_cidr", "not", f"{EV} 'not': Invalid net cidr invalid IPNetwork not "),
    ("net_cidr", "10.0.0.0/33",
     f"{EV} '10.0.0.0/33': Invalid net cidr invalid IPNetwork 10.0.0.0/33 "),
    ("net_cidr", "", f"{EV} '': Invalid net cidr invalid IPNetwork  "),
    ("ip_or_cidr", "10.0.0.0/24", None),
    ("ip_or_cidr", "10.0.0.1/24", None),
    ("ip_or_cidr", "10.0.0.1", None),
    ("ip_or_cidr", "::1", None),
    ("ip_or_cidr", "x", f"{EV} 'x': 'x' is not a valid IP address"),
    ("ip_or_cidr", "x/24", f"{EV} 'x/24': 'x/24' is not a valid IP subnet"),
    ("ip_or_cidr", "", f"{EV} '': '' is not a valid IP address"),
    ("ip_or_cidr", "01.2.3.4",
     f"{EV} '01.2.3.4': '01.2.3.4' is not an accepted IP address, '1.2.3.4' is recommended"),
    ("iso_8601", "2020-01-01T00:00:00Z", None),
    ("iso_8601", "2020-01-01", None),
    ("iso_8601", "2020-01-01T00:00:00+02:00", None),
    ("iso_8601", "20200101T000000Z", None),
    ("iso_8601", "not", f"{EV} 'not'"),
    ("iso_8601", "", f"{EV} ''"),
    ("dns_name", "example.com", None),
    ("dns_name", "example.com.", None),
    ("dns_name", "123", None),
    ("dns_name", "1.2.3.4", None),
    ("dns_name", "", None),
    ("dns_name", "xn--bcher-kva.ch", None),
    ("dns_name", "-bad.com", f"{EV} '-bad.com': '-bad.com' not in valid format. Reason: "
                             "Name '-bad' must not start or end with a hyphen."),
    ("dns_name", "under_score.com",
     f"{EV} 'under_score.com': 'under_score.com' not in valid format. Reason: Name "
     "'under_score' must be 1-63 characters long, each of which can only be alphanumeric "
     "or a hyphen."),
    ("dns_name", "UPPER.com",
     f"{EV} 'UPPER.com': 'UPPER.com' not in valid format. Reason: Name 'UPPER' must be "
     "1-63 characters long, each of which can only be alphanumeric or a hyphen."),
    ("dns_name", "a..b",
     f"{EV} 'a..b': 'a..b' not in valid format. Reason: Encountered an empty component."),
    ("rel_dns_name", "host", None),
    ("rel_dns_name", "", None),
    ("rel_dns_name", "foo.bar", None),
    ("rel_dns_name", "host.",
     f"{EV} 'host.': 'host.' is a FQDN. It should be a relative domain name."),
    ("rel_dns_name", "-x", f"{EV} '-x': '-x' not in valid format. Reason: Name '-x' must "
                           "not start or end with a hyphen."),
    ("rel_dns_name", "a" * 253,
     f"{EV} '{'a' * 253}': '{'a' * 253}' contains '253' characters. Adding a domain name "
     "will cause it to exceed the maximum length of a FQDN of '255'."),
    ("dns_domain", "example.com.", None),
    ("dns_domain", "", None),
    ("dns_domain", "example.com", f"{EV} 'example.com': 'example.com' must end with '.'."),
    ("dns_domain", "bad_.com.",
     f"{EV} 'bad_.com.': 'bad_.com.' not in valid format. Reason: Name 'bad_' must be 1-63 "
     "characters long, each of which can only be alphanumeric or a hyphen."),
    ("timezone", "Europe/Paris", None),
    ("timezone", "UTC", None),
    ("timezone", "", None),
    ("timezone", "Nowhere/Land",
     f"{EV} 'Nowhere/Land': Invalid timezone: 'No time zone found with key Nowhere/Land'"),
    ("cron_expression", "* * * * *", None),
    ("cron_expression", "0 0 * * * *", None),
    ("cron_expression", "", None),
    ("cron_expression", "bad", f"{EV} 'bad': Invalid CRON expression: Exactly 5, 6 or 7 "
                               "columns has to be specified for iterator expression."),
    ("cron_expression", "61 * * * *", f"{EV} '61 * * * *': Invalid CRON expression: "
                                      "[61 * * * *] is not acceptable, out of range"),
    ("expiration", "2999-01-01T00:00:00Z", None),
    ("expiration", "2999-01-01", None),
    ("expiration", "", None),
    ("expiration", "2000-01-01T00:00:00Z",
     f"{EV} '2000-01-01T00:00:00Z': Expiration 2000-01-01T00:00:00Z is invalid: "
     "Expiration time is out of date."),
    ("expiration", "bad",
     f"{EV} 'bad': Expiration bad is invalid: Unable to parse date string 'bad'"),
    ("json_string", '{"a":1}', None),
    ("json_string", "", None),
    ("json_string", "1", None),
    ("json_string", "null", None),
    ("json_string", "{bad",
     f"{EV} '{{bad': JSON string {{bad is invalid: Expecting property name enclosed in "
     "double quotes: line 1 column 2 (char 1)"),
]


@pytest.mark.parametrize(("name", "value", "expected"), HEAT_ANSWERS,
                         ids=[f"{n}-{v!r}"[:60] for n, v, _ in HEAT_ANSWERS])
def test_pure_constraint_answers_as_heat(name: str, value: object, expected: str | None,
                                         ) -> None:
    assert check_custom(name, value, CheckContext(NOW)) == expected


def test_every_constraint_heat_registers_is_known() -> None:
    heat_names = {
        "cron_expression", "dns_domain", "dns_name", "expiration", "rel_dns_name", "ip_addr",
        "iso_8601", "mac_addr", "net_cidr", "ip_or_cidr", "test_constr", "timezone",
        "json_string", "nova.network"}
    assert heat_names == set(PURE_CONSTRAINTS)
    assert len(CLOUD_CONSTRAINTS) == 56
    assert not set(PURE_CONSTRAINTS) & set(CLOUD_CONSTRAINTS)


def test_unknown_constraint_fails_as_heat() -> None:
    assert check_custom("no.such", "x", CheckContext(NOW)) == (
        '"x" does not validate no.such (constraint not found)')


def test_cloud_constraint_without_a_cloud_is_left_to_the_engine() -> None:
    assert check_custom("nova.flavor", "m1.tiny", CheckContext(NOW)) is None
    assert CustomConstraint("nova.flavor").needs_cloud
    assert not CustomConstraint("ip_addr").needs_cloud


def test_cloud_constraint_asks_the_cloud() -> None:
    class Cloud:
        def check_constraint(self, name: str, value: object) -> str | None:
            return None if value == "m1.tiny" else f"The Flavor ({value}) could not be found."

    ctx = CheckContext(NOW, Cloud())
    assert check_custom("nova.flavor", "m1.tiny", ctx) is None
    assert check_custom("nova.flavor", "huge", ctx) == (
        f"{EV} 'huge': The Flavor (huge) could not be found.")


def test_description_replaces_the_message() -> None:
    constraint = CustomConstraint("ip_addr", description="Give an address")
    assert constraint.check("x") == "Give an address"
    assert constraint.as_dict() == {"custom_constraint": "ip_addr",
                                    "description": "Give an address"}

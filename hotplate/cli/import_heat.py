"""``hotplate manage import-heat``: an operator's move from Heat to hotplate.

Reads a Heat 27 database (never writes it) and brings every live stack over
with all it holds (heat_import/). What it needs from the operator: where
Heat's database is, Heat's ``auth_encryption_key`` (to read the stored trusts,
redacted data and encrypted parameters), and hotplate configured with the
same ``[trustee]`` user and stack-user domain as Heat, so that the trusts and
stack users Heat made keep working. With ``--heat-config`` all of that is read
from Heat's own heat.conf, and the last part is checked.

The output is one line per root stack: imported, updated (Heat changed it
since the last import), unchanged, removed (deleted in Heat since) or
refused, with the reason. The status is 1 when anything was refused.
"""

from __future__ import annotations

import argparse
import configparser
import os
from datetime import UTC, datetime
from typing import Any

HEAT_KEY_VARIABLE = "HEAT_AUTH_ENCRYPTION_KEY"
HEAT_DEFAULT_KEY = "notgood but just long enough i t"
"""Heat's own default ``auth_encryption_key``, for a Heat that never set one."""


def add_import_heat(verbs: Any, failure: type[Exception]) -> None:
    verb = verbs.add_parser(
        "import-heat", help="bring every live stack of a Heat 27 database into hotplate "
                            "(Heat's database is only read)")
    verb.add_argument("--from", dest="heat_url", default=None,
                      help="Heat's database URL (default: [database]/connection of "
                           "--heat-config)")
    verb.add_argument("--heat-config", default=None,
                      help="Heat's heat.conf: its database, its auth_encryption_key, and the "
                           "[trustee] and stack user domain hotplate must share with it")
    verb.add_argument("--heat-auth-encryption-key", default=None,
                      help="Heat's [DEFAULT]/auth_encryption_key (or "
                           f"{HEAT_KEY_VARIABLE}; default: --heat-config's, else Heat's "
                           "default key)")
    verb.add_argument("--dry-run", action="store_true",
                      help="say what would be imported, write nothing")
    verb.set_defaults(manage=lambda args: do_import_heat(args, failure))


def _heat_conf(path: str | None, failure: type[Exception]) -> configparser.RawConfigParser:
    conf = configparser.RawConfigParser(strict=False)
    if path is not None and not conf.read(path):
        raise failure(f"cannot read Heat's configuration {path}")
    return conf


def _get(conf: configparser.RawConfigParser, section: str, name: str) -> str | None:
    if section == "DEFAULT":
        return conf.defaults().get(name) or None
    return conf.get(section, name, fallback=None) or None


def _check_shared_identity(conf: configparser.RawConfigParser, ours: Any,
                           failure: type[Exception]) -> None:
    """Heat's trusts name Heat's trustee as the trustee, and its stack users live in its
    stack-user domain: a hotplate configured otherwise could use neither."""
    mismatches = []
    pairs = (
        ("[trustee]/username", _get(conf, "trustee", "username"), ours.trustee.username),
        ("stack_user_domain_id", _get(conf, "DEFAULT", "stack_user_domain_id"),
         ours.stack_domain.domain_id),
        ("stack_user_domain_name", _get(conf, "DEFAULT", "stack_user_domain_name"),
         ours.stack_domain.domain_name),
    )
    for name, heat, mine in pairs:
        if heat is not None and heat != mine:
            mismatches.append(f"{name} is {heat!r} in Heat, {mine!r} here")
    if mismatches:
        raise failure("hotplate must share Heat's trustee and stack user domain, or the "
                      "imported trusts and stack users stop working: "
                      + "; ".join(mismatches))


def do_import_heat(args: argparse.Namespace, failure: type[Exception]) -> None:
    from hotplate.app import resource_types
    from hotplate.cli.common import secret_box, settings
    from hotplate.cli.manage import _with_engine
    from hotplate.db.crypt import EncryptionKeyError
    from hotplate.engine.implicit_graph import with_implicit
    from hotplate.heat_import.run import HeatStillRunning, Importer
    from hotplate.heat_import.source import HeatDatabase, HeatSourceError
    from hotplate.heat_import.translate import HeatKey

    conf = _heat_conf(args.heat_config, failure)
    config = settings(args)
    if args.heat_config is not None:
        _check_shared_identity(conf, config.cloud, failure)
    url = args.heat_url or _get(conf, "database", "connection")
    if not url:
        raise failure("say where Heat's database is: --from URL (or --heat-config)")
    key = (args.heat_auth_encryption_key or os.environ.get(HEAT_KEY_VARIABLE)
           or _get(conf, "DEFAULT", "auth_encryption_key") or HEAT_DEFAULT_KEY)
    try:
        heat_key = HeatKey(key, source="Heat's auth_encryption_key")
    except EncryptionKeyError as exc:
        raise failure(str(exc)) from None
    ours = secret_box(args, make=True)
    assert ours is not None
    types = resource_types(config.engine)

    def implicit(loaded: Any, decided: Any, params: Any) -> Any:
        return with_implicit(types, loaded.env, loaded.files, decided, params)

    def work(engine: Any) -> list[Any]:
        heat = HeatDatabase(url)
        try:
            return Importer(heat, engine, heat_key, ours, types, implicit,
                            clock=lambda: datetime.now(UTC), dry_run=args.dry_run).run()
        finally:
            heat.close()

    try:
        outcomes = _with_engine(args, work)
    except (HeatStillRunning, HeatSourceError) as exc:
        raise failure(str(exc)) from None
    for outcome in outcomes:
        print(outcome.line())
    refused = [o for o in outcomes if o.verdict == "refused"]
    if refused:
        raise failure(f"{len(refused)} of {len(outcomes)} stacks were not imported")

"""OS::Nova::KeyPair (Heat's ``keypair.py``).

Nova names a key pair by its name, which is unique per user: the physical id
is the name, and ``get_resource`` gives it. Every property change replaces
the key pair. The private key of a generated pair is kept only when
``save_private_key`` says so, as redacted resource data. Nova generates keys
only below microversion 2.92; from 2.92 on (this cloud's Nova, as Heat sees
it) ``public_key`` is required, with Heat's text.
"""

from __future__ import annotations

from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.resources.attributes import Attribute
from hotplate.resources.constraints import AllowedValues, CustomConstraint, Length
from hotplate.resources.openstack.nova.base import NovaResource, is_not_found
from hotplate.resources.properties import Schema
from hotplate.resources.support import SupportStatus
from hotplate.resources.translation import TranslationRule

__all__ = ["KeyPair"]

MICROVERSION_KEY_TYPE = "2.2"
MICROVERSION_USER = "2.10"
MICROVERSION_PUBLIC_KEY = "2.92"
PRIVATE_KEY = "private_key"
HANDED_OVER = "handed_over"
"""Resource data: ``prepare_for_replace`` gave the name up (the pair is not ours now)."""


class KeyPair(NovaResource):
    """A resource for creating Nova key pairs.

    A keypair is a ssh key that can be injected into a server on launch.

    **Note** that if a new key is generated setting `save_private_key` to
    `True` results in the system saving the private key which can then be
    retrieved via the `private_key` attribute of this resource.

    Setting the `public_key` property means that the `private_key` attribute
    of this resource will always return an empty string regardless of the
    `save_private_key` setting since there will be no private key data to
    save.
    """

    support_status = SupportStatus(version="2014.1")
    path = "/os-keypairs"
    entity = "keypair"

    properties_schema = {
        "name": Schema(Schema.STRING, "The name of the key pair.", required=True,
                       constraints=[Length(min=1, max=255)]),
        "save_private_key": Schema(Schema.BOOLEAN, "True if the system should remember a "
                                   "generated private key; False otherwise.", default=False),
        "public_key": Schema(Schema.STRING, "The public key. This allows users to supply the "
                             "public key from a pre-existing key pair. In Nova api version "
                             "< 2.92, if not supplied, a new key pair will be generated. This "
                             "property is required since Nova api version 2.92."),
        "type": Schema(Schema.STRING, "Keypair type. Supported since Nova api version 2.2.",
                       constraints=[AllowedValues(("ssh", "x509"))],
                       support_status=SupportStatus(version="8.0.0")),
        "user": Schema(Schema.STRING, "ID or name of user to whom to add key-pair. The usage "
                       "of this property is limited to being used by administrators only. "
                       "Supported since Nova api version 2.10.",
                       constraints=[CustomConstraint("keystone.user")],
                       support_status=SupportStatus(version="9.0.0")),
    }

    attributes_schema = {
        "public_key": Attribute("The public key.", Attribute.STRING),
        "private_key": Attribute("The private key if it has been saved.", Attribute.STRING),
    }

    translation_rules = (TranslationRule.resolve(("user",), "user"),)

    def _check_versions(self) -> None:
        """Heat's validation against the microversion (here at create: it needs the cloud)."""
        api = self.nova()
        unsupported = [key for key, version in (("type", MICROVERSION_KEY_TYPE),
                                                ("user", MICROVERSION_USER))
                       if self.properties.get(key) and not api.supports(version)]
        if unsupported:
            raise StackValidationFailed(f'Cannot use "{unsupported}" properties - nova does '
                                        "not support required api microversion.")
        if not self.properties.get("public_key") and api.supports(MICROVERSION_PUBLIC_KEY):
            raise StackValidationFailed("The public_key property is required by the nova API "
                                        "version currently used.")

    def handle_create(self) -> Any:
        self._check_versions()
        props = self.properties
        body: dict[str, Any] = {"name": props["name"]}
        if props.get("public_key"):
            body["public_key"] = props["public_key"]
        if props.get("type"):
            body["type"] = props["type"]
        if props.get("user"):
            body["user_id"] = props["user"]
        made = self._made_before() if self.attempt.retry else None
        if made is None:
            made = self.nova().post("/os-keypairs", {"keypair": body})["keypair"]
        if props["save_private_key"] and made.get("private_key"):
            self.data_set(PRIVATE_KEY, str(made["private_key"]), redact=True)
        self.resource_id_set(str(made.get("name") or props["name"]))
        return None

    def _made_before(self) -> dict[str, Any] | None:
        """A retried create: the pair an earlier try made, if it carries our public key
        (a generated pair cannot be told from another's, so that one is not taken)."""
        wanted = self.properties.get("public_key")
        if not wanted:
            return None
        try:
            found: dict[str, Any] = self.nova().get(
                f"/os-keypairs/{self.properties['name']}{self._user_query()}")["keypair"]
        except Exception as exc:
            if is_not_found(exc):
                return None
            raise
        return found if str(found.get("public_key", "")).strip() == wanted.strip() else None

    def _user_query(self) -> str:
        user = self.properties.get("user")
        return f"?user_id={user}" if user else ""

    def handle_delete(self) -> Any:
        """Delete the pair of this name, unless it is not ours: after a replacement that
        kept the name (``prepare_for_replace``), the name holds the new resource's pair,
        which this old resource's cleanup must leave alone (Heat deletes it)."""
        if self.resource_id is None or self.data().get(HANDED_OVER):
            return None
        ours = self.properties.get("public_key")
        if ours:
            try:
                found = self.show()
            except Exception as exc:
                if is_not_found(exc):
                    return None
                raise
            if str(found.get("public_key", "")).strip() != str(ours).strip():
                return None
        self.nova().delete(f"/os-keypairs/{self.resource_id}{self._user_query()}")
        return None

    def show(self) -> dict[str, Any]:
        found: dict[str, Any] = self.nova().get(
            f"/os-keypairs/{self.resource_id}{self._user_query()}")["keypair"]
        return found

    def handle_check(self) -> None:
        """Heat's check: Nova still has the pair."""
        self.show()

    def get_reference_id(self) -> str:
        return str(self.resource_id) if self.resource_id is not None else self.name

    def _resolve_attribute(self, name: str) -> Any:
        if name == "private_key":
            if self.properties.get("save_private_key"):
                return self.data().get(PRIVATE_KEY, "")
            return ""
        if self.properties.get("public_key"):
            return str(self.properties["public_key"])
        if self.resource_id is None:
            return "None"
        return str(self.show().get("public_key"))

    # -- replacement (Heat's hooks; the engine calls them once it offers them) ----------
    def prepare_for_replace(self) -> None:
        """Free the name for the replacement: the old pair goes first, as in Heat."""
        if self.resource_id is None:
            return
        self.nova().delete(f"/os-keypairs/{self.resource_id}{self._user_query()}")
        self.data_set(HANDED_OVER, "true")

    def restore_prev_rsrc(self, convergence: bool = False) -> None:
        """Heat's KeyPair gives nothing back on rollback (its pair is gone): the name
        belongs to the replacement's pair until that is deleted."""
        return None

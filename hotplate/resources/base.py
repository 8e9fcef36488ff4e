"""The resource plugin API: Heat's handler protocol over a deliberately narrow context.

A resource type is a ``Resource`` subclass with a properties and an
attributes schema and some of the handlers below. Plugins written for
Heat port with little change: the handler names, ``properties``,
``resource_id_set``, ``physical_resource_name``, ``data``/``data_set`` and
``_resolve_attribute`` mean what they mean in Heat.

What differs, on purpose:

- A plugin sees only a ``ResourceContext`` (ids, a clock, its own
  resource data, its physical name), never the stack, the database or
  the engine. Heat's ``Resource`` hands plugins the whole engine.
- The engine runs the loop: ``handle_X()`` once, then ``check_X_complete(data)``
  until it says done. Between two checks the action is *parked*: no thread
  waits for it (engine/worker/parking.py), the engine asks again on a
  back-off (quickly at first, then about every second) and stops it on a
  cancel or at the stack's deadline. A check answers ``True`` (done),
  ``False`` (not yet: the engine's back-off) or ``CheckAgain(after=30)``
  (not yet, and not worth asking for 30 s). Plugins therefore never sleep
  or block; something that takes time keeps its start time
  (``ctx.clock.now()``) in the handler data and compares on each check.
  Handler data stays in the engine's memory and need not be JSON.
- Validation and the update/replace decision are classmethods over plain
  property dicts, so the engine can decide before it builds an instance.

Lifecycle, driven by the engine::

    create:  handle_create()              -> data; check_create_complete(data) ... True
    update:  handle_update(new, diff)     -> data; check_update_complete(data) ... True
             (raising UpdateReplace from either asks for a replacement instead)
    delete:  handle_delete()              -> data; check_delete_complete(data) ... True
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, ClassVar, Protocol

from hotplate.model.errors import NotSupported
from hotplate.ports import Clock
from hotplate.resources.action_answers import FIRST_TRY, Attempt, CheckAgain, CheckResult
from hotplate.resources.attributes import SHOW, SHOW_ATTRIBUTE, Attribute, InvalidTemplateAttribute
from hotplate.resources.live_state import LiveState
from hotplate.resources.properties import (
    PropertyPath,
    Schema,
    validate_properties,
    with_defaults,
)
from hotplate.resources.support import SupportStatus
from hotplate.resources.translation import TranslationRule, has_resolve, resolve, translate

__all__ = ["DEPLOYMENTS", "FIRST_TRY", "Attempt", "CheckAgain", "CheckResult", "Resource",
           "ResourceContext", "heat_class_name", "select_path"]

DEPLOYMENTS = "deployments"
"""The metadata key holding a server's software deployments (their configs)."""


def heat_class_name(cls: type[Resource]) -> str:
    """How Heat names the plugin class of ``cls``'s type: its own ``heat_class_name``,
    else the class's name (a third-party plugin's is its own)."""
    named = vars(cls).get("heat_class_name")
    return named if isinstance(named, str) else cls.__name__


def select_path(value: Any, path: tuple[Any, ...]) -> Any:
    """Follow ``path`` (keys and indices) into ``value``; None at the first dead end."""
    for key in path:
        if isinstance(value, Mapping):
            value = value.get(key)
        elif isinstance(value, list) and isinstance(key, int | str) and not isinstance(key, bool):
            try:
                value = value[int(key)]
            except (ValueError, IndexError):
                return None
        else:
            return None
        if value is None:
            return None
    return value


class ResourceContext(Protocol):
    """What the engine gives a plugin instance: narrow on purpose."""

    stack_id: str
    stack_name: str
    project_id: str
    resource_name: str
    uuid: str
    clock: Clock

    def physical_resource_name(self) -> str:
        """Heat's ``<stack>-<resource>-<short id>`` name, computed by the engine."""
        ...

    def data(self) -> Mapping[str, str]:
        """This resource's stored key/value data (resource_data)."""
        ...

    def data_set(self, key: str, value: str, *, redact: bool = False) -> None:
        """Store one item; ``redact`` hides the value from listings (secrets)."""
        ...

    def data_delete(self, key: str) -> None: ...


class Resource(LiveState):
    """Every resource type's base (live-state hooks: live_state.py); defaults do nothing."""

    properties_schema: ClassVar[Mapping[str, Schema]] = {}
    attributes_schema: ClassVar[Mapping[str, Attribute]] = {}
    support_status: ClassVar[SupportStatus] = SupportStatus()
    description: ClassVar[str | None] = None
    managed_metadata: ClassVar[frozenset[str]] = frozenset({DEPLOYMENTS})
    """Metadata keys the plugin writes itself (a group's cooldown state): an update
    keeps them, where the template's metadata replaces the rest. By default the
    ``deployments`` that software deployments push to whatever resource serves as
    their server: an agent polls them there, and Heat keeps them across updates."""
    path_attributes: ClassVar[bool] = False
    """True when ``get_attribute_path`` gives more than the path applied to the whole
    value (a group's ``[group, attr, key]`` reads ``key`` of each member's ``attr``)."""
    always_updates: ClassVar[bool] = False
    """True when an update reaches the plugin even with no property changed: a
    nested stack's own resources decide what changes (its template files may have)."""
    heat_class_name: ClassVar[str | None] = None
    """The name of Heat's class for this type where it differs from this class's
    (Heat prints it in a timed-out action's reason); read it with ``heat_class_name``,
    which a subclass does not inherit it through."""
    default_client_name: ClassVar[str | None] = None
    """The cloud service the type needs, by Heat's client name (``"nova"``,
    ``"neutron"``, ``"cinder"``...; ``resources.heat_types.CLIENT_SERVICES`` lists
    them): a caller whose catalog lacks it neither sees the type listed nor may use
    it (Heat's ``ResourceTypeUnavailable``). None, for types the engine implements
    itself: always available, and nothing is asked of the catalog."""
    required_service_extension: ClassVar[str | None] = None
    """An extension the service must offer too (Neutron's ``trunk``), as in Heat."""
    translation_rules: ClassVar[tuple[TranslationRule, ...]] = ()
    """Heat's translation rules (``resources.translation``): deprecated names moved to
    their successors before validation, names resolved to ids before create and
    before an update is diffed (``resolve_properties``)."""
    local_only: ClassVar[bool] = False
    """True when the handlers change nothing outside hotplate's own database.

    Such a plugin's action may run before its lock is taken and be recorded,
    lock and release included, in a single transaction: if another worker
    wins the row meanwhile, the work is simply dropped, and a crash before
    the commit leaves nothing behind to clean up. Any plugin that calls out
    to a service must leave this False.
    """

    def __init__(
        self,
        name: str,
        properties: Mapping[str, Any],
        ctx: ResourceContext,
        resource_id: str | None = None,
    ) -> None:
        """``properties`` come from ``validate`` (or were stored from it); keys they
        lack get their defaults, so handlers may index any declared property."""
        self.name = name
        self.properties: dict[str, Any] = with_defaults(self.properties_schema, properties)
        self.ctx = ctx
        self.resource_id = resource_id
        self.attempt = FIRST_TRY
        self.waiting_on: str | None = None
        """The cloud object a check of this action last waited on through the engine's
        status board (``openstack.waiting``), by its wake key: the default ``wake_key``."""

    @property
    def cloud(self) -> Any:
        """The cloud as the stack's owner sees it, from the engine (``ctx.cloud``): a
        ``hotplate.cloud.Cloud`` with ``compute``, ``network``, ``image``,
        ``block_storage``, ``identity``..., ``call`` (retried, classified) and ``find``
        (by name or id, Heat's errors). Plugins never build a session themselves."""
        cloud = getattr(self.ctx, "cloud", None)
        if cloud is None:
            raise RuntimeError(f"{type(self).__name__}: this context gives no cloud")
        return cloud

    # -- declarations -------------------------------------------------------------
    @classmethod
    def validate(cls, raw: Mapping[str, Any] | None, path: PropertyPath) -> dict[str, Any]:
        """Check raw property values; return the properties a new instance takes.

        The schema check is followed by ``check_properties``. Subclasses with
        checks across properties call ``super().validate`` and then raise
        ``StackValidationFailed``. ``path`` names the properties section
        (``('resources', 'web', 'properties')``).
        """
        if cls.translation_rules:
            raw = translate(cls.translation_rules, raw, path)
        props = validate_properties(cls.properties_schema, raw, path)
        cls.check_properties(props, path)
        return props

    @classmethod
    def resolves_properties(cls) -> bool:
        """Whether ``resolve_properties`` asks the cloud (a RESOLVE rule)."""
        return has_resolve(cls.translation_rules)

    @classmethod
    def resolve_properties(cls, props: Mapping[str, Any], cloud: Any) -> dict[str, Any]:
        """Validated ``props`` with names resolved to ids by the type's RESOLVE rules,
        through ``cloud.find`` (Heat's finders and texts). The engine calls it before
        a create and on the new properties before an update is diffed, as Heat
        translates them then; types without such rules get ``props`` back."""
        if not cls.resolves_properties():
            return dict(props)
        return resolve(cls.translation_rules, props, cloud.find)

    @classmethod
    def validate_known(cls, raw: Mapping[str, Any], pending: frozenset[str],
                       path: PropertyPath) -> None:
        """Check what can be checked before the resources this one reads exist.

        ``pending`` names the properties whose values come from resources not
        built yet; ``raw`` holds the values of the others (a pending key may be
        there too, its value a placeholder). As in Heat, a pending value is not
        checked for its type, constraints or presence, but the property must
        exist; the known values are checked against the schema and then by
        ``check_properties``, so a request Heat's validation refuses is refused
        before anything is stored.

        A type without a properties schema has nothing a pending value could be
        checked against: its own ``validate`` judges the keys (OS::Heat::None
        takes any).

        Raises:
            StackValidationFailed: naming the property, as ``validate`` does.
        """
        if not pending or not cls.properties_schema:
            cls.validate(raw, path)
            return
        schema = cls.properties_schema
        if cls.translation_rules:
            raw, pending = cls._translate_known(raw, pending, path)
        waiting = pending & schema.keys()  # an unknown key is refused, pending or not
        known = validate_properties({k: s for k, s in schema.items() if k not in waiting},
                                    {k: v for k, v in raw.items() if k not in waiting}, path)
        cls.check_properties(known, path)

    @classmethod
    def _translate_known(cls, raw: Mapping[str, Any], pending: frozenset[str],
                         path: PropertyPath) -> tuple[Mapping[str, Any], frozenset[str]]:
        """``raw`` translated; a top-level property a REPLACE rule fills from a pending
        one is pending too."""
        moved = {r.path[0] for r in cls.translation_rules
                 if r.value_path is not None and len(r.path) == 1
                 and r.value_path[0] in pending and r.value_path[0] in raw}
        translated = translate(cls.translation_rules, raw, path)
        return (translated if isinstance(translated, Mapping) else raw), pending | moved

    @classmethod
    def check_properties(cls, props: Mapping[str, Any], path: PropertyPath) -> None:
        """Hook: a type's own checks of validated property values (a transport it
        cannot serve, say). Called by ``validate`` with every declared key, and by
        ``validate_known`` without the keys whose values are not known yet, so read
        them with ``props.get``. The default checks nothing.

        Raises:
            StackValidationFailed: naming the property (``(*path, key)``).
        """

    @classmethod
    def check_with_cloud(cls, props: Mapping[str, Any], path: PropertyPath, cloud: Any,
                         seen: dict[Any, Any]) -> None:
        """Hook: checks of validated properties that ask the caller's cloud (Heat's
        validations that look an image or a flavor up), run when a stack is created,
        updated or previewed with Keystone credentials, after the property checks.
        ``seen``: a cache of lookups shared by the request's resources. The default
        checks nothing.

        Raises:
            StackValidationFailed: in Heat's words.
        """

    @classmethod
    def property_diff(cls, old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
        """Heat's ``prop_diff``: the properties whose value changed, with their new values."""
        keys = list(new) + [k for k in old if k not in new]
        return {k: new.get(k) for k in keys if old.get(k) != new.get(k)}

    def needs_replace_failed(self) -> bool:
        """Whether an update replaces this resource while its row is FAILED (Heat's
        hook, asked by the engine before the update). True by default: a failed
        action may have left anything behind. A type that can tell from its cloud
        object that it is fine says False; the update then goes on in place, and
        with nothing to change the row is settled COMPLETE."""
        return True

    @classmethod
    def needs_replacement(cls, old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
        """Whether going from ``old`` to ``new`` properties needs a new physical resource.

        True when a changed property is not ``update_allowed``, or when the
        type's ``needs_replace_with_prop_diff`` says so.
        """
        # Only properties the type (now) declares count, as in Heat: a provider
        # template that dropped a parameter updates its stack, it does not replace it.
        changed = frozenset(k for k in cls.property_diff(old, new) if k in cls.properties_schema)
        if not changed:
            return False
        if cls.needs_replace_with_prop_diff(changed, new, old):
            return True
        allowed = {k for k, s in cls.properties_schema.items() if s.update_allowed}
        return not changed <= allowed

    @classmethod
    def needs_replace_with_prop_diff(
        cls, changed: frozenset[str], new: Mapping[str, Any], old: Mapping[str, Any]
    ) -> bool:
        """Hook (Heat's name): replace even though every changed property allows update."""
        return False

    @classmethod
    def check_immutable(
        cls, old: Mapping[str, Any], new: Mapping[str, Any], *, name: str, type_name: str
    ) -> None:
        """Refuse a change to an ``immutable`` property, with Heat's NotSupported text."""
        changed = cls.property_diff(old, new)
        forbidden = sorted(
            k for k in changed if k in cls.properties_schema and cls.properties_schema[k].immutable
        )
        if forbidden:
            raise NotSupported(
                f"Update to properties {', '.join(forbidden)} of {name} ({type_name})"
                " is not supported."
            )

    @classmethod
    def all_attributes(cls) -> dict[str, Attribute]:
        """The declared attributes plus Heat's ``show``."""
        return {**cls.attributes_schema, SHOW: SHOW_ATTRIBUTE}

    @classmethod
    def type_description(cls) -> str:
        """``description``, else the class docstring, as Heat's resource-type listing shows."""
        return cls.description or inspect.getdoc(cls) or ""

    # -- the context, under Heat's method names ---------------------------------
    def physical_resource_name(self) -> str:
        return self.ctx.physical_resource_name()

    def data(self) -> Mapping[str, str]:
        return self.ctx.data()

    def data_set(self, key: str, value: str, *, redact: bool = False) -> None:
        self.ctx.data_set(key, value, redact=redact)

    def data_delete(self, key: str) -> None:
        self.ctx.data_delete(key)

    def next_check_after(self, data: Any) -> float | None:
        """Seconds after which the next check must come at the latest (None: no such
        moment): something changes then (a wait condition's timeout, the end of a
        pause between batches), which a longer back-off would notice late."""
        return None

    def wake_key(self) -> str | None:
        """What this action waits on (a child stack's id), if something says when it
        ends: that end re-checks the action at once, so the back-off between checks
        can be long (engine/worker/parking.py). None: only the back-off asks.
        By default the cloud object a batched wait looks at (``waiting_on``)."""
        return self.waiting_on

    def update_policy(self) -> Mapping[str, Any]:
        """The resource's ``update_policy`` in the template being applied (as written)."""
        policy = getattr(self.ctx, "update_policy", None)
        found = policy() if callable(policy) else None
        return found if isinstance(found, Mapping) else {}

    def resource_id_set(self, value: str | None) -> None:
        """Record the physical id; the engine stores ``resource_id`` when the action ends."""
        self.resource_id = value

    def resume_data(self, action: str) -> Any:
        """The data check_<action>_complete needs when an engine takes over an action
        whose handle_<action> already ran (the physical id was recorded): what that
        handle returned is gone with its engine, so rebuild it from stored state."""
        return None

    # -- handlers -----------------------------------------------------------------
    def handle_create(self) -> Any:
        return None

    def check_create_complete(self, data: Any) -> CheckResult:
        return True

    def handle_update(
        self, new_properties: Mapping[str, Any], prop_diff: Mapping[str, Any]
    ) -> Any:
        """Apply an in-place update. The default only adopts the new properties.

        Overrides call ``super().handle_update`` (or set ``self.properties``)
        so that attributes resolved after the update see the new values.
        May raise ``UpdateReplace``.
        """
        self.properties = with_defaults(self.properties_schema, new_properties)
        return None

    def check_update_complete(self, data: Any) -> CheckResult:
        return True

    def handle_delete(self) -> Any:
        return None

    def check_delete_complete(self, data: Any) -> CheckResult:
        return True

    # -- replacement hooks (engine: convergence/replacement_hooks.py) ------------
    replacement: Resource | None = None
    """While ``restore_prev_rsrc(convergence=True)`` runs: the plugin of the row that
    replaced this one (its ``resource_id`` and ``data()``), None when that row is gone.
    Heat's plugins load it through ``self.replaced_by``; ours are handed it."""

    def prepare_for_replace(self) -> None:
        """Hook (Heat's name): a replacement of this resource is about to be created.

        Called on the existing resource, just before the new one's row is
        made, so it can give up what the new one needs (a port its fixed IPs,
        a key pair its unique name). Raising fails this resource's update. The
        default does nothing, and the engine does not call it unless overridden.
        """

    def restore_prev_rsrc(self, convergence: bool = False) -> None:
        """Hook (Heat's name): a rollback takes this replaced resource back.

        Called on the old resource (``convergence`` True) when a ROLLBACK
        traversal chooses it again over its replacement (``self.replacement``),
        so it gets back what ``prepare_for_replace`` handed over. Raising fails
        this resource's update. The default does nothing, and the engine does
        not call it unless overridden.
        """

    def handle_preempt(self) -> None:
        """A newer update waits for this resource's running action: end it early if
        that is safe. Called outside that action; the default does nothing."""
        return None

    # -- references ---------------------------------------------------------------
    def get_reference_id(self) -> str:
        """What ``get_resource`` returns: the physical id, or the name before there is one."""
        if self.resource_id is not None:
            return str(self.resource_id)
        return self.name

    def get_attribute(self, name: str) -> Any:
        """The whole value of attribute ``name`` (the caller applies any path into it).

        Raises:
            InvalidTemplateAttribute: ``name`` is neither declared nor ``show``.
        """
        if name == SHOW:
            return self._show_resource()
        if name not in self.attributes_schema:
            raise InvalidTemplateAttribute(self.name, name)
        return self._resolve_attribute(name)

    def attribute_values(self) -> dict[str, Any]:
        """``get_attr: [name]``: every declared attribute but ``show``, by name (Heat's
        FnGetAtts). One the type refuses to answer is left out, as Heat leaves it."""
        found: dict[str, Any] = {}
        for name in self.attributes_schema:
            if name == SHOW:
                continue
            try:
                found[name] = self.get_attribute(name)
            except InvalidTemplateAttribute:
                continue
        return found

    def get_attribute_path(self, name: str, path: tuple[Any, ...]) -> Any:
        """Attribute ``name`` at ``path``; None where the path leads nowhere (Heat's rule)."""
        return select_path(self.get_attribute(name), path)

    def _resolve_attribute(self, name: str) -> Any:
        """Override: the value of a declared attribute (None when unknown yet)."""
        return None

    def _show_resource(self) -> Any:
        """The ``show`` attribute. Heat shows the backing service's view of the
        resource; types with no such service show their declared attributes."""
        return {key: self._resolve_attribute(key) for key in self.attributes_schema}

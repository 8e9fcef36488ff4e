"""OS::Heat::Stack: a stack created from a template given as a property.

As in Heat, the stack is one of its own (not nested under the parent in
listings) and is deleted with the resource. Where it is made:

- ``context.region_name`` unset, or naming this engine's region
  (``[DEFAULT] region_name_for_services``): this engine makes it, as any child
  stack (``StackResource``, through the ``nested_stacks()`` port). So does an
  engine that is not told its region (no ``region_name_for_services``): it
  cannot tell its own region from another.
- another region: that region's Heat makes it, as Heat's RemoteStack does
  (``remote_heat``): created, updated, suspended, resumed, checked and deleted
  through the orchestration endpoint of that region in the stack owner's
  catalog, with the stack's own credentials (its trust), and polled between
  parked checks, verifying the endpoint's certificate against ``context.ca_cert``
  (not at all with ``context.insecure``; else as ``[clients_heat]`` says). A new
  ``region_name`` is a new stack; new TLS settings update in place. Heat's
  ``credential_secret_id`` (another cloud's credentials, from Barbican) is not
  implemented. Its physical id is the remote stack's id; ``outputs`` and
  ``stack_name`` are read from the remote stack when asked. The region is
  recorded with the stack (resource data ``region``), so the stack is deleted
  where it was made whatever the engine's configuration says later.

A remote stack that fails fails the resource with Heat's text
(``ResourceInError: resources.<name>: Went to status CREATE_FAILED due to
"<the remote reason>"``), a refusal of the remote API with heatclient's
(``HTTPBadRequest: resources.<name>: ERROR: <message>``). One deleted out of
band is gone for the delete (404 ignored, as Heat does); an update of it fails
with the remote API's ``HTTPNotFound``. A region whose catalog has no
orchestration endpoint is refused when the stack is validated, and another
region's template is validated by that region's Heat, in Heat's words
(``engine/service/nested_validation.py``). A create retried after its engine
died finds the remote stack it made by its name (which carries the row's id).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hotplate.resources.attributes import Attribute
from hotplate.resources.base import Resource
from hotplate.resources.nested import NestedStacks
from hotplate.resources.openstack.cloud_errors import is_conflict, is_not_found
from hotplate.resources.properties import Schema
from hotplate.resources.remote_heat import RemoteHeat, action_done
from hotplate.resources.stack_resource import StackResource
from hotplate.resources.support import SupportStatus
from hotplate.template.yaml_loader import load_text

__all__ = ["HeatStack"]

REGION_KEY = "region"
"""Resource data: the region whose Heat holds the stack (absent: this engine's own)."""
SNAPSHOT_KEY = "snapshot_id"
"""Resource data: the stack's own snapshot taken for the parent's snapshot."""
CREATED = "CREATE"
"""What an update that had to create the remote stack hands its check."""


class HeatStack(StackResource):
    """A resource representing a stack which can be created from a template."""

    heat_class_name = "RemoteStack"

    owned = False
    support_status = SupportStatus(version="6.0.0")
    properties_schema = {
        "context": Schema(Schema.MAP, "Context for this stack.", update_allowed=True, schema={
            "region_name": Schema(Schema.STRING, "Region name in which this stack "
                                  "will be created."),
            "ca_cert": Schema(Schema.STRING, "CA Cert for SSL.", update_allowed=True,
                              support_status=SupportStatus(version="12.0.0")),
            "insecure": Schema(Schema.BOOLEAN, "If set, then the server's certificate will "
                               "not be verified.", default=False, update_allowed=True,
                               support_status=SupportStatus(version="12.0.0")),
        }),
        "template": Schema(Schema.STRING, "Template that specifies the stack to be created "
                           "as a resource.", required=True, update_allowed=True),
        "timeout": Schema(Schema.NUMBER, "Number of minutes to wait for this stack "
                          "creation.", update_allowed=True),
        "parameters": Schema(Schema.MAP, "Set of parameters passed to this stack.",
                             default={}, update_allowed=True),
    }
    attributes_schema = {
        "stack_name": Attribute("Name of the stack.", Attribute.STRING),
        "outputs": Attribute("A dict of key-value pairs output from the stack.",
                             Attribute.MAP),
    }

    def child_template(self) -> str:
        return str(self.properties["template"])

    def child_parameters(self) -> dict[str, Any]:
        return dict(self.properties.get("parameters") or {})

    # -- where the stack lives ------------------------------------------------------
    def _own_region(self) -> str | None:
        """This engine's region: the region of the stack's own cloud."""
        try:
            cloud = self.cloud
        except RuntimeError:  # a context with no cloud
            return None
        region = getattr(cloud, "region", None)
        return str(region) if region else None

    def remote_region(self) -> str | None:
        """The region whose Heat holds (or is to make) the stack; None: this engine.

        A stack already made stays where it was made (its recorded region); a new
        one goes to ``context.region_name`` when that names another region than
        this engine's."""
        if self.resource_id is not None:
            return self.data().get(REGION_KEY) or None
        wanted = (self.properties.get("context") or {}).get("region_name")
        own = self._own_region()
        if wanted and own and str(wanted) != own:
            return str(wanted)
        return None

    def _remote(self) -> RemoteHeat | None:
        region = self.remote_region()
        if region is None:
            return None
        context = self.properties.get("context") or {}
        return RemoteHeat(self.cloud, region, ca_cert=context.get("ca_cert") or None,
                          insecure=bool(context.get("insecure")))

    @classmethod
    def needs_replace_with_prop_diff(cls, changed: frozenset[str], new: Mapping[str, Any],
                                     old: Mapping[str, Any]) -> bool:
        """A new region is a new stack (Heat's rule); new TLS settings update in place."""
        return "context" in changed and (
            (new.get("context") or {}).get("region_name")
            != (old.get("context") or {}).get("region_name"))

    def _remote_body(self, *, create: bool) -> dict[str, Any]:
        """The create/update request Heat's RemoteStack sends: the template (parsed, as
        Heat sends it: the remote's errors then carry no line numbers), the parameters,
        what the parent hands its children (files, environment), and no rollback on
        create (on update, the parent's choice)."""
        parameters = self.child_parameters()
        inherited = self._stacks().inherited(parameters)
        body: dict[str, Any] = {
            "template": load_text(self.child_template()), "parameters": parameters,
            "files": inherited["files"], "environment": inherited["environment"],
            "disable_rollback": True if create else bool(inherited["disable_rollback"])}
        if self.properties.get("timeout") is not None:
            body["timeout_mins"] = self.properties["timeout"]
        return body

    # -- handlers -------------------------------------------------------------------
    def handle_create(self) -> Any:
        remote = self._remote()
        if remote is None:
            return super().handle_create()
        name = self.physical_resource_name()
        try:
            stack_id = remote.create({**self._remote_body(create=True), "stack_name": name})
        except Exception as exc:
            if not is_conflict(exc):
                raise
            # A retry of this very resource (its engine died before the id was kept):
            # the name carries the row's own id, so the stack there is this one's.
            stack_id = str(remote.get(name)["id"])
        self.resource_id_set(stack_id)
        self.data_set(REGION_KEY, remote.region)
        return stack_id

    def handle_update(self, new_properties: Mapping[str, Any],
                      prop_diff: Mapping[str, Any]) -> Any:
        if self.resource_id is not None and self.remote_region() is None:
            return super().handle_update(new_properties, prop_diff)
        Resource.handle_update(self, new_properties, prop_diff)
        if self.resource_id is None:  # its create failed before there was a stack
            self.handle_create()
            return CREATED if self.remote_region() is not None else None
        remote = self._remote()
        assert remote is not None  # a remote stack's region is recorded
        remote.update(str(self.resource_id), self._remote_body(create=False))
        return None

    def check_update_complete(self, data: Any) -> bool:
        return self._done("CREATE" if data == CREATED else "UPDATE")

    def _done(self, action: str) -> bool:
        remote = self._remote()
        if remote is None:
            return super()._done(action)
        return action_done(remote.get(str(self.resource_id)), action)

    def _child_action(self, action: str) -> None:
        remote = self._remote()
        if remote is None:
            super()._child_action(action)
            return
        if self.resource_id is None:
            raise Exception(f"Cannot {action.lower()} {self.name}, resource not found")
        remote.action(str(self.resource_id), action.lower())

    def handle_delete(self) -> Any:
        remote = self._remote()
        if remote is None:
            return super().handle_delete()
        if self.resource_id is not None:
            remote.delete(str(self.resource_id))
        return self.resource_id

    def check_delete_complete(self, data: Any) -> bool:
        remote = self._remote()
        if remote is None:
            return super().check_delete_complete(data)
        if self.resource_id is None:
            return True
        try:
            stack = remote.get(str(self.resource_id))
        except Exception as exc:
            if is_not_found(exc):
                return True
            raise
        return action_done(stack, "DELETE")

    def handle_preempt(self) -> None:
        """A remote stack's update is left to run (Heat's RemoteStack cancels nothing)."""
        if self.remote_region() is None:
            super().handle_preempt()

    def wake_key(self) -> str | None:
        """A remote stack's end wakes nothing here: the back-off alone asks again."""
        return super().wake_key() if self.remote_region() is None else None

    # -- snapshots (Heat's RemoteStack: a snapshot of the stack, its template restored) --
    def _snapshots(self) -> RemoteHeat | NestedStacks:
        return self._remote() or self._stacks()

    def handle_snapshot(self) -> str | None:
        if self.resource_id is None:
            return None
        snapshot_id = self._snapshots().snapshot(str(self.resource_id))
        self.data_set(SNAPSHOT_KEY, snapshot_id)
        return snapshot_id

    def check_snapshot_complete(self, snapshot_id: str | None) -> bool:
        """Done once the stack's own snapshot is: a restore reads its template."""
        if snapshot_id is None:
            return True
        shown = self._snapshots().snapshot_show(str(self.resource_id), snapshot_id)
        if shown.get("status") == "FAILED":
            raise Exception(shown.get("status_reason") or "snapshot failed")
        return shown.get("status") == "COMPLETE"

    def handle_restore(self, definition: dict[str, Any],
                       part: Mapping[str, Any]) -> dict[str, Any]:
        """This resource with the template, environment parameters and properties the
        stack had when the snapshot was taken (Heat restores the stack's template, not
        the stack's own snapshot)."""
        snapshot_id = (part.get("resource_data") or {})[SNAPSHOT_KEY]
        shown = self._snapshots().snapshot_show(str(self.resource_id), str(snapshot_id))
        data = shown.get("data") or {}
        properties = {key: value for key, value in self.properties.items()
                      if value is not None}
        properties["template"] = json.dumps(data.get("template") or {})
        properties["parameters"] = dict((data.get("environment") or {}).get("parameters")
                                        or {})
        return {**definition, "properties": properties}

    # -- attributes -------------------------------------------------------------------
    def child_outputs(self) -> dict[str, Any]:
        remote = self._remote()
        if remote is None or self.resource_id is None:
            return super().child_outputs()
        outputs = remote.get(str(self.resource_id)).get("outputs") or []
        return {o["output_key"]: o.get("output_value") for o in outputs}

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        remote = self._remote()
        if name == "stack_name":
            if remote is not None:
                found = remote.get(str(self.resource_id)).get("stack_name")
                return found or self.physical_resource_name()
            return self.physical_resource_name()
        if name == "outputs":
            return self.child_outputs()
        return None

// What the page knows of a stack's resources: their rows (keyed by stack name and
// resource name, so a nested stack's resources live beside the root's), their live
// states, the plan of an update, and which changes are structural (and need a new layout)
// rather than a state change (which only recolours a node).

import { linkOf, stackOfLink } from "./api.js";
import { isFailed, stateOf } from "./states.js";

export function keyOf(stackName, resourceName) {
  return `${stackName}/${resourceName}`;
}

export class GraphStore {
  constructor(root) {
    this.root = root; // { name, id }
    this.resources = new Map(); // key -> resource row
    this.states = new Map(); // key -> "CREATE_COMPLETE"
    this.reasons = new Map(); // key -> status reason
    this.stacks = new Map(); // stack name -> Set of keys
    this.nested = new Map(); // key -> { name, id } of the resource's own stack
    this.nestedParent = new Map(); // nested stack name -> key of the resource that owns it
    this.plan = null; // key -> { change, reason }
    this.lastFailure = null; // [{ chain: [key...], reason }] of the last failure seen
    // Failures seen since the stack's last action began: a rollback deletes a failed
    // resource at once (its FAILED state may last less than a frame), yet what failed and
    // why stays on the graph until the next create, update or delete.
    this.failuresSeen = new Map(); // key -> reason
    this.stackStatus = "";
    this.planAdded = new Map(); // stack name -> [{ name, type, reason }]
    this.version = 0; // bumps on every structural change
    this.structureListeners = new Set();
    this.stateListeners = new Set();
  }

  /** Replace one stack's resources (and those of the stacks under it that ``rows`` holds). */
  replaceResources(rows, stackNames) {
    const before = this._shape(stackNames);
    const old = new Map();
    for (const name of stackNames) {
      for (const key of this.stacks.get(name) || []) {
        old.set(key, `${this.states.get(key)}|${this.reasons.get(key)}`);
        this._forget(key);
      }
      this.stacks.delete(name);
    }
    for (const row of rows) this._remember(row);
    if (this._shape(stackNames) !== before) {
      this._structureChanged();
      return;
    }
    // The same resources and edges: a re-read only brings states, and no new layout.
    const changed = new Set();
    for (const [key, was] of old) {
      if (`${this.states.get(key)}|${this.reasons.get(key)}` !== was) changed.add(key);
    }
    if (changed.size) this._statesChanged(changed);
  }

  /** What a layout depends on in these stacks: their resources, edges and nested stacks. */
  _shape(stackNames) {
    const parts = [];
    for (const name of [...stackNames].sort()) {
      for (const key of this.keysOf(name)) {
        const row = this.resources.get(key);
        const nested = this.nested.get(key);
        parts.push(`${key}>${(row.required_by || []).join(",")}>${nested ? nested.id : ""}`);
      }
    }
    return parts.join("\n");
  }

  /** The stack an API row (resource or event) belongs to: its "stack" link names it. */
  stackNameOf(row) {
    if (row.stack_name) return row.stack_name;
    const owner = stackOfLink(linkOf(row, "stack"));
    return owner ? owner.name : this.root.name;
  }

  _remember(row) {
    const stackName = this.stackNameOf(row);
    const key = keyOf(stackName, row.resource_name);
    this.resources.set(key, row);
    this.states.set(key, stateOf(row));
    this.reasons.set(key, row.resource_status_reason || "");
    if (isFailed(this.states.get(key))) this.failuresSeen.set(key, row.resource_status_reason || "");
    if (!this.stacks.has(stackName)) this.stacks.set(stackName, new Set());
    this.stacks.get(stackName).add(key);
    const nestedHref = linkOf(row, "nested");
    if (nestedHref) {
      const nested = stackOfLink(nestedHref);
      if (nested) {
        this.nested.set(key, nested);
        this.nestedParent.set(nested.name, key);
      }
    }
  }

  _forget(key) {
    const nested = this.nested.get(key);
    if (nested) this.nestedParent.delete(nested.name);
    this.resources.delete(key);
    this.states.delete(key);
    this.reasons.delete(key);
    this.nested.delete(key);
  }

  /** The keys of one stack's resources, in name order (a stable layout input). */
  keysOf(stackName) {
    return [...(this.stacks.get(stackName) || [])].sort();
  }

  /**
   * Apply events in the order they happened. Answers whether one named a resource the
   * page does not know (a structural change: the caller re-reads the list).
   */
  applyEvents(events) {
    const changed = new Set();
    let unknown = false;
    for (const event of events) {
      const stackName = this.stackNameOf(event);
      const name = event.resource_name || event.logical_resource_id;
      const key = keyOf(stackName, name);
      if (!this.resources.has(key)) {
        // A stack's own events carry its name as the resource's; those are not nodes.
        if (name !== stackName && !this.nestedParent.has(name)) unknown = true;
        continue;
      }
      const state = stateOf(event);
      this.states.set(key, state);
      this.reasons.set(key, event.resource_status_reason || "");
      if (isFailed(state)) this.failuresSeen.set(key, event.resource_status_reason || "");
      changed.add(key);
    }
    if (changed.size) this._statesChanged(changed);
    return unknown;
  }

  /** The stack's status moved: a new create, update or delete forgets old failures. */
  noteStackStatus(status) {
    const before = this.stackStatus;
    this.stackStatus = status;
    const starting = status.endsWith("_IN_PROGRESS") && !status.startsWith("ROLLBACK_");
    if (starting && before && before !== status && !before.endsWith("_IN_PROGRESS") && this.failuresSeen.size) {
      const keys = new Set(this.failuresSeen.keys());
      this.failuresSeen.clear();
      this._statesChanged(keys);
    }
  }

  /** Whether the resource failed: now, or since the stack's last action began. */
  failed(key) {
    return isFailed(this.states.get(key) || "") || this.failuresSeen.has(key);
  }

  /** Why it failed: its reason now, or the one it failed with. */
  failureReason(key) {
    return isFailed(this.states.get(key) || "") ? this.reasons.get(key) || "" : this.failuresSeen.get(key) || "";
  }

  setPlan(detail) {
    this.plan = new Map();
    this.planAdded = new Map();
    const walk = (entries, stackName) => {
      for (const entry of entries || []) {
        const key = keyOf(stackName, entry.resource_name);
        const reason = planReason(entry);
        if (entry.change === "added") {
          if (!this.planAdded.has(stackName)) this.planAdded.set(stackName, []);
          this.planAdded.get(stackName).push({ name: entry.resource_name, type: entry.resource_type, reason });
        }
        this.plan.set(key, { change: entry.change, reason });
        const nested = this.nested.get(key);
        if (entry.nested && nested) walk(entry.nested, nested.name);
      }
    };
    walk(detail, this.root.name);
    this._structureChanged();
  }

  clearPlan() {
    if (!this.plan) return;
    this.plan = null;
    this.planAdded = new Map();
    this._structureChanged();
  }

  /**
   * The path of a failure: from each failed resource of the root stack down through the
   * failed resources of its nested stack, to the resources that failed on their own (failed now, or
   * since the stack's last action began).
   * Answers { path: Set of keys, causes: Set of keys, chains: [[key...]] }.
   */
  failurePath() {
    const path = new Set();
    const causes = new Set();
    const chains = [];
    const visit = (stackName, chain, seen) => {
      for (const key of this.keysOf(stackName)) {
        if (!this.failed(key)) continue;
        const next = [...chain, key];
        const nested = this.nested.get(key);
        const below = nested && !seen.has(nested.name)
          ? this.keysOf(nested.name).filter((k) => this.failed(k))
          : [];
        for (const k of next) path.add(k);
        if (below.length) {
          visit(nested.name, next, new Set([...seen, nested.name]));
        } else {
          causes.add(key);
          chains.push(next);
        }
      }
    };
    visit(this.root.name, [], new Set([this.root.name]));
    if (chains.length) {
      // Kept for after a rollback, which deletes what failed along with its reason.
      this.lastFailure = chains.map((chain) => ({ chain, reason: this.failureReason(chain[chain.length - 1]) }));
    }
    return { path, causes, chains };
  }

  onStructure(listener) {
    this.structureListeners.add(listener);
    return () => this.structureListeners.delete(listener);
  }

  onStates(listener) {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  _structureChanged() {
    this.version += 1;
    for (const listener of this.structureListeners) listener(this.version);
  }

  _statesChanged(keys) {
    for (const listener of this.stateListeners) listener(keys);
  }
}

/** The reason text of one plan entry (resource_changes_detail). */
export function planReason(entry) {
  switch (entry.change) {
    case "added":
      return "added by the new template";
    case "deleted":
      return "not in the new template: deleted";
    case "replaced": {
      const replacement = entry.replacement || {};
      const forced = (replacement.forced_by || []).join(", ");
      return replacement.reason || (forced ? `replaced: ${forced} cannot change in place` : "replaced");
    }
    case "updated": {
      const names = (entry.properties || []).map((p) => p.name);
      if (names.length) return `updated in place: ${names.join(", ")}`;
      if (entry.metadata_changed) return "updated in place: metadata";
      return "updated in place";
    }
    default:
      return "unchanged";
  }
}

// Before an update: a new template (and environment) read from files, the plan the server
// previews drawn on the graph, and Apply, which sends the update itself.

import { useState } from "preact/hooks";
import { currentSession, request } from "./api.js";
import { PLAN_KINDS } from "./states.js";

function readFile(input) {
  const file = input && input.files && input.files[0];
  return file ? file.text() : Promise.resolve(null);
}

export function PlanForm({ store, path, onApplied }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const [body, setBody] = useState(null);
  const [counts, setCounts] = useState(null);
  const canApply = !!(currentSession() && currentSession().can_apply);

  const preview = async (e) => {
    e.preventDefault();
    setError(null);
    const form = e.currentTarget;
    const template = await readFile(form.elements.template);
    const environment = await readFile(form.elements.environment);
    if (!template) {
      setError("Choose a template file first.");
      return;
    }
    const next = { template, parameters: {} };
    if (environment) next.environment = environment;
    setBusy(true);
    try {
      const plan = await request("PUT", `${path}/preview`, next);
      const detail = plan.resource_changes_detail || detailFromChanges(plan.resource_changes || {});
      store.setPlan(detail);
      const tally = {};
      for (const kind of PLAN_KINDS) tally[kind] = (plan.resource_changes && plan.resource_changes[kind] || []).length;
      setCounts(tally);
      setBody(next);
    } catch (err) {
      setError(err.message);
    } finally {
      setBusy(false);
    }
  };

  const apply = async () => {
    setBusy(true);
    setError(null);
    try {
      await request("PUT", path, body);
      store.clearPlan();
      setBody(null);
      setCounts(null);
      onApplied();
    } catch (err) {
      setError(err.message);
    } finally {
      setBusy(false);
    }
  };

  const discard = () => {
    store.clearPlan();
    setBody(null);
    setCounts(null);
  };

  return (
    <form class="plan-form" onSubmit={preview} aria-label="Plan an update">
      <div class="field">
        <label for="plan-template">New template</label>
        <input id="plan-template" name="template" type="file" accept=".yaml,.yml,.json,.template,text/*" />
      </div>
      <div class="field">
        <label for="plan-environment">Environment (optional)</label>
        <input id="plan-environment" name="environment" type="file" accept=".yaml,.yml,.json,text/*" />
      </div>
      <button type="submit" disabled={busy}>Preview the plan</button>
      {counts && (
        <p class="plan-summary" role="status">
          {`Plan: ${counts.added} to add, ${counts.updated} to update in place, ${counts.replaced} to replace, ${counts.deleted} to delete, ${counts.unchanged} unchanged.`}
        </p>
      )}
      {body && canApply && (
        <button type="button" class="apply" onClick={apply} disabled={busy}>Apply</button>
      )}
      {body && !canApply && <p class="muted">Your role may read this stack, not update it.</p>}
      {body && <button type="button" onClick={discard}>Discard the plan</button>}
      {error && <p class="error" role="alert">{error}</p>}
    </form>
  );
}

/** A plan's entries from Heat's resource_changes alone (names by kind). */
function detailFromChanges(changes) {
  const detail = [];
  for (const kind of PLAN_KINDS) {
    for (const item of changes[kind] || []) {
      const name = typeof item === "string" ? item : item.resource_name;
      detail.push({ resource_name: name, change: kind, resource_type: item.resource_type || "" });
    }
  }
  return detail;
}

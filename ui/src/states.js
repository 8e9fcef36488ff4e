// Resource and stack states as the API gives them, and the classes the graph draws.

/** "CREATE_COMPLETE" from an API resource or event (which may split action and status). */
export function stateOf(item) {
  const status = item.resource_status || "";
  if (status.includes("_") && /^(INIT|CREATE|UPDATE|DELETE|ROLLBACK|SUSPEND|RESUME|ADOPT|SNAPSHOT|CHECK|RESTORE)_/.test(status)) {
    return status;
  }
  if (item.resource_action && status) return `${item.resource_action}_${status}`;
  return status || "INIT_COMPLETE";
}

export function phaseOf(state) {
  if (state.startsWith("INIT_")) return "init";
  if (state.endsWith("_IN_PROGRESS")) return "progress";
  if (state.endsWith("_FAILED")) return "failed";
  if (state.endsWith("_COMPLETE")) return "complete";
  return "other";
}

export function isFailed(state) {
  return phaseOf(state) === "failed";
}

/** Human text for a state: "CREATE_COMPLETE" -> "create complete". */
export function stateText(state) {
  return state.toLowerCase().replace(/_/g, " ");
}

export const PLAN_KINDS = ["added", "updated", "replaced", "deleted", "unchanged"];

// The stack list: filter by name and status, sort by a column (the server sorts), nested
// stacks drawn under their parent.

import { useEffect, useState } from "preact/hooks";
import { currentSession, get, projectPath } from "./api.js";
import { phaseOf, stateText } from "./states.js";
import { when } from "./text.jsx";

const COLUMNS = [
  ["stack_name", "Name"],
  ["stack_status", "Status"],
  ["creation_time", "Created"],
  ["updated_time", "Updated"],
];
const STATUSES = ["", "CREATE_IN_PROGRESS", "CREATE_COMPLETE", "CREATE_FAILED", "UPDATE_IN_PROGRESS",
  "UPDATE_COMPLETE", "UPDATE_FAILED", "DELETE_IN_PROGRESS", "DELETE_FAILED", "ROLLBACK_IN_PROGRESS",
  "ROLLBACK_COMPLETE", "ROLLBACK_FAILED", "SUSPEND_COMPLETE", "RESUME_COMPLETE", "CHECK_COMPLETE"];

/** Parents first, each followed by its nested stacks (depth-first), in the server's order. */
export function nestUnderParents(stacks) {
  const byId = new Map(stacks.map((s) => [s.id, s]));
  const children = new Map();
  const roots = [];
  for (const stack of stacks) {
    if (stack.parent && byId.has(stack.parent)) {
      if (!children.has(stack.parent)) children.set(stack.parent, []);
      children.get(stack.parent).push(stack);
    } else {
      roots.push(stack);
    }
  }
  const out = [];
  const walk = (stack, depth) => {
    out.push({ stack, depth });
    for (const child of children.get(stack.id) || []) walk(child, depth + 1);
  };
  for (const root of roots) walk(root, 0);
  return out;
}

export function StackList() {
  const [stacks, setStacks] = useState(null);
  const [error, setError] = useState(null);
  const [name, setName] = useState("");
  const [status, setStatus] = useState("");
  const [sort, setSort] = useState({ key: "creation_time", dir: "desc" });
  const [tick, setTick] = useState(0);
  const session = currentSession();

  useEffect(() => {
    let live = true;
    const query = new URLSearchParams({ show_nested: "True", sort_keys: sort.key, sort_dir: sort.dir });
    if (name) query.set("name", name);
    if (status) {
      // Heat filters a stack's action and status apart: CREATE_FAILED is both.
      const [, action, plain] = status.match(/^([A-Z]+)_(.+)$/);
      query.set("action", action);
      query.set("status", plain);
    }
    const load = () =>
      get(`${projectPath()}/stacks?${query}`)
        .then((body) => live && (setStacks(body.stacks || []), setError(null)))
        .catch((err) => live && setError(err.message));
    load();
    const timer = setInterval(load, 5000);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [name, status, sort.key, sort.dir, tick]);

  const sortBy = (key) =>
    setSort((old) => ({ key, dir: old.key === key && old.dir === "asc" ? "desc" : "asc" }));
  const rows = stacks ? nestUnderParents(stacks) : [];
  return (
    <main id="main" class="stack-list">
      <div class="list-head">
        <h1>Stacks</h1>
        <p class="muted">{`Project ${session.project_id}`}</p>
      </div>
      <form class="filters" role="search" aria-label="Filter stacks" onSubmit={(e) => { e.preventDefault(); setTick((t) => t + 1); }}>
        <div class="field">
          <label for="filter-name">Name</label>
          <input id="filter-name" type="search" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="filter-status">Status</label>
          <select id="filter-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            {STATUSES.map((s) => <option key={s} value={s}>{s ? s : "any"}</option>)}
          </select>
        </div>
      </form>
      {error && <p class="error" role="alert">{error}</p>}
      <table class="stacks" aria-label="Stacks">
        <thead>
          <tr>
            {COLUMNS.map(([key, label]) => (
              <th key={key} scope="col" aria-sort={sort.key === key ? (sort.dir === "asc" ? "ascending" : "descending") : "none"}>
                <button type="button" class="sort" data-sort={key} onClick={() => sortBy(key)}>
                  {label}
                  <span aria-hidden="true">{sort.key === key ? (sort.dir === "asc" ? " ▲" : " ▼") : ""}</span>
                </button>
              </th>
            ))}
            <th scope="col">Project</th>
          </tr>
        </thead>
        <tbody>
          {stacks === null && (
            <tr><td colSpan={5}>Loading…</td></tr>
          )}
          {stacks !== null && rows.length === 0 && (
            <tr><td colSpan={5}>No stacks.</td></tr>
          )}
          {rows.map(({ stack, depth }) => (
            <tr key={stack.id} class={`depth-${Math.min(depth, 5)}${depth ? " nested" : ""}`} data-stack={stack.stack_name}>
              <td class="name">
                <span class={`indent indent-${Math.min(depth, 5)}`} aria-hidden="true">{depth ? "↳ " : ""}</span>
                <a href={`#/stacks/${encodeURIComponent(stack.stack_name)}/${encodeURIComponent(stack.id)}`}>{stack.stack_name}</a>
              </td>
              <td class={`status state-${phaseOf(stack.stack_status)}`} data-status={stack.stack_status}>{stateText(stack.stack_status)}</td>
              <td>{when(stack.creation_time)}</td>
              <td>{when(stack.updated_time)}</td>
              <td>{stack.project || session.project_id}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </main>
  );
}

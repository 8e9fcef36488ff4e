// One stack: its status, the live resource graph with the side panel, the plan of an
// update, and its events, outputs, parameters, template and environment.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { currentSession, get, linkPath, request, stackPath } from "./api.js";
import { EventFeed, EventList } from "./events.jsx";
import { Graph } from "./graph.jsx";
import { FailurePanel, ResourcePanel } from "./panel.jsx";
import { PlanForm } from "./plan.jsx";
import { phaseOf, stateText } from "./states.js";
import { GraphStore } from "./store.js";
import { KeyValues, TextBlock, when } from "./text.jsx";

/** How deep the page reads nested stacks (Heat's own limit on nesting is 5). */
export const NESTED_DEPTH = 5;
const EVENT_PAGE = 1000;
const EVENTS_KEPT = 20000;

const TABS = [
  ["events", "Events"],
  ["outputs", "Outputs"],
  ["parameters", "Parameters"],
  ["template", "Template"],
  ["environment", "Environment"],
];

/** Events after the last one the feed holds (all of them at first); answers the new ones. */
async function readEvents(path, feed) {
  let marker = feed.items.length ? feed.items[feed.items.length - 1].id : null;
  const fresh = [];
  for (let read = 0; read < EVENTS_KEPT; read += EVENT_PAGE) {
    const query = `nested_depth=${NESTED_DEPTH}&sort_dir=asc&limit=${EVENT_PAGE}${marker ? `&marker=${encodeURIComponent(marker)}` : ""}`;
    const page = (await get(`${path}/events?${query}`)).events || [];
    const before = feed.items.length;
    feed.add(page);
    fresh.push(...feed.items.slice(before));
    if (page.length < EVENT_PAGE) break;
    marker = page[page.length - 1].id;
  }
  return fresh;
}

export function StackPage({ name, id }) {
  const path = stackPath(name, id);
  const store = useMemo(() => new GraphStore({ name, id }), [name, id]);
  const feed = useMemo(() => new EventFeed(), [name, id]);
  const [stack, setStack] = useState(null);
  const [error, setError] = useState(null);
  const [tab, setTab] = useState("events");
  const [expanded, setExpanded] = useState(new Set());
  const [selected, setSelected] = useState(null);
  const [extra, setExtra] = useState({});
  const [live, setLive] = useState("connecting");
  const refetch = useRef(null);
  const streaming = useRef(false);
  const session = currentSession();
  // (A page being left as its session ends renders once more without one.)
  const streamPath = session ? `/ui/stream/${encodeURIComponent(session.project_id)}/stacks/${encodeURIComponent(id)}` : "";

  // While the stream is open, a reload asks it: the pages reloading at the same point of
  // the stream (every page, as an action ends) share one listing. Else the API's.
  const readResources = async () => {
    if (streaming.current) {
      try {
        return await get(`${streamPath}/resources?nested_depth=${NESTED_DEPTH}`);
      } catch (err) {
        if (err.status === 401) throw err;
      }
    }
    return get(`${path}/resources?nested_depth=${NESTED_DEPTH}`);
  };
  const loadResources = async () => {
    const body = await readResources();
    const rows = body.resources || [];
    const names = new Set([name, ...rows.map((r) => store.stackNameOf(r))]);
    store.replaceResources(rows, names);
  };
  const loadStack = async () => {
    const body = await get(path);
    store.noteStackStatus(body.stack.stack_status || "");
    setStack(body.stack);
    return body.stack;
  };
  // A structural change (a resource the page does not know, a reset): read the list
  // again, at most once per half second whatever the number of events asking.
  const scheduleReload = () => {
    if (refetch.current) return;
    refetch.current = setTimeout(() => {
      refetch.current = null;
      loadResources().catch((err) => setError(err.message));
    }, 500);
  };

  useEffect(() => {
    let source = null;
    let closed = false;
    setError(null);
    Promise.all([loadStack(), loadResources()])
      .then(() => readEvents(path, feed))
      .then(() => {
        if (closed) return;
        source = new EventSource(`${streamPath}?nested_depth=${NESTED_DEPTH}`);
        // What happened between the first read and the stream's start.
        source.onopen = () => {
          streaming.current = true;
          setLive("live");
          readEvents(path, feed)
            .then((fresh) => store.applyEvents(fresh) && scheduleReload())
            .catch(() => {});
        };
        source.onerror = () => {
          streaming.current = false;
          if (source.readyState !== EventSource.CLOSED) {
            setLive("reconnecting");
            return;
          }
          // Refused for good (the session ended, say): a 401 here brings the login page.
          setLive("closed");
          get("/ui/session").catch(() => {});
        };
        source.addEventListener("events", (message) => {
          const events = JSON.parse(message.data);
          const fresh = events.filter((e) => !feed.ids.has(e.id));
          feed.add(fresh);
          if (store.applyEvents(fresh)) scheduleReload();
        });
        source.addEventListener("stack", (message) => {
          const status = JSON.parse(message.data);
          store.noteStackStatus(status.stack_status || "");
          setStack((old) => ({ ...(old || {}), ...status }));
          const done = status.stack_status || "";
          // A deleted stack has no resources left to read.
          if (phaseOf(done) !== "progress" && done !== "DELETE_COMPLETE") scheduleReload();
        });
        source.addEventListener("reset", () => {
          scheduleReload();
          readEvents(path, feed).catch(() => {});
        });
      })
      .catch((err) => setError(err.status === 404 ? `Stack ${name} was not found.` : err.message));
    return () => {
      closed = true;
      streaming.current = false;
      if (source) source.close();
      if (refetch.current) clearTimeout(refetch.current);
      refetch.current = null;
    };
  }, [name, id]);

  useEffect(() => {
    if (tab === "events" || tab === "outputs" || tab === "parameters" || extra[tab] !== undefined) return;
    get(`${path}/${tab}`)
      .then((body) => setExtra((old) => ({ ...old, [tab]: JSON.stringify(body, null, 2) })))
      .catch((err) => setExtra((old) => ({ ...old, [tab]: `(${err.message})` })));
  }, [tab]);

  const toggle = async (key) => {
    const next = new Set(expanded);
    if (next.has(key)) {
      next.delete(key);
      setExpanded(next);
      return;
    }
    const nested = store.nested.get(key);
    if (nested) {
      // The stack's own resources, fresh: read before drawing the cluster.
      const row = store.resources.get(key);
      const href = (row.links || []).find((l) => l.rel === "nested");
      const nestedPath = href ? linkPath(href.href) : null;
      if (nestedPath) {
        try {
          const body = await get(`${nestedPath}/resources?nested_depth=${NESTED_DEPTH}`);
          const rows = body.resources || [];
          const names = new Set([nested.name, ...rows.map((r) => store.stackNameOf(r))]);
          store.replaceResources(rows, names);
        } catch (err) {
          setError(err.message);
        }
      }
    }
    next.add(key);
    setExpanded(next);
  };

  const remove = async () => {
    if (!window.confirm(`Delete the stack ${name}?`)) return;
    try {
      await request("DELETE", path);
      setStack((old) => ({ ...(old || {}), stack_status: "DELETE_IN_PROGRESS" }));
    } catch (err) {
      setError(err.message);
    }
  };
  const cancel = async () => {
    try {
      await request("POST", `${path}/actions`, { cancel_update: null });
    } catch (err) {
      setError(err.message);
    }
  };

  const status = stack ? stack.stack_status : "";
  return (
    <main id="main" class="stack-page">
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="#/stacks">Stacks</a> › <span>{name}</span>
      </nav>
      <div class="stack-head">
        <h1>{name}</h1>
        {stack && (
          <p class={`stack-status state-${status} state-${phaseOf(status)}`} data-status={status} role="status">
            {stateText(status)}
            {stack.stack_status_reason && <span class="stack-reason">{` — ${stack.stack_status_reason}`}</span>}
          </p>
        )}
        <p class="live" data-live={live}>{`Events: ${live}`}</p>
        {session && session.can_apply && stack && (
          <div class="actions">
            {status === "UPDATE_IN_PROGRESS" && <button type="button" onClick={cancel}>Cancel update</button>}
            <button type="button" class="danger" onClick={remove}>Delete stack</button>
          </div>
        )}
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      <div class="graph-area">
        <section class="graph-section" aria-label="Resources">
          <h2>Resources</h2>
          <Graph store={store} expanded={expanded} selected={selected} onSelect={setSelected} onToggle={toggle} />
        </section>
        <div class="side">
          <ResourcePanel store={store} selected={selected} onClose={() => setSelected(null)} />
          <FailurePanel store={store} onSelect={setSelected} />
          {session && session.can_apply ? (
            <details class="plan">
              <summary>Plan an update</summary>
              <PlanForm store={store} path={path} onApplied={() => scheduleReload()} />
            </details>
          ) : (
            <p class="muted read-only">Your role can read this stack, not plan or apply an update.</p>
          )}
        </div>
      </div>
      <section class="details" aria-label="Stack details">
        <div role="tablist" aria-label="Stack details" class="tabs">
          {TABS.map(([value, label]) => (
            <button
              key={value}
              type="button"
              role="tab"
              id={`tab-${value}`}
              aria-selected={tab === value ? "true" : "false"}
              aria-controls={`panel-${value}`}
              onClick={() => setTab(value)}
            >
              {label}
            </button>
          ))}
        </div>
        <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} class="tab-panel">
          {tab === "events" && <EventList feed={feed} />}
          {tab === "outputs" && stack && (
            <KeyValues
              label="Outputs"
              empty="No outputs."
              values={Object.fromEntries((stack.outputs || []).map((o) => [o.output_key, o.output_error ? `error: ${o.output_error}` : o.output_value]))}
            />
          )}
          {tab === "parameters" && stack && <KeyValues label="Parameters" empty="No parameters." values={stack.parameters} />}
          {(tab === "template" || tab === "environment") && (
            <TextBlock label={tab === "template" ? "Template" : "Environment"} text={extra[tab] === undefined ? "loading…" : extra[tab]} />
          )}
        </div>
      </section>
      {stack && (
        <p class="muted times">{`Created ${when(stack.creation_time)}${stack.updated_time ? `, updated ${when(stack.updated_time)}` : ""}`}</p>
      )}
    </main>
  );
}

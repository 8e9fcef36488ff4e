// The side panel: the selected resource as `resource show` gives it (its reason when it
// failed, and the attributes a person looks for: a server's addresses and console, a
// volume's attachments, a port's network), and the path of the stack's failures.

import { useEffect, useState } from "preact/hooks";
import { get, linkPath, linkOf } from "./api.js";
import { isFailed, stateText } from "./states.js";

function Value({ value }) {
  if (value === null || value === undefined) return <span class="muted">none</span>;
  if (typeof value === "string") return <span class="value">{value}</span>;
  return <pre class="value">{JSON.stringify(value, null, 2)}</pre>;
}

function addresses(attrs) {
  const found = attrs.addresses || attrs.networks;
  if (!found || typeof found !== "object") return null;
  const rows = [];
  for (const [net, list] of Object.entries(found)) {
    for (const item of Array.isArray(list) ? list : [list]) {
      const addr = typeof item === "string" ? item : item && item.addr;
      if (addr) rows.push({ net, addr, version: item && item.version });
    }
  }
  return rows;
}

function safeUrl(text) {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch (_) {
    return null;
  }
}

function Highlights({ resource }) {
  const attrs = resource.attributes || {};
  const items = [];
  const addrs = addresses(attrs);
  if (addrs && addrs.length) {
    items.push(
      <div key="addresses" class="highlight">
        <h4>Addresses</h4>
        <ul>
          {addrs.map((a) => (
            <li key={`${a.net}-${a.addr}`}>
              <span class="net">{a.net}</span>: <span class="addr">{a.addr}</span>
            </li>
          ))}
        </ul>
      </div>,
    );
  }
  const console = attrs.console_urls;
  if (console && typeof console === "object") {
    const links = Object.entries(console)
      .map(([kind, url]) => ({ kind, url: typeof url === "string" ? safeUrl(url) : null }))
      .filter((l) => l.url);
    if (links.length) {
      items.push(
        <div key="console" class="highlight">
          <h4>Console</h4>
          <ul>
            {links.map((l) => (
              <li key={l.kind}>
                <a href={l.url} rel="noopener noreferrer" target="_blank">{`${l.kind} console`}</a>
              </li>
            ))}
          </ul>
        </div>,
      );
    }
  }
  if (attrs.attachments !== undefined) {
    items.push(
      <div key="attachments" class="highlight">
        <h4>Attachments</h4>
        <Value value={attrs.attachments} />
      </div>,
    );
  }
  if (attrs.network_id !== undefined || attrs.fixed_ips !== undefined) {
    items.push(
      <div key="network" class="highlight">
        <h4>Network</h4>
        <dl>
          <dt>network</dt>
          <dd><Value value={attrs.network_id} /></dd>
          <dt>fixed IPs</dt>
          <dd><Value value={attrs.fixed_ips} /></dd>
        </dl>
      </div>,
    );
  }
  return items.length ? <div class="highlights">{items}</div> : null;
}

export function ResourcePanel({ store, selected, onClose }) {
  const [shown, setShown] = useState(null);
  const [error, setError] = useState(null);
  const [, setTick] = useState(0);
  const row = selected ? store.resources.get(selected) : null;

  useEffect(() => store.onStates((keys) => keys.has(selected) && setTick((t) => t + 1)), [store, selected]);
  useEffect(() => {
    setShown(null);
    setError(null);
    if (!row) return undefined;
    let live = true;
    const self = linkPath(linkOf(row, "self") || "");
    if (!self) return undefined;
    get(self)
      .then((body) => live && setShown(body.resource))
      .catch((err) => live && setError(err.message));
    return () => {
      live = false;
    };
  }, [selected, row]);

  if (!selected) return null;
  const planned = store.plan && store.plan.get(selected);
  const name = selected.slice(selected.indexOf("/") + 1);
  if (!row) {
    return (
      <aside class="panel" aria-label="Resource">
        <h3>{name}</h3>
        {planned && <p class="plan-reason">{planned.reason}</p>}
        <button type="button" onClick={onClose}>Close</button>
      </aside>
    );
  }
  const state = store.states.get(selected) || "";
  const reason = store.reasons.get(selected);
  return (
    <aside class="panel" aria-label={`Resource ${name}`}>
      <div class="panel-head">
        <h3>{name}</h3>
        <button type="button" onClick={onClose}>Close</button>
      </div>
      <dl class="props">
        <dt>Type</dt>
        <dd>{row.resource_type}</dd>
        <dt>Status</dt>
        <dd class={`status state-${state}`}>{stateText(state)}</dd>
        <dt>Stack</dt>
        <dd>{store.stackNameOf(row)}</dd>
        <dt>Physical id</dt>
        <dd>{row.physical_resource_id || ""}</dd>
      </dl>
      {reason && (
        <p class={`reason${state.endsWith("FAILED") ? " failed-reason" : ""}`} data-testid="reason">
          {reason}
        </p>
      )}
      {planned && <p class="plan-reason">{`Plan: ${planned.reason}`}</p>}
      {error && <p class="error" role="alert">{error}</p>}
      {shown && <Highlights resource={shown} />}
      {shown && shown.attributes && (
        <details class="attributes">
          <summary>Attributes</summary>
          <dl>
            {Object.entries(shown.attributes).map(([k, v]) => [
              <dt key={`k-${k}`}>{k}</dt>,
              <dd key={`v-${k}`}><Value value={v} /></dd>,
            ])}
          </dl>
        </details>
      )}
    </aside>
  );
}

export function FailurePanel({ store, onSelect }) {
  const [, setTick] = useState(0);
  useEffect(() => store.onStates(() => setTick((t) => t + 1)), [store]);
  useEffect(() => store.onStructure(() => setTick((t) => t + 1)), [store]);
  const { chains } = store.failurePath();
  const current = chains.some((chain) => isFailed(store.states.get(chain[chain.length - 1]) || ""));
  const shown = chains.length
    ? chains.map((chain) => ({ chain, reason: store.failureReason(chain[chain.length - 1]) }))
    : store.lastFailure || [];
  if (!shown.length) return null;
  return (
    <section class="failures" aria-label="Failures">
      <h3>{current ? "Failed" : "Last failure"}</h3>
      <ol>
        {shown.map(({ chain, reason }) => {
          const cause = chain[chain.length - 1];
          return (
            <li key={cause} class="failure-chain">
              <span class="chain">
                {chain.map((key, i) => (
                  <span key={key}>
                    {i > 0 && " › "}
                    <button type="button" class="linklike" onClick={() => onSelect(key)}>
                      {key.slice(key.indexOf("/") + 1)}
                    </button>
                  </span>
                ))}
              </span>
              <span class="failed-reason">{reason}</span>
            </li>
          );
        })}
      </ol>
    </section>
  );
}

// The side panel: the selected resource as `resource show` gives it (its reason when it
// failed, and the attributes a person looks for: a server's addresses and console, a
// volume's attachments, a port's network), and the path of the stack's failures.
// A server's console URLs are not in what Nova shows of it: Heat resolves them only when
// `with_attr` names them, so the panel asks for them.

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

const ASKED_ATTRIBUTES = { "OS::Nova::Server": ["console_urls"] };

/** The path of `resource show` for the row, with the attributes its type's panel shows. */
function showPath(row) {
  const self = linkPath(linkOf(row, "self") || "");
  const asked = ASKED_ATTRIBUTES[row.resource_type];
  if (!self || !asked) return self;
  const url = new URL(self, window.location.origin);
  for (const name of asked) url.searchParams.append("with_attr", name);
  return url.pathname + url.search;
}

function safeUrl(text) {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch (_) {
    return null;
  }
}

// Each console Heat found a URL for is a link; when none has one, the panel says so, and
// each console why when asked (Heat gives the cloud's refusal in place of the URL).
function Consoles({ urls }) {
  const kinds = Object.entries(urls).map(([kind, text]) => ({
    kind,
    text: typeof text === "string" ? text : JSON.stringify(text),
    url: typeof text === "string" ? safeUrl(text) : null,
  }));
  const links = kinds.filter((k) => k.url);
  if (links.length) {
    return (
      <ul>
        {links.map((l) => (
          <li key={l.kind}>
            <a class="console" href={l.url} rel="noopener noreferrer" target="_blank">{`${l.kind} console`}</a>
          </li>
        ))}
      </ul>
    );
  }
  return (
    <details class="no-console">
      <summary>None available</summary>
      <ul>
        {kinds.map((k) => (
          <li key={k.kind} data-kind={k.kind}>
            <span class="kind">{k.kind}</span>: <span class="why muted">{k.text}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

// A volume's attachments as Cinder lists them: the server and its device each.
function Attachments({ value }) {
  if (!Array.isArray(value) || !value.every((a) => a && a.server_id)) return <Value value={value} />;
  if (!value.length) return <span class="muted">none</span>;
  return (
    <ul>
      {value.map((a) => (
        <li key={a.attachment_id || a.server_id} class="attachment">
          {"server "}<span class="server">{a.server_id}</span>
          {a.device && <>{" at "}<span class="device">{a.device}</span></>}
        </li>
      ))}
    </ul>
  );
}

// A port's fixed IPs as Neutron lists them: each address and its subnet.
function FixedIps({ value }) {
  if (!Array.isArray(value) || !value.every((f) => f && f.ip_address)) return <Value value={value} />;
  if (!value.length) return <span class="muted">none</span>;
  return (
    <ul>
      {value.map((f) => (
        <li key={`${f.subnet_id}-${f.ip_address}`} class="fixed-ip">
          <span class="ip">{f.ip_address}</span>
          {f.subnet_id && <>{" in subnet "}<span class="subnet">{f.subnet_id}</span></>}
        </li>
      ))}
    </ul>
  );
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
    items.push(
      <div key="console" class="highlight">
        <h4>Console</h4>
        <Consoles urls={console} />
      </div>,
    );
  }
  if (attrs.attachments !== undefined) {
    items.push(
      <div key="attachments" class="highlight">
        <h4>Attachments</h4>
        <Attachments value={attrs.attachments} />
      </div>,
    );
  }
  if (attrs.network_id !== undefined || attrs.fixed_ips !== undefined) {
    items.push(
      <div key="network" class="highlight">
        <h4>Network</h4>
        <dl>
          <dt>network</dt>
          <dd class="network-id"><Value value={attrs.network_id} /></dd>
          <dt>fixed IPs</dt>
          <dd><FixedIps value={attrs.fixed_ips} /></dd>
        </dl>
      </div>,
    );
  }
  return items.length ? <div class="highlights">{items}</div> : null;
}

export function ResourcePanel({ store, selected, onClose }) {
  // What `resource show` answered, and for which resource: another resource's answer is
  // never drawn under this one's name while this one's is on its way.
  const [answer, setAnswer] = useState(null);
  const [, setTick] = useState(0);
  const row = selected ? store.resources.get(selected) : null;

  useEffect(() => store.onStates((keys) => keys.has(selected) && setTick((t) => t + 1)), [store, selected]);
  useEffect(() => {
    if (!row) return undefined;
    let live = true;
    const self = showPath(row);
    if (!self) return undefined;
    get(self)
      .then((body) => live && setAnswer({ key: selected, shown: body.resource, error: null }))
      .catch((err) => live && setAnswer({ key: selected, shown: null, error: err.message }));
    return () => {
      live = false;
    };
  }, [selected, row]);
  const current = answer && answer.key === selected && row ? answer : null;
  const shown = current && current.shown;
  const error = current && current.error;

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

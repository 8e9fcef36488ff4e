// The resource graph: SVG drawn from the layout, once per structural change. Live state
// changes do not re-render: they are queued and written straight onto the nodes' elements
// once per animation frame, however many events arrived in between.

import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { layoutStack, NODE_H } from "./layout.js";
import { phaseOf, stateText } from "./states.js";

const PAD = 14;
const MIN_ZOOM_W = 120;

function nodeClass(store, key, failure, ctx) {
  const row = store.resources.get(key);
  const state = row ? store.states.get(key) || "INIT_COMPLETE" : "INIT_COMPLETE";
  const classes = ["node", `state-${state}`, `state-${phaseOf(state)}`];
  if (!row) classes.push("ghost");
  if (store.plan) {
    const planned = store.plan.get(key);
    classes.push(`plan-${planned ? planned.change : row ? "unchanged" : "added"}`);
  }
  if (failure.path.has(key)) classes.push("failure-path");
  if (failure.causes.has(key)) classes.push("failure-cause");
  if (store.nested.has(key)) classes.push("has-nested");
  if (ctx.expanded.has(key)) classes.push("expanded");
  if (ctx.selected === key) classes.push("selected");
  return classes.join(" ");
}

function nodeTitle(store, key, name) {
  const row = store.resources.get(key);
  const lines = [];
  if (row) {
    const state = store.states.get(key) || "";
    lines.push(`${name} (${row.resource_type}): ${stateText(state)}`);
    const reason = store.reasons.get(key);
    if (reason) lines.push(reason);
    const failure = store.failureReason(key);
    if (failure && failure !== reason) lines.push(`Failed: ${failure}`);
  } else {
    lines.push(`${name}: not created yet`);
  }
  if (store.plan && store.plan.get(key)) lines.push(`Plan: ${store.plan.get(key).reason}`);
  return lines.join("\n");
}

function statusLine(store, key) {
  const row = store.resources.get(key);
  if (store.plan) {
    const planned = store.plan.get(key);
    const change = planned ? planned.change : row ? "unchanged" : "added";
    return `plan: ${change}`;
  }
  return row ? stateText(store.states.get(key) || "") : "";
}

/** The accessible name: the visible text first (name, status), then the tooltip's rest. */
function labelOf(store, key, name) {
  const rest = nodeTitle(store, key, name).split("\n").slice(1);
  const row = store.resources.get(key);
  return [`${name} ${statusLine(store, key)}`, row ? row.resource_type : "", ...rest].filter(Boolean).join(". ");
}

function Node({ node, store, failure, ctx }) {
  const { key, name } = node;
  const nestedKnown = store.nested.has(key);
  const isExpanded = ctx.expanded.has(key);
  const title = nodeTitle(store, key, name);
  return (
    <g
      class={nodeClass(store, key, failure, ctx)}
      data-resource={name}
      data-stack={node.stackName}
      data-key={key}
      transform={`translate(${node.x},${node.y})`}
    >
      <title>{title}</title>
      <g class="node-body" tabindex="0" role="button" aria-label={labelOf(store, key, name)}>
        <rect class="node-box" width={node.w} height={node.h} rx="6" ry="6" />
        <svg class="node-text" width={node.w - (nestedKnown ? 38 : 8)} height={NODE_H}>
          <text>
            <tspan class="node-name" x="10" y="18">{name}</tspan>
            {" "}
            <tspan class="node-status" x="10" y="35">{statusLine(store, key)}</tspan>
          </text>
        </svg>
      </g>
      {nestedKnown && (
        <g
          class="toggle"
          role="button"
          tabindex="0"
          aria-expanded={isExpanded ? "true" : "false"}
          aria-label={`${isExpanded ? "Collapse" : "Expand"} the nested stack of ${name}`}
          transform={`translate(${node.w - 30},8)`}
        >
          <rect width="22" height="22" rx="4" ry="4" />
          <text x="11" y="16" text-anchor="middle">{isExpanded ? "−" : "+"}</text>
        </g>
      )}
      {node.sub && (
        <g class="cluster" data-cluster={key} transform={`translate(${PAD},${NODE_H})`}>
          <Layout layout={node.sub} store={store} failure={failure} ctx={ctx} />
        </g>
      )}
    </g>
  );
}

function Layout({ layout, store, failure, ctx }) {
  return (
    <g>
      {layout.edges.map((edge) => (
        <path
          key={`${edge.from}>${edge.to}`}
          class="edge"
          data-from={edge.fromName}
          data-to={edge.toName}
          d={edge.d}
          marker-end="url(#hp-arrow)"
        />
      ))}
      {layout.nodes.map((node) => (
        <Node key={node.key} node={node} store={store} failure={failure} ctx={ctx} />
      ))}
    </g>
  );
}

/** Pan and zoom by the viewBox alone: no re-render, no layout. */
function usePanZoom(svgRef, bounds) {
  const view = useRef(null);
  // Until the person pans or zooms, each new layout is fitted to the view.
  const moved = useRef(false);
  const apply = () => {
    const v = view.current;
    if (svgRef.current && v) svgRef.current.setAttribute("viewBox", `${v.x} ${v.y} ${v.w} ${v.h}`);
  };
  const fit = () => {
    const svg = svgRef.current;
    if (!svg) return;
    const rect = svg.getBoundingClientRect();
    const aspect = rect.width && rect.height ? rect.width / rect.height : 1.6;
    // Never larger than life: a small graph is drawn at its size, centred.
    let w = Math.max(bounds.width, 200, rect.width || 0);
    let h = Math.max(bounds.height, 120, rect.height || 0);
    if (w / h < aspect) w = h * aspect;
    else h = w / aspect;
    view.current = { x: (bounds.width - w) / 2, y: (bounds.height - h) / 2, w, h };
    moved.current = false;
    apply();
  };
  const zoom = (factor, cx, cy) => {
    const v = view.current;
    if (!v) return;
    const w = Math.max(MIN_ZOOM_W, v.w * factor);
    const real = w / v.w;
    const px = cx === undefined ? v.x + v.w / 2 : cx;
    const py = cy === undefined ? v.y + v.h / 2 : cy;
    view.current = { x: px - (px - v.x) * real, y: py - (py - v.y) * real, w, h: v.h * real };
    moved.current = true;
    apply();
  };
  const pan = (dx, dy) => {
    const v = view.current;
    if (!v) return;
    view.current = { ...v, x: v.x + dx, y: v.y + dy };
    moved.current = true;
    apply();
  };
  return { view, moved, fit, zoom, pan };
}

export function Graph({ store, expanded, selected, onSelect, onToggle }) {
  const [version, setVersion] = useState(store.version);
  const svgRef = useRef(null);
  const drawn = useRef(false);
  const pending = useRef(new Set());
  const frame = useRef(0);
  const failureRef = useRef(null);

  useEffect(() => store.onStructure(setVersion), [store]);

  const layout = useMemo(
    () => {
      const start = performance.now();
      const laid = layoutStack(store, store.root.name, expanded);
      performance.measure("graph-layout", { start, end: performance.now() });
      return laid;
    },
    // a new layout only on a structural change or an expansion
    [store, version, expanded],
  );
  const failure = useMemo(() => store.failurePath(), [store, version]);
  failureRef.current = failure;
  const ctx = { expanded, selected };
  const ctxRef = useRef(ctx);
  ctxRef.current = ctx;
  const panZoom = usePanZoom(svgRef, layout);

  useLayoutEffect(() => {
    if (!panZoom.view.current || !panZoom.moved.current) panZoom.fit();
    if (!drawn.current && layout.nodes.length) {
      drawn.current = true;
      performance.mark("graph-drawn");
    }
  }, [layout]);

  // Live states: written onto the elements once per frame.
  useEffect(() => {
    const flush = () => {
      frame.current = 0;
      const svg = svgRef.current;
      if (!svg) return;
      const keys = pending.current;
      pending.current = new Set();
      const before = failureRef.current;
      const after = store.failurePath();
      for (const k of before.path) if (!after.path.has(k)) keys.add(k);
      for (const k of after.path) if (!before.path.has(k)) keys.add(k);
      for (const k of after.causes) keys.add(k);
      for (const k of before.causes) keys.add(k);
      failureRef.current = after;
      for (const key of keys) {
        const el = svg.querySelector(`g.node[data-key="${cssEscape(key)}"]`);
        if (!el) continue;
        const name = el.getAttribute("data-resource");
        el.setAttribute("class", nodeClass(store, key, after, ctxRef.current));
        const title = nodeTitle(store, key, name);
        el.querySelector(":scope > title").textContent = title;
        const body = el.querySelector(":scope > .node-body");
        body.setAttribute("aria-label", labelOf(store, key, name));
        body.querySelector(".node-status").textContent = statusLine(store, key);
      }
    };
    const unsubscribe = store.onStates((keys) => {
      for (const k of keys) pending.current.add(k);
      if (!frame.current) frame.current = requestAnimationFrame(flush);
    });
    return () => {
      unsubscribe();
      if (frame.current) cancelAnimationFrame(frame.current);
      frame.current = 0;
    };
  }, [store]);

  const drag = useRef(null);
  const targetKey = (target) => {
    const toggle = target.closest && target.closest(".toggle");
    const node = target.closest && target.closest("g.node");
    return { toggle: !!toggle, key: node ? node.getAttribute("data-key") : null };
  };
  const onClick = (e) => {
    if (drag.current && drag.current.moved) return;
    const { toggle, key } = targetKey(e.target);
    if (!key) return;
    if (toggle) onToggle(key);
    else onSelect(key);
  };
  const onKeyDown = (e) => {
    if (e.key !== "Enter" && e.key !== " ") return;
    const { toggle, key } = targetKey(e.target);
    if (!key) return;
    e.preventDefault();
    if (toggle) onToggle(key);
    else onSelect(key);
  };
  const onWheel = (e) => {
    e.preventDefault();
    const svg = svgRef.current;
    const v = panZoom.view.current;
    if (!svg || !v) return;
    const rect = svg.getBoundingClientRect();
    const cx = v.x + ((e.clientX - rect.left) / rect.width) * v.w;
    const cy = v.y + ((e.clientY - rect.top) / rect.height) * v.h;
    panZoom.zoom(e.deltaY > 0 ? 1.15 : 1 / 1.15, cx, cy);
  };
  useEffect(() => {
    const svg = svgRef.current;
    svg.addEventListener("wheel", onWheel, { passive: false });
    return () => svg.removeEventListener("wheel", onWheel);
  }, []);
  const onPointerDown = (e) => {
    if (e.button !== 0) return;
    drag.current = { x: e.clientX, y: e.clientY, moved: false };
  };
  const onPointerMove = (e) => {
    const d = drag.current;
    const svg = svgRef.current;
    const v = panZoom.view.current;
    if (!d || !svg || !v || !(e.buttons & 1)) return;
    const dx = e.clientX - d.x;
    const dy = e.clientY - d.y;
    if (!d.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    d.moved = true;
    const rect = svg.getBoundingClientRect();
    panZoom.pan((-dx * v.w) / rect.width, (-dy * v.h) / rect.height);
    d.x = e.clientX;
    d.y = e.clientY;
  };
  const onPointerUp = () => {
    setTimeout(() => {
      drag.current = null;
    }, 0);
  };

  return (
    <div class="graph-wrap">
      <div class="graph-tools" role="toolbar" aria-label="Graph view">
        <button type="button" onClick={() => panZoom.zoom(1 / 1.25)}>Zoom in</button>
        <button type="button" onClick={() => panZoom.zoom(1.25)}>Zoom out</button>
        <button type="button" onClick={() => panZoom.fit()}>Fit</button>
        <span class="graph-count">{layout.nodes.length} resources</span>
      </div>
      <svg
        ref={svgRef}
        class="graph"
        role="group"
        aria-label="Resource graph"
        data-version={version}
        preserveAspectRatio="xMidYMid meet"
        onClick={onClick}
        onKeyDown={onKeyDown}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
      >
        <defs>
          <marker id="hp-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse">
            <path d="M0,0L10,5L0,10z" class="arrow" />
          </marker>
        </defs>
        <Layout layout={layout} store={store} failure={failure} ctx={ctx} />
      </svg>
    </div>
  );
}

function cssEscape(text) {
  return window.CSS && CSS.escape ? CSS.escape(text) : text.replace(/["\\]/g, "\\$&");
}

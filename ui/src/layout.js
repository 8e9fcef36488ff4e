// The DAG layout of a stack's resources (dagre; fast_layout.js for big graphs), computed
// once per structural change: a state change recolours nodes and never lays out again. An
// expanded stack-backed resource is laid out first, on its own, and then drawn as one
// larger node of its parent's graph: a cluster that holds its stack's graph in place.

import dagre from "@dagrejs/dagre";
import { layeredLayout } from "./fast_layout.js";
import { keyOf } from "./store.js";

export const NODE_W = 180;
export const NODE_H = 44;
const PAD = 14;
/** Past this many connected nodes in one stack, the linear layered layout replaces dagre. */
export const DAGRE_MAX_NODES = 300;
/** The shape of the view a graph is drawn in, width to height. */
export const VIEW_ASPECT = 1.6;

/**
 * { width, height, nodes: [{ key, name, x, y, w, h, added?, sub? }], edges: [{ from, to, d }] }
 * for one stack (x, y: the node's top left corner, relative to the layout's origin).
 */
export function layoutStack(store, stackName, expanded, depth = 0) {
  const keys = store.keysOf(stackName);
  const g = new dagre.graphlib.Graph({ multigraph: false });
  g.setGraph({ rankdir: "TB", nodesep: 24, ranksep: 48, marginx: PAD, marginy: PAD });
  g.setDefaultEdgeLabel(() => ({}));
  const subs = new Map();
  for (const key of keys) {
    let w = NODE_W;
    let h = NODE_H;
    const nested = store.nested.get(key);
    if (expanded.has(key) && nested && depth < 8) {
      const sub = layoutStack(store, nested.name, expanded, depth + 1);
      subs.set(key, sub);
      w = Math.max(NODE_W, sub.width + 2 * PAD);
      h = NODE_H + sub.height + PAD;
    }
    g.setNode(key, { width: w, height: h });
  }
  const added = store.planAdded.get(stackName) || [];
  for (const item of added) {
    const key = keyOf(stackName, item.name);
    if (!g.hasNode(key)) g.setNode(key, { width: NODE_W, height: NODE_H, added: item });
  }
  for (const key of keys) {
    const row = store.resources.get(key);
    for (const dependant of row.required_by || []) {
      const to = keyOf(stackName, dependant);
      if (g.hasNode(to) && to !== key) g.setEdge(key, to);
    }
  }
  // Resources with no dependency either way are not a DAG's business: dagre would put
  // them all on one rank (a 1,000-wide stack as one row), so they go on a grid below.
  const loose = g.nodes().filter((key) => g.nodeEdges(key).length === 0);
  const looseLabels = new Map(loose.map((key) => [key, g.node(key)]));
  for (const key of loose) g.removeNode(key);
  const looseNodes = loose.map((key) => ({ key, label: looseLabels.get(key) }));
  const dagNodes = g.nodes();
  let dagW = 0;
  let dagH = 0;
  const nodes = [];
  let pointsOf;
  if (dagNodes.length > DAGRE_MAX_NODES) {
    const fast = layeredLayout(
      dagNodes.map((key) => ({ key, width: g.node(key).width, height: g.node(key).height })),
      g.edges().map((e) => [e.v, e.w]),
      PAD,
    );
    dagW = fast.width;
    dagH = fast.height;
    for (const key of dagNodes) nodes.push(placed(key, g.node(key), fast.pos.get(key).x, fast.pos.get(key).y));
    pointsOf = (e) => fast.points.get(`${e.v}>${e.w}`);
  } else if (dagNodes.length) {
    dagre.layout(g);
    dagW = g.graph().width || 0;
    dagH = g.graph().height || 0;
    for (const key of dagNodes) {
      const n = g.node(key);
      nodes.push(placed(key, n, n.x - n.width / 2, n.y - n.height / 2));
    }
    pointsOf = (e) => g.edge(e).points || [];
  }
  const grid = gridOf(looseNodes, dagW, dagNodes.length ? dagH : PAD);
  nodes.push(...grid.nodes);
  const edges = g.edges().map((e) => ({
    from: e.v,
    to: e.w,
    fromName: e.v.slice(stackName.length + 1),
    toName: e.w.slice(stackName.length + 1),
    d: pathOf(pointsOf(e)),
  }));
  return {
    width: Math.max(dagW, grid.width, NODE_W + 2 * PAD),
    height: Math.max(dagH, grid.bottom, NODE_H + 2 * PAD),
    nodes,
    edges,
  };

  function placed(key, n, x, y) {
    return {
      key,
      name: key.slice(stackName.length + 1),
      stackName,
      x,
      y,
      w: n.width,
      h: n.height,
      added: n.added || null,
      sub: subs.get(key) || null,
    };
  }

  /** Rows of loose nodes under the DAG. */
  function gridOf(items, minWidth, top) {
    if (!items.length) return { nodes: [], width: 0, bottom: top };
    const gap = 24;
    const cellW = Math.max(...items.map((i) => i.label.width)) + gap;
    const cellH = Math.max(...items.map((i) => i.label.height)) + gap;
    // About as wide as the view's shape (1.6:1) when alone, as wide as the DAG above it
    // when there is one.
    const square = Math.ceil(Math.sqrt((items.length * VIEW_ASPECT * cellH) / cellW));
    const columns = Math.max(1, Math.min(items.length,
      Math.max(Math.floor((minWidth - 2 * PAD) / cellW), square)));
    const out = [];
    let y = top + (top > PAD ? gap : 0);
    for (let i = 0; i < items.length; i += columns) {
      const row = items.slice(i, i + columns);
      const rowH = Math.max(...row.map((item) => item.label.height));
      row.forEach((item, c) => out.push(placed(item.key, item.label, PAD + c * cellW, y)));
      y += rowH + gap;
    }
    return { nodes: out, width: 2 * PAD + columns * cellW - gap, bottom: y - gap + PAD };
  }
}

function pathOf(points) {
  if (!points.length) return "";
  const [first, ...rest] = points;
  const fmt = (v) => Math.round(v * 10) / 10;
  return `M${fmt(first.x)},${fmt(first.y)}` + rest.map((p) => `L${fmt(p.x)},${fmt(p.y)}`).join("");
}

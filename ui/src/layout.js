// The DAG layout of a stack's resources (dagre), computed once per structural change: a
// state change recolours nodes and never lays out again. An expanded stack-backed
// resource is laid out first, on its own, and then drawn as one larger node of its parent's
// graph: a cluster that holds its stack's graph in place.

import dagre from "@dagrejs/dagre";
import { keyOf } from "./store.js";

export const NODE_W = 180;
export const NODE_H = 44;
const PAD = 14;

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
  dagre.layout(g);
  const nodes = g.nodes().map((key) => {
    const n = g.node(key);
    return {
      key,
      name: key.slice(stackName.length + 1),
      stackName,
      x: n.x - n.width / 2,
      y: n.y - n.height / 2,
      w: n.width,
      h: n.height,
      added: n.added || null,
      sub: subs.get(key) || null,
    };
  });
  const edges = g.edges().map((e) => ({
    from: e.v,
    to: e.w,
    fromName: e.v.slice(stackName.length + 1),
    toName: e.w.slice(stackName.length + 1),
    d: pathOf(g.edge(e).points || []),
  }));
  const graph = g.graph();
  return {
    width: Math.max(graph.width || 0, NODE_W + 2 * PAD),
    height: Math.max(graph.height || 0, NODE_H + 2 * PAD),
    nodes,
    edges,
  };
}

function pathOf(points) {
  if (!points.length) return "";
  const [first, ...rest] = points;
  const fmt = (v) => Math.round(v * 10) / 10;
  return `M${fmt(first.x)},${fmt(first.y)}` + rest.map((p) => `L${fmt(p.x)},${fmt(p.y)}`).join("");
}

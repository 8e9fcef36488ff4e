// A layered layout for big graphs, linear in nodes and edges: dagre's crossing
// minimisation grows much faster than the graph (a 1,000-wide rank takes it seconds), and
// past a few hundred nodes a person reads ranks and paths, not crossings. Ranks by longest
// path from the roots; each rank ordered by where its dependencies sit (one barycentre
// sweep down); a rank wider than the graph is tall wraps into several rows.

const RANK_GAP = 48;
const ROW_GAP = 14;
const NODE_GAP = 24;

/**
 * nodes: [{ key, width, height }] (in a stable order), edges: [[from, to]].
 * Answers { width, height, pos: Map key -> { x, y } (top left), points: Map "from>to" -> [{x, y}] }.
 */
export function layeredLayout(nodes, edges, pad) {
  const size = new Map(nodes.map((n) => [n.key, n]));
  const preds = new Map(nodes.map((n) => [n.key, []]));
  const succs = new Map(nodes.map((n) => [n.key, []]));
  for (const [from, to] of edges) {
    succs.get(from).push(to);
    preds.get(to).push(from);
  }
  // Longest path from the roots (Kahn's order; a template's graph has no cycle).
  const rank = new Map();
  const waiting = new Map(nodes.map((n) => [n.key, preds.get(n.key).length]));
  const queue = nodes.filter((n) => waiting.get(n.key) === 0).map((n) => n.key);
  for (const key of queue) rank.set(key, 0);
  for (let i = 0; i < queue.length; i += 1) {
    const key = queue[i];
    for (const next of succs.get(key)) {
      rank.set(next, Math.max(rank.get(next) || 0, rank.get(key) + 1));
      waiting.set(next, waiting.get(next) - 1);
      if (waiting.get(next) === 0) queue.push(next);
    }
  }
  for (const n of nodes) if (!rank.has(n.key)) rank.set(n.key, 0); // defensive: a cycle
  const ranks = [];
  for (const n of nodes) {
    const r = rank.get(n.key);
    (ranks[r] = ranks[r] || []).push(n.key);
  }
  // Rows about as long as the whole is tall, for a view of 1.6:1 and nodes of the usual size.
  const cellW = Math.max(...nodes.map((n) => n.width)) + NODE_GAP;
  const cellH = Math.max(...nodes.map((n) => n.height)) + ROW_GAP;
  const perRow = Math.max(8, Math.ceil(Math.sqrt((nodes.length * 1.6 * cellH) / cellW)));
  const order = new Map(); // key -> horizontal order value, for the barycentre
  const rows = []; // [{ keys, rank }]
  for (let r = 0; r < ranks.length; r += 1) {
    const keys = ranks[r] || [];
    if (r > 0) {
      const bary = new Map(keys.map((k) => {
        const ps = preds.get(k);
        return [k, ps.length ? ps.reduce((sum, p) => sum + order.get(p), 0) / ps.length : 0];
      }));
      keys.sort((a, b) => bary.get(a) - bary.get(b));
    }
    keys.forEach((k, i) => order.set(k, i / Math.max(1, keys.length - 1)));
    for (let i = 0; i < keys.length; i += perRow) rows.push({ keys: keys.slice(i, i + perRow), rank: r });
  }
  const rowWidth = (row) => row.keys.reduce((w, k) => w + size.get(k).width, 0) + NODE_GAP * (row.keys.length - 1);
  const width = Math.max(...rows.map(rowWidth), 0) + 2 * pad;
  const pos = new Map();
  let y = pad;
  rows.forEach((row, i) => {
    if (i > 0) y += rows[i - 1].rank === row.rank ? ROW_GAP : RANK_GAP;
    let x = (width - rowWidth(row)) / 2;
    const height = Math.max(...row.keys.map((k) => size.get(k).height));
    for (const k of row.keys) {
      pos.set(k, { x, y });
      x += size.get(k).width + NODE_GAP;
    }
    y += height;
  });
  const points = new Map();
  for (const [from, to] of edges) {
    const a = pos.get(from);
    const b = pos.get(to);
    const sa = size.get(from);
    const sb = size.get(to);
    points.set(`${from}>${to}`, [
      { x: a.x + sa.width / 2, y: a.y + sa.height },
      { x: b.x + sb.width / 2, y: b.y },
    ]);
  }
  return { width, height: y + pad, pos, points };
}

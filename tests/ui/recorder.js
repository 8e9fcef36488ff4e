// Installed by the browser tests before the page's script: records every class a graph
// node ever had, with its tooltip then (so a state that came and went between two looks
// is still seen), and any
// Content-Security-Policy violation.
(() => {
  window.__hp = { history: {}, violations: [] };
  const record = (el) => {
    if (!(el instanceof Element) || !el.matches("g.node")) return;
    const key = el.getAttribute("data-key") || "";
    const list = (window.__hp.history[key] = window.__hp.history[key] || []);
    const title = el.querySelector("title");
    const cls = `${el.getAttribute("class") || ""}|${title ? title.textContent : ""}`;
    if (list[list.length - 1] !== cls) list.push(cls);
  };
  const observer = new MutationObserver((mutations) => {
    for (const m of mutations) {
      if (m.type === "attributes") record(m.target);
      for (const added of m.addedNodes || []) {
        if (!(added instanceof Element)) continue;
        record(added);
        added.querySelectorAll && added.querySelectorAll("g.node").forEach(record);
      }
    }
  });
  const start = () => observer.observe(document.documentElement, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["class"],
  });
  if (document.documentElement) start();
  else document.addEventListener("DOMContentLoaded", start);
  document.addEventListener("securitypolicyviolation", (e) => {
    window.__hp.violations.push(`${e.violatedDirective} ${e.blockedURI}`);
  });
})();

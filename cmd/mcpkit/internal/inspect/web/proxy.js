// The MCP Apps sandbox proxy of mcpkit inspect (the spec's "Sandbox
// proxy"), served from the inspector's second port, another origin than
// the page's. It says ui/notifications/sandbox-proxy-ready to the page,
// loads the View on ui/notifications/sandbox-resource-ready in an inner
// iframe sandboxed with allow-scripts alone (an opaque origin) from
// /view/ID, served under the View's CSP, and forwards every other
// message between the page and the View, keeping the
// ui/notifications/sandbox-* ones. Only the page's origins (from its
// parent window) and the View's window are read; nothing else.
"use strict";
(() => {
  const root = document.documentElement;
  const hosts = (root.dataset.hosts || "").split(" ").filter(Boolean);
  const prefix = "ui/notifications/sandbox-";
  let host = null; // the page's origin, from its first message
  let inner = null;
  const sandboxOnly = (m) => m !== null && typeof m === "object" && typeof m.method === "string" && m.method.startsWith(prefix);
  const count = (k) => { root.dataset[k] = String(Number(root.dataset[k] || 0) + 1); };
  const load = (p) => {
    const perms = p.permissions || {};
    const allow = [["camera", "camera"], ["microphone", "microphone"], ["geolocation", "geolocation"], ["clipboardWrite", "clipboard-write"]]
      .filter(([k]) => perms[k]).map(([, v]) => v).join("; ");
    inner = document.createElement("iframe");
    inner.id = "view";
    inner.setAttribute("sandbox", "allow-scripts");
    if (allow) inner.setAttribute("allow", allow);
    inner.referrerPolicy = "no-referrer";
    inner.title = "MCP App (sandboxed)";
    inner.style.cssText = "border:0;display:block;width:100%;height:100vh";
    inner.src = root.dataset.view;
    document.body.append(inner);
  };
  root.style.margin = "0";
  document.body.style.margin = "0";
  window.addEventListener("message", (ev) => {
    const m = ev.data;
    if (ev.source === window.parent && hosts.includes(ev.origin)) {
      host = ev.origin;
      if (sandboxOnly(m)) {
        if (m.method === prefix + "resource-ready" && !inner) load(m.params || {});
        return;
      }
      if (inner && inner.contentWindow) { inner.contentWindow.postMessage(m, "*"); count("down"); }
      return;
    }
    if (inner && ev.source === inner.contentWindow) {
      if (sandboxOnly(m) || !host) return;
      window.parent.postMessage(m, host);
      count("up");
      return;
    }
    count("ignored");
  });
  window.parent.postMessage({ jsonrpc: "2.0", method: prefix + "proxy-ready", params: {} }, "*");
})();

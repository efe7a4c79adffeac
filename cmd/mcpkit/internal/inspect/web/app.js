// The page of `mcpkit inspect`. Plain JavaScript, no build step: it
// talks to the inspector (never to the MCP server) over an EventSource
// stream and JSON POSTs, each carrying the token. Nothing the server sends
// is ever parsed as HTML: text goes through textContent, images and audio
// through data: URLs.
"use strict";

const token = document.querySelector('meta[name="mcpkit-token"]').content;
const $ = (id) => document.getElementById(id);

// el builds an element: el("button", {type: "button", onclick: f}, "text", child...).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(e.dataset, v);
    else if (k === "text") e.textContent = v;
    else if (v === true) e.setAttribute(k, "");
    else e.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    add(e, c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// fill replaces the children of node, skipping null, undefined and false.
function fill(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== undefined && c !== null && c !== false));
}

// add appends children to node, skipping null, undefined and false.
function add(node, ...children) {
  node.append(...children.flat().filter((c) => c !== undefined && c !== null && c !== false));
}

// ---------------------------------------------------------------- API

async function api(path, body) {
  const r = await fetch("/api/" + path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Mcpkit-Token": token },
    body: JSON.stringify(body || {}),
  });
  let j = {};
  try { j = await r.json(); } catch (_) { /* empty */ }
  if (!r.ok) throw new Error(j.error && j.error.message ? j.error.message : (j.error || ("HTTP " + r.status)));
  return j;
}

// pending are the page's requests in flight, by id.
const pending = new Map();
let nextId = 1;

// request sends method with params to the server through the inspector
// and resolves with {result} or {error, cancelled}. label names it in
// the list of requests in flight. A request that may report progress
// carries its id as _meta.progressToken.
// A quiet request (completion as the user types) is not listed.
function request(method, params, label, noProgress, quiet) {
  const id = "r" + nextId++;
  params = params || {};
  if (!noProgress) params._meta = Object.assign({}, params._meta, { progressToken: id });
  return new Promise((resolve) => {
    const p = { id, method, params, label: label || method, resolve, seen: [] };
    pending.set(id, p);
    if (!quiet) addInflight(p);
    api("request", { id, method, params }).catch((err) => {
      finish(id, { error: { message: err.message } });
    });
  });
}

function finish(id, outcome) {
  const p = pending.get(id);
  if (!p) return;
  pending.delete(id);
  if (p.li) p.li.remove();
  updateInflightCount();
  p.resolve(Object.assign({ id, method: p.method, params: p.params }, outcome));
}

// fetchAll reads every page of a list (at most 100 pages).
async function fetchAll(method, member) {
  const items = [];
  let cursor;
  for (let i = 0; i < 100; i++) {
    const params = cursor ? { cursor } : {};
    const r = await request(method, params, method);
    if (r.error) throw new Error(errorText(r.error));
    items.push(...(r.result[member] || []));
    cursor = r.result.nextCursor;
    if (!cursor) break;
  }
  return items;
}

function errorText(e) {
  if (!e) return "";
  return (e.code ? e.code + " " : "") + e.message + (e.data !== undefined ? " " + JSON.stringify(e.data) : "");
}

// ---------------------------------------------------------------- copy as mcpkit command

function shellQuote(s) {
  if (s !== "" && /^[A-Za-z0-9_\-./=:,+@%]+$/.test(s)) return s;
  return "'" + s.replace(/'/g, "'\\''") + "'";
}

// commandFor is the mcpkit command line that sends the same request, or
// "" when no mcpkit verb does.
function commandFor(method, params) {
  const server = state.args || "";
  const args = (obj) => obj && Object.keys(obj).length ? " --args " + shellQuote(JSON.stringify(obj)) : "";
  let verb;
  switch (method) {
    case "tools/list": verb = "tools list"; break;
    case "tools/call": verb = "tools call " + shellQuote(params.name) + args(params.arguments); break;
    case "resources/list": case "resources/templates/list": verb = "resources list"; break;
    case "resources/read": verb = "resources read " + shellQuote(params.uri); break;
    case "prompts/list": verb = "prompts list"; break;
    case "prompts/get": verb = "prompts get " + shellQuote(params.name) + args(params.arguments); break;
    default: return "";
  }
  return "mcpkit " + verb + (server ? " " + server : "");
}

function copyButton(method, params) {
  const cmd = commandFor(method, params);
  if (!cmd) return null;
  return el("button", {
    type: "button", class: "small", title: cmd, "aria-label": "Copy as mcpkit command: " + cmd,
    onclick: () => {
      $("copied").textContent = cmd;
      if (navigator.clipboard) navigator.clipboard.writeText(cmd).catch(() => {});
    },
  }, "Copy as mcpkit command");
}

// ---------------------------------------------------------------- requests in flight

function addInflight(p) {
  const bar = el("progress", { "aria-label": "Progress of " + p.label });
  const msg = el("span", { class: "muted" });
  const cancel = el("button", {
    type: "button", class: "small", "aria-label": "Cancel " + p.label,
    onclick: () => {
      cancel.disabled = true;
      api("cancel", { id: p.id }).catch((err) => { msg.textContent = err.message; });
    },
  }, "Cancel");
  p.bar = bar; p.msg = msg;
  p.li = el("li", { dataset: { id: p.id, method: p.method } },
    el("span", { class: "mono" }, p.label), bar, msg, cancel, copyButton(p.method, p.params));
  add($("inflight-list"), p.li);
  updateInflightCount();
}

function updateInflightCount() { $("inflight-count").textContent = String(pending.size); }

function onProgress(params) {
  const p = pending.get(String(params.progressToken));
  if (!p) return;
  p.seen.push(params.progress);
  if (params.total > 0) { p.bar.max = params.total; p.bar.value = params.progress; }
  else { p.bar.removeAttribute("value"); }
  p.bar.dataset.seen = p.seen.join(",");
  p.msg.textContent = params.total > 0 ? `${params.progress}/${params.total}` : String(params.progress);
  if (params.message) p.msg.textContent += " " + params.message;
  // The view that started the request shows its progress too.
  if (p.onprogress) p.onprogress(params, p.seen);
}

// ---------------------------------------------------------------- connection

let state = { status: "disconnected" };

function splitWords(line) {
  const words = [];
  let cur = null, q = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (q) {
      if (c === q) q = null;
      else if (c === "\\" && q === '"' && i + 1 < line.length) cur += line[++i];
      else cur += c;
    } else if (c === "'" || c === '"') { q = c; cur = cur || ""; }
    else if (c === "\\" && i + 1 < line.length) { cur = (cur || "") + line[++i]; }
    else if (/\s/.test(c)) { if (cur !== null) { words.push(cur); cur = null; } }
    else cur = (cur || "") + c;
  }
  if (cur !== null) words.push(cur);
  return words;
}

function joinWords(words) { return (words || []).map(shellQuote).join(" "); }

function setTransport(kind) {
  $("transport").value = kind;
  $("stdio-fields").hidden = kind !== "stdio";
  $("http-fields").hidden = kind !== "http";
}

function fillForm(t) {
  if (!t) return;
  if (t.url) {
    setTransport("http");
    $("url").value = t.url;
    $("headers").value = (t.headers || []).join("\n");
  } else if (t.command) {
    setTransport("stdio");
    $("command").value = joinWords(t.command);
  }
  $("era").value = t.era || "auto";
  $("tasks-ext").checked = !!t.tasksExtension;
}

function targetFromForm() {
  const era = $("era").value;
  const tasksExtension = $("tasks-ext").checked || undefined;
  if ($("transport").value === "http") {
    const headers = $("headers").value.split("\n").map((s) => s.trim()).filter(Boolean);
    return { url: $("url").value.trim(), headers, era, tasksExtension };
  }
  return { command: splitWords($("command").value), era, tasksExtension };
}

function showState(s) {
  const prev = state.status;
  state = s;
  const st = $("status");
  st.dataset.status = s.status;
  st.textContent = s.status;
  $("connect-error").textContent = s.error || "";
  $("reconnect").disabled = !s.target || s.status === "connecting";
  $("disconnect").disabled = s.status !== "connected";
  $("connect").disabled = s.status === "connecting";
  if (s.target && prev === undefined) fillForm(s.target);
  const info = s.serverInfo;
  $("server-name").textContent = info ? `${info.title || info.name} ${info.version || ""}` : "";
  const facts = $("server-facts");
  fill(facts);
  const fact = (k, v) => { if (v) add(facts, el("dt", {}, k), el("dd", { dataset: { fact: k } }, v)); };
  if (s.status === "connected") {
    fact("name", info && info.name);
    fact("version", info && info.version);
    fact("protocol", s.protocolVersion);
    fact("era", s.stateless ? "stateless" : "session");
    fact("session", s.sessionId);
    const tok = s.token;
    if (tok) {
      fact("token", (tok.tokenType || "token") + (tok.issuer ? " from " + tok.issuer : ""));
      fact("scopes", tok.scope || "(none said)");
      if (tok.expiry) {
        const at = new Date(tok.expiry);
        add(facts, el("dt", {}, "expires"), el("dd", { dataset: { fact: "expires", expiry: tok.expiry } },
          el("time", { datetime: at.toISOString() }, at.toLocaleString()), ` (in ${Math.round((at - Date.now()) / 60000)} min)` +
          (tok.refreshable ? ", refreshable" : "")));
      }
    }
  }
  fill($("capabilities"), s.capabilities ? tree(s.capabilities, "capabilities", true) : "");
  $("instructions").textContent = s.instructions || "";
  if (s.status === "connected" && prev !== "connected") loadLists();
  if (s.status !== "connected") {
    clearLists();
  }
  if (s.status === "connected" && prev !== "connected") clearTasks();
}

async function connect(ev) {
  ev.preventDefault();
  $("connect-error").textContent = "";
  try { showState(await api("connect", targetFromForm())); }
  catch (err) { $("connect-error").textContent = err.message; }
}

// ---------------------------------------------------------------- trees and contents

// tree shows a JSON value as nested <details>, open to depth 2.
function tree(value, key, open, depth) {
  depth = depth || 0;
  const label = key !== undefined ? el("span", { class: "k" }, key + ": ") : null;
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
    const d = el("details", { open: open || depth < 2 },
      el("summary", {}, label, el("span", { class: "muted" }, Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`)));
    for (const [k, v] of entries) add(d, tree(v, k, false, depth + 1));
    if (depth === 0) return el("div", { class: "tree" }, d);
    return d;
  }
  const cls = typeof value === "string" ? "s" : typeof value === "number" ? "n" : "b";
  const leaf = el("div", { class: "leaf" }, label, el("span", { class: cls }, JSON.stringify(value)));
  return depth === 0 ? el("div", { class: "tree" }, leaf) : leaf;
}

const safeMime = (m, kind) => (typeof m === "string" && new RegExp("^" + kind + "/[A-Za-z0-9.+-]+$").test(m)) ? m : null;

// renderContent shows one content block of a tool result, a prompt
// message or a resource's contents.
function renderContent(c) {
  const box = el("div", { class: "content", dataset: { type: c.type || (c.uri ? "resource-contents" : "unknown") } });
  switch (c.type) {
    case "text":
      add(box, el("pre", {}, c.text));
      break;
    case "image": {
      const m = safeMime(c.mimeType, "image");
      add(box, el("span", { class: "badge" }, "image " + (c.mimeType || "")));
      if (m) add(box, el("img", { src: `data:${m};base64,${c.data}`, alt: "image from the server (" + m + ")" }));
      break;
    }
    case "audio": {
      const m = safeMime(c.mimeType, "audio");
      add(box, el("span", { class: "badge" }, "audio " + (c.mimeType || "")));
      if (m) add(box, el("audio", { controls: true, src: `data:${m};base64,${c.data}`, "aria-label": "audio from the server (" + m + ")" }));
      break;
    }
    case "resource_link":
      add(box, el("span", { class: "badge" }, "resource link"), el("span", { class: "mono" }, c.uri), " ",
        c.name ? el("span", {}, c.name) : null, " ", c.mimeType ? el("span", { class: "muted" }, c.mimeType) : null, " ",
        el("button", { type: "button", class: "small", "aria-label": "Read " + c.uri, onclick: () => { selectTab("resources"); readResource(c.uri); } }, "Read"));
      break;
    case "resource":
      add(box, el("span", { class: "badge" }, "embedded resource"), renderResourceContents(c.resource || {}));
      break;
    default:
      if (c.uri) { add(box, renderResourceContents(c)); break; }
      add(box, tree(c, undefined, true));
  }
  return box;
}

function renderResourceContents(r) {
  const box = el("div", { class: "resource-contents" },
    el("div", {}, el("span", { class: "mono" }, r.uri || ""), " ", el("span", { class: "muted" }, r.mimeType || "")));
  if (typeof r.text === "string") add(box, el("pre", {}, r.text));
  else if (typeof r.blob === "string") {
    const img = safeMime(r.mimeType, "image"), aud = safeMime(r.mimeType, "audio");
    if (img) add(box, el("img", { src: `data:${img};base64,${r.blob}`, alt: "resource " + r.uri }));
    else if (aud) add(box, el("audio", { controls: true, src: `data:${aud};base64,${r.blob}`, "aria-label": "resource " + r.uri }));
    else add(box, el("span", { class: "muted" }, `blob, ${Math.floor(r.blob.length * 3 / 4)} bytes (base64 ${r.blob.length})`));
  }
  return box;
}

// renderOutcome shows how a request ended: the error, or render(result).
function renderOutcome(target, r, render) {
  fill(target);
  const head = el("div", { class: "row" },
    el("span", { class: "muted", dataset: { took: r.ms } }, r.cancelled ? "cancelled" : r.error ? "failed" : "done",
      r.ms !== undefined ? ` in ${r.ms.toFixed(1)} ms` : ""),
    copyButton(r.method, r.params));
  add(target, head);
  if (r.cancelled) { target.dataset.outcome = "cancelled"; return; }
  if (r.error) {
    target.dataset.outcome = "error";
    add(target, el("p", { class: "error", role: "alert" }, errorText(r.error)));
    return;
  }
  target.dataset.outcome = "ok";
  render(r.result);
}

// ---------------------------------------------------------------- schema forms

let fieldSeq = 0;

// field builds the input of one value of a JSON Schema and returns
// {node, get, set}: get() is the value, undefined when left empty;
// set(v) fills it. What a form cannot express is raw JSON.
function field(schema, name, required, description) {
  schema = schema || {};
  const id = "f" + (++fieldSeq);
  const desc = description || schema.description;
  const descId = desc ? id + "-desc" : null;
  let type = schema.type;
  if (Array.isArray(type)) type = type.find((t) => t !== "null");
  const label = (text) => el("label", { for: id }, text, required ? el("span", { class: "req", "aria-hidden": "true" }, " *") : null);
  const small = desc ? el("small", { id: descId }, desc) : null;
  const wrap = (...children) => el("div", { class: "field", dataset: { name } }, ...children);
  const common = { id, name, "aria-describedby": descId, required: !!required };

  if (Array.isArray(schema.enum)) {
    const sel = el("select", common, required ? null : el("option", { value: "" }, "(none)"),
      schema.enum.map((v, i) => el("option", { value: String(i) }, typeof v === "string" ? v : JSON.stringify(v))));
    const set = (v) => { const i = schema.enum.findIndex((e) => JSON.stringify(e) === JSON.stringify(v)); sel.value = i >= 0 ? String(i) : ""; };
    if (schema.default !== undefined) set(schema.default);
    return { node: wrap(label(name), sel, small), get: () => sel.value === "" ? undefined : schema.enum[Number(sel.value)], set };
  }
  switch (type) {
    case "string": {
      const multiline = schema.maxLength === undefined || schema.maxLength > 200;
      const inp = el("input", Object.assign({ type: "text", spellcheck: "false" }, common));
      if (schema.format === "uri" || schema.format === "url") inp.type = "url";
      if (schema.default !== undefined) inp.value = schema.default;
      void multiline;
      return { node: wrap(label(name), inp, small), get: () => inp.value === "" && !required ? undefined : inp.value, set: (v) => { inp.value = v ?? ""; } };
    }
    case "number": case "integer": {
      const inp = el("input", Object.assign({ type: "number", step: type === "integer" ? "1" : "any", min: schema.minimum, max: schema.maximum }, common));
      if (schema.default !== undefined) inp.value = schema.default;
      return {
        node: wrap(label(name), inp, small),
        get: () => inp.value === "" ? undefined : Number(inp.value),
        set: (v) => { inp.value = v ?? ""; },
      };
    }
    case "boolean": {
      const inp = el("input", Object.assign({ type: "checkbox" }, common));
      let touched = false;
      inp.addEventListener("change", () => { touched = true; });
      if (schema.default !== undefined) inp.checked = !!schema.default;
      return {
        node: wrap(el("label", { class: "inline", for: id }, inp, name, required ? el("span", { class: "req", "aria-hidden": "true" }, " *") : null), small),
        get: () => (required || touched || schema.default !== undefined) ? inp.checked : undefined,
        set: (v) => { inp.checked = !!v; touched = v !== undefined; },
      };
    }
    case "object":
      if (schema.properties && !schema.anyOf && !schema.oneOf) return objectField(schema, name, required, small);
      break;
    case "array":
      if (schema.items && !Array.isArray(schema.items)) return arrayField(schema, name, required, small);
      break;
  }
  // Raw JSON for what the form cannot express (anyOf, oneOf, $ref, no type).
  const ta = el("textarea", Object.assign({ rows: 2, spellcheck: "false" }, common));
  if (schema.default !== undefined) ta.value = JSON.stringify(schema.default);
  return {
    node: wrap(label(name + " (JSON)"), ta, small),
    get: () => { if (ta.value.trim() === "") return undefined; return JSON.parse(ta.value); },
    set: (v) => { ta.value = v === undefined ? "" : JSON.stringify(v); },
  };
}

function objectField(schema, name, required, small) {
  const req = new Set(schema.required || []);
  const fields = Object.entries(schema.properties || {}).map(([k, s]) => [k, field(s, k, req.has(k))]);
  const body = fields.map(([, f]) => f.node);
  const node = name === undefined
    ? el("div", { class: "object-root" }, body)
    : el("fieldset", { class: "object", dataset: { name } }, el("legend", {}, name, required ? el("span", { class: "req", "aria-hidden": "true" }, " *") : null), small, body);
  return {
    node,
    get: () => {
      const out = {};
      for (const [k, f] of fields) { const v = f.get(); if (v !== undefined) out[k] = v; }
      return Object.keys(out).length || required || name === undefined ? out : undefined;
    },
    set: (v) => { for (const [k, f] of fields) f.set(v ? v[k] : undefined); },
  };
}

function arrayField(schema, name, required, small) {
  const items = [];
  const list = el("div", { class: "items-list" });
  const add = (v) => {
    const f = field(schema.items, name + "[" + items.length + "]", false);
    const entry = { f };
    const remove = el("button", { type: "button", class: "small", "aria-label": "Remove item of " + name, onclick: () => { items.splice(items.indexOf(entry), 1); entry.node.remove(); } }, "Remove");
    entry.node = el("div", { class: "array-item" }, f.node, remove);
    items.push(entry);
    add(list, entry.node);
    if (v !== undefined) f.set(v);
  };
  const node = el("fieldset", { class: "array", dataset: { name } },
    el("legend", {}, name, required ? el("span", { class: "req", "aria-hidden": "true" }, " *") : null), small, list,
    el("button", { type: "button", class: "small", "aria-label": "Add item to " + name, onclick: () => add() }, "Add item"));
  if (Array.isArray(schema.default)) schema.default.forEach(add);
  return {
    node,
    get: () => {
      const out = items.map((e) => e.f.get()).filter((v) => v !== undefined);
      return out.length || required ? out : undefined;
    },
    set: (v) => { items.splice(0).forEach((e) => e.node.remove()); (Array.isArray(v) ? v : []).forEach(add); },
  };
}

// argsEditor is a form for an object schema with a raw JSON mode.
function argsEditor(schema, what) {
  const form = objectField(schema && schema.type === "object" ? schema : { type: "object", properties: {} }, undefined, true);
  const jsonId = "f" + (++fieldSeq);
  const ta = el("textarea", { id: jsonId, rows: 6, spellcheck: "false", class: "args-json" });
  const jsonBox = el("div", { class: "field", hidden: true }, el("label", { for: jsonId }, what + " as JSON"), ta);
  const err = el("p", { class: "error", role: "alert" });
  let raw = false;
  const toggle = el("button", { type: "button", class: "small", "aria-pressed": "false" }, "Edit as JSON");
  toggle.addEventListener("click", () => {
    err.textContent = "";
    try {
      if (!raw) { ta.value = JSON.stringify(form.get(), null, 2); }
      else { form.set(JSON.parse(ta.value || "{}")); }
    } catch (e) { err.textContent = e.message; return; }
    raw = !raw;
    toggle.setAttribute("aria-pressed", String(raw));
    toggle.textContent = raw ? "Edit as form" : "Edit as JSON";
    form.node.hidden = raw;
    jsonBox.hidden = !raw;
  });
  return {
    node: el("div", { class: "args" }, form.node, jsonBox, el("div", { class: "row" }, toggle), err),
    get: () => {
      err.textContent = "";
      try {
        const v = raw ? JSON.parse(ta.value || "{}") : form.get();
        if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error(what + " must be a JSON object");
        return v;
      } catch (e) { err.textContent = e.message; throw e; }
    },
  };
}

// ---------------------------------------------------------------- completion

// completeFields makes the text inputs of form (an objectField) named in
// names ask completion/complete for ref as the user types, when the server
// declares the completions capability. The other fields' values go as
// context.arguments.
function completeFields(form, ref, names) {
  if (!(state.capabilities && state.capabilities.completions)) return;
  for (const inp of form.node.querySelectorAll("input[type=text]")) {
    if (!names.includes(inp.name)) continue;
    completer(inp, ref, inp.name, () => {
      const ctx = {};
      for (const [k, v] of Object.entries(form.get() || {})) if (k !== inp.name && typeof v === "string" && v !== "") ctx[k] = v;
      return ctx;
    });
  }
}

// completer turns inp into a combobox: typing asks completion/complete
// (debounced), the values show in a listbox under it; ArrowDown and
// ArrowUp move through them, Enter or a click picks one, Escape closes.
function completer(inp, ref, argName, context) {
  const listId = inp.id + "-completions";
  const list = el("ul", { id: listId, role: "listbox", class: "completions", hidden: true, "aria-label": "Completions of " + argName });
  const status = el("small", { class: "completion-status", role: "status", "aria-live": "polite" });
  inp.setAttribute("role", "combobox");
  inp.setAttribute("aria-autocomplete", "list");
  inp.setAttribute("aria-expanded", "false");
  inp.setAttribute("aria-controls", listId);
  inp.setAttribute("autocomplete", "off");
  inp.after(list, status);
  let timer = 0, seq = 0, active = -1, values = [], swallowEnter = false;
  const close = () => {
    seq++; clearTimeout(timer);
    list.hidden = true; fill(list); values = []; active = -1;
    inp.setAttribute("aria-expanded", "false");
    inp.removeAttribute("aria-activedescendant");
  };
  const highlight = (i) => {
    active = i;
    [...list.children].forEach((li, j) => li.setAttribute("aria-selected", String(j === i)));
    if (i >= 0) { inp.setAttribute("aria-activedescendant", list.children[i].id); list.children[i].scrollIntoView({ block: "nearest" }); }
    else inp.removeAttribute("aria-activedescendant");
  };
  const pick = (v) => {
    inp.value = v;
    close();
    status.textContent = "";
    inp.focus();
    inp.dispatchEvent(new Event("change", { bubbles: true }));
  };
  const ask = async () => {
    clearTimeout(timer);
    const my = ++seq;
    const params = { ref, argument: { name: argName, value: inp.value } };
    const ctx = context();
    if (Object.keys(ctx).length) params.context = { arguments: ctx };
    const r = await request("completion/complete", params, "completion/complete " + argName, true, true);
    if (my !== seq || document.activeElement !== inp) return; // a later ask, or the user left
    if (r.error) { close(); status.textContent = "completion/complete: " + errorText(r.error); return; }
    const c = r.result.completion || {};
    values = (c.values || []).filter((v) => typeof v === "string").slice(0, 100);
    fill(list, values.map((v, i) => el("li", {
      id: listId + "-" + i, role: "option", "aria-selected": "false", dataset: { value: v },
      onmousedown: (e) => e.preventDefault(), // keep the focus in the input
      onclick: () => pick(v),
    }, v)));
    active = -1;
    list.hidden = values.length === 0;
    inp.setAttribute("aria-expanded", String(values.length > 0));
    const more = c.hasMore || (c.total !== undefined && c.total > values.length);
    status.textContent = values.length === 0 ? "no completions" :
      `${values.length} completion(s)` + (c.total !== undefined ? ` of ${c.total}` : "") + (more ? ", more on the server" : "") + ": ArrowDown to choose";
  };
  inp.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(ask, 250); });
  inp.addEventListener("keydown", (e) => {
    const open = !list.hidden && values.length > 0;
    switch (e.key) {
      case "ArrowDown":
        e.preventDefault();
        if (!open) { ask(); return; }
        highlight(Math.min(active + 1, values.length - 1));
        return;
      case "ArrowUp":
        if (!open) return;
        e.preventDefault();
        highlight(Math.max(active - 1, 0));
        return;
      case "Enter":
        if (open && active >= 0) { e.preventDefault(); swallowEnter = true; pick(values[active]); }
        return;
      case "Escape":
        if (open) { e.preventDefault(); close(); }
        return;
    }
  });
  // The Enter that picked does not submit the form too (a keypress that
  // follows the keydown, as synthetic key events send it).
  inp.addEventListener("keypress", (e) => { if (e.key === "Enter" && swallowEnter) e.preventDefault(); swallowEnter = false; });
  inp.addEventListener("keyup", () => { swallowEnter = false; });
  inp.addEventListener("blur", () => close());
}

// ---------------------------------------------------------------- lists

const lists = { tools: [], resources: [], templates: [], prompts: [] };

function clearLists() {
  for (const k of Object.keys(lists)) lists[k] = [];
  for (const id of ["tools-list", "resources-list", "templates-list", "prompts-list", "skills-list"]) $(id).replaceChildren();
  skillList.items = []; skillList.cursor = null; $("skills-more").hidden = true; $("skills-status").textContent = "";
  if (app) { app.teardown("disconnected"); app = null; }
}

function loadLists() {
  const caps = state.capabilities || {};
  if (caps.tools) loadTools();
  if (caps.resources) loadResources();
  if (caps.prompts) loadPrompts();
  $("tab-skills").hidden = !skillsDeclared();
  if (skillsDeclared()) loadSkills(false);
}

function renderList(listId, items, search, key, sub, onpick) {
  const q = $(search).value.trim().toLowerCase();
  const ul = $(listId);
  fill(ul);
  for (const it of items) {
    const hay = [it.name, it.title, it.description, it.uri, it.uriTemplate].filter(Boolean).join(" ").toLowerCase();
    if (q && !hay.includes(q)) continue;
    const b = el("button", { type: "button", dataset: { key: it[key] }, onclick: () => {
      for (const x of ul.querySelectorAll("button[aria-current]")) x.removeAttribute("aria-current");
      b.setAttribute("aria-current", "true");
      onpick(it);
    } }, it.title || it.name || it[key], el("span", { class: "sub" }, sub(it) || ""));
    add(ul, el("li", {}, b));
  }
}

async function loadTools() {
  try { lists.tools = await fetchAll("tools/list", "tools"); }
  catch (err) { fill($("tool-detail"), el("p", { class: "error" }, "tools/list: " + err.message)); }
  showTools();
}
function showTools() { renderList("tools-list", lists.tools, "tools-search", "name", (t) => t.title ? t.name : t.description, showTool); }

function showTool(tool) {
  const detail = $("tool-detail");
  const editor = argsEditor(tool.inputSchema, "Arguments");
  const result = el("div", { class: "result", "aria-live": "polite", id: "tool-result" });
  const progress = el("progress", { hidden: true, "aria-label": "Progress of " + tool.name, id: "tool-progress" });
  const call = el("button", { type: "submit", class: "primary", id: "tool-call" }, "Call " + tool.name);
  // A tool that may run as a task: in the session era the user chooses
  // (task-augmented tools/call); in the stateless era a client that
  // declares the tasks extension gets a task for every such tool.
  const support = tool.execution && tool.execution.taskSupport;
  let asTask = null, asTaskText = "";
  if (support === "optional" || support === "required") {
    if (!state.stateless) {
      asTask = el("input", { type: "checkbox", id: "tool-as-task", checked: support === "required", disabled: support === "required" });
      asTaskText = "Run as a task (tasks/get, tasks/result, tasks/cancel)";
    } else if (state.target && state.target.tasksExtension) {
      asTask = el("input", { type: "checkbox", id: "tool-as-task", checked: true, disabled: true });
      asTaskText = "Runs as a task: the tasks extension is declared (tasks/get, tasks/cancel)";
    }
  }
  const form = el("form", { novalidate: true }, editor.node,
    asTask ? el("div", { class: "field" }, el("label", { class: "inline", for: "tool-as-task" }, asTask, asTaskText)) : null,
    el("div", { class: "buttons" }, call, progress));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    let args;
    try { args = editor.get(); } catch (_) { return; }
    progress.hidden = true; progress.removeAttribute("value");
    fill(result, el("p", { class: "muted" }, "calling " + tool.name + "…"));
    delete result.dataset.outcome;
    const params = { name: tool.name, arguments: args };
    if (asTask && asTask.checked && !state.stateless) {
      params.task = {};
      const r = await request("tools/call", params, "tools/call " + tool.name + " (as a task)", true);
      renderOutcome(result, r, (res) => taskCreated(result, res.task || {}, tool));
      return;
    }
    // A tool with a UI (MCP Apps): its app loads while the call runs.
    const host = toolUI(tool) ? openApp(appBox, tool, args) : null;
    const r = await callWithProgress("tools/call", params, "tools/call " + tool.name, (p, seen) => {
      progress.hidden = false;
      if (p.total > 0) { progress.max = p.total; progress.value = p.progress; }
      progress.dataset.seen = seen.join(",");
    });
    // A stateless-era task (resultType "task") comes as the call's result.
    renderOutcome(result, r, (res) => res.resultType === "task" ? taskCreated(result, res, tool) : renderToolResult(result, res, tool));
    if (host) host.done(r);
  });
  const appBox = el("section", { class: "app", id: "tool-app", "aria-label": "MCP App of " + tool.name, hidden: true });
  fill(detail, 
    el("h2", {}, tool.title || tool.name), tool.title ? el("p", { class: "mono muted" }, tool.name) : null,
    tool.description ? el("p", {}, tool.description) : null,
    annotations(tool), toolUI(tool) ? el("p", {}, el("span", { class: "badge" }, "MCP App"), el("span", { class: "mono" }, toolUI(tool))) : null,
    form, result, appBox,
    el("details", {}, el("summary", {}, "Input schema"), tree(tool.inputSchema || {}, undefined, true)),
    tool.outputSchema ? el("details", {}, el("summary", {}, "Output schema"), tree(tool.outputSchema, undefined, true)) : null);
}

function annotations(tool) {
  const a = tool.annotations || {};
  const badges = [];
  if (a.readOnlyHint) badges.push("read-only");
  if (a.destructiveHint) badges.push("destructive");
  if (a.idempotentHint) badges.push("idempotent");
  if (a.openWorldHint) badges.push("open world");
  if (tool.execution && tool.execution.taskSupport) badges.push("tasks: " + tool.execution.taskSupport);
  return badges.length ? el("p", {}, badges.map((b) => el("span", { class: "badge" }, b))) : null;
}

function callWithProgress(method, params, label, onprogress) {
  const promise = request(method, params, label);
  // request registered the pending entry synchronously: attach the view's hook.
  const p = [...pending.values()].pop();
  if (p) p.onprogress = onprogress;
  return promise;
}

function renderToolResult(target, res, tool) {
  if (res.isError) { target.classList.add("is-error"); add(target, el("p", { class: "error" }, "The tool reported an error (isError).")); }
  else target.classList.remove("is-error");
  for (const c of res.content || []) add(target, renderContent(c));
  const schema = tool && tool.outputSchema;
  if (res.structuredContent !== undefined) {
    const check = el("p", { class: "schema-check muted", role: "status" });
    add(target, el("h3", {}, "structuredContent"), check, el("div", { class: "structured" }, tree(res.structuredContent, undefined, true)));
    if (!schema) { check.dataset.valid = "none"; check.textContent = "The tool declares no output schema."; return; }
    check.textContent = "checking against the output schema…";
    api("validate", { schema, value: res.structuredContent }).then((v) => {
      check.dataset.valid = String(!!v.valid);
      if (v.valid) { check.className = "schema-check ok"; check.textContent = "✓ matches the tool's output schema"; }
      else { check.className = "schema-check error"; check.setAttribute("role", "alert"); check.textContent = "✗ does not match the tool's output schema: " + v.error; }
    }, (err) => { check.dataset.valid = "unknown"; check.textContent = "could not check: " + err.message; });
  } else if (schema && !res.isError) {
    add(target, el("p", { class: "schema-check error", role: "alert", dataset: { valid: "false" } },
      "✗ the tool declares an output schema but sent no structuredContent"));
  }
}

// ---------------------------------------------------------------- MCP Apps

// toolUI is the ui:// URI of the app that renders a tool's results, or
// null (_meta.ui.resourceUri, or the deprecated _meta["ui/resourceUri"]).
function toolUI(tool) {
  const m = tool._meta || {};
  const uri = (m.ui && m.ui.resourceUri) || m["ui/resourceUri"];
  return typeof uri === "string" && uri.startsWith("ui://") ? uri : null;
}

// app is the host side of the one app framed: the newest call's. The
// page frames the inspector's sandbox proxy (another origin, sandboxed
// with allow-scripts and allow-same-origin), which loads the app in an
// inner iframe sandboxed with allow-scripts alone, under the app's CSP;
// the app speaks JSON-RPC with the page over postMessage through the
// proxy, and only messages from the proxy's window and origin are read.
let app = null;

window.addEventListener("message", (ev) => {
  if (!app || !app.frame) return;
  if (ev.source !== app.frame.contentWindow || ev.origin !== app.view.origin) {
    // Not the proxy's: counted, never read.
    app.log.dataset.ignored = String(Number(app.log.dataset.ignored || 0) + 1);
    return;
  }
  const m = ev.data;
  if (m && typeof m.method === "string" && m.method.startsWith("ui/notifications/sandbox-")) app.sandbox(m);
  else app.handle(m);
});

// downloadLink is a link offering one content item of ui/download-file:
// an embedded resource (text or base64 blob) as a blob: URL with a
// download name from the last segment of its URI, sanitized; a
// resource_link to an http or https URL as a link. A string says why the
// item is refused.
function downloadLink(c, h) {
  if (c && c.type === "resource_link") {
    const url = String(c.uri || "");
    if (!/^https?:\/\//i.test(url)) return "a resource_link downloads only from http or https, not " + JSON.stringify(url);
    return el("a", { href: url, target: "_blank", rel: "noopener noreferrer", class: "app-download" }, c.name || url);
  }
  const r = c && c.type === "resource" ? c.resource : null;
  if (!r || typeof r.uri !== "string") return "want a resource or a resource_link";
  let name = r.uri.split(/[?#]/)[0].split("/").pop() || "";
  try { name = decodeURIComponent(name); } catch (_) { /* kept as sent */ }
  name = name.replace(/[\\/:*?"<>|\x00-\x1f]/g, "_").replace(/^\.+/, "");
  if (!name) name = "download";
  let bytes;
  if (typeof r.text === "string") bytes = new TextEncoder().encode(r.text);
  else if (typeof r.blob === "string") {
    try { bytes = Uint8Array.from(atob(r.blob), (ch) => ch.charCodeAt(0)); } catch (_) { return "the blob of " + JSON.stringify(r.uri) + " is not base64"; }
  } else return "the resource " + JSON.stringify(r.uri) + " has neither text nor blob";
  const url = URL.createObjectURL(new Blob([bytes], { type: typeof r.mimeType === "string" ? r.mimeType : "application/octet-stream" }));
  h.urls.push(url);
  return el("a", { href: url, download: name, class: "app-download", dataset: { size: String(bytes.length) } },
    "download " + name + " (" + bytes.length + " bytes" + (r.mimeType ? ", " + r.mimeType : "") + ")");
}

function openApp(box, tool, args) {
  if (app) app.teardown("another call of a tool with an app");
  const uri = toolUI(tool);
  const log = el("ol", { class: "app-log", id: "app-log", "aria-label": "What the app sent" });
  const h = { tool, args, frame: null, view: null, ready: false, result: null, log };
  app = h;
  box.hidden = false;
  fill(box, el("h3", {}, "MCP App ", el("span", { class: "mono" }, uri)), el("p", { class: "muted", id: "app-status", role: "status" }, "loading the app…"));
  const status = () => box.querySelector("#app-status");
  const post = (m) => { if (h.frame && h.frame.contentWindow) h.frame.contentWindow.postMessage(Object.assign({ jsonrpc: "2.0" }, m), h.view.origin); };
  const note = (method, text, outcome, extra) => {
    const li = el("li", { dataset: { method, outcome: outcome || "" } }, el("span", { class: "mono" }, method), " ", text, extra || null);
    add(log, li);
    return li;
  };
  const sendResult = () => {
    if (!h.ready || !h.result) return;
    const r = h.result;
    h.result = null;
    if (r.result && r.result.resultType !== "task") post({ method: "ui/notifications/tool-result", params: r.result });
    else post({ method: "ui/notifications/tool-cancelled", params: { reason: r.cancelled ? "cancelled by the user" : errorText(r.error) || "no result" } });
  };
  h.done = (r) => { h.result = r; sendResult(); };
  h.urls = [];
  h.teardown = (reason) => {
    for (const u of h.urls) URL.revokeObjectURL(u);
    h.urls = [];
    if (h.frame) post({ id: "teardown", method: "ui/resource-teardown", params: { reason } });
    const f = h.frame;
    h.frame = null;
    if (f) setTimeout(() => f.remove(), 500);
  };
  // forward hands an app's request to the inspector's API (path) and
  // answers the app with the server's result or the refusal.
  const forward = async (m, path, body, what) => {
    const li = note(m.method, what + "…", "pending");
    let j = {};
    try {
      const r = await fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Mcpkit-Token": token },
        body: JSON.stringify(body),
      });
      j = await r.json();
    } catch (err) { j = { error: { code: -32603, message: "mcpkit inspect: " + err.message } }; }
    const error = j.error ? (typeof j.error === "string" ? { code: -32603, message: j.error } : j.error) : null;
    li.dataset.outcome = error ? "refused" : "ok";
    fill(li, el("span", { class: "mono" }, m.method), " " + what + ": " + (error ? "refused: " + error.message : "forwarded, answered"));
    if (m.id !== undefined) post(error ? { id: m.id, error } : { id: m.id, result: j.result });
  };
  // sandbox answers the proxy's own messages: its sandbox-proxy-ready
  // gets the app's HTML and policy, once.
  h.sandbox = (m) => {
    if (m.method !== "ui/notifications/sandbox-proxy-ready" || h.proxyReady) return;
    h.proxyReady = true;
    note(m.method, "", "ok");
    post({ method: "ui/notifications/sandbox-resource-ready", params: h.view.resource });
  };
  h.handle = async (m) => {
    if (!m || m.jsonrpc !== "2.0" || typeof m.method !== "string") return; // responses (to teardown) and junk
    const reply = (result, error) => { if (m.id !== undefined) post(error ? { id: m.id, error } : { id: m.id, result }); };
    const p = m.params || {};
    switch (m.method) {
    case "ui/initialize":
      note(m.method, (p.appInfo ? p.appInfo.name + " " + p.appInfo.version : "") + " (protocol " + p.protocolVersion + ")", "ok");
      reply(h.view.initialize);
      return;
    case "ui/notifications/initialized":
      h.ready = true;
      status().textContent = "app ready";
      note(m.method, "", "ok");
      post({ method: "ui/notifications/tool-input", params: { arguments: h.args } });
      sendResult();
      return;
    case "ui/notifications/size-changed": {
      const height = Math.round(Number(p.height));
      if (height > 0) {
        const px = Math.min(Math.max(height, 40), 2000);
        h.frame.style.height = px + "px";
        h.frame.dataset.height = String(px);
      }
      note(m.method, Math.round(Number(p.width)) + "×" + height, "ok");
      return;
    }
    case "ui/message": {
      const c = p.content || {};
      note(m.method, "(" + (p.role || "?") + "): ", "ok", el("q", { class: "app-message" }, typeof c.text === "string" ? c.text : JSON.stringify(c)));
      reply({});
      return;
    }
    case "ui/open-link": {
      // Shown, never followed by itself: the user decides.
      const url = String(p.url || "");
      if (!/^https?:\/\//i.test(url)) {
        note(m.method, url + " (refused: not an http or https URL)", "refused");
        reply(undefined, { code: -32602, message: "mcpkit inspect: only http and https links open" });
        return;
      }
      note(m.method, "the app asks to open ", "ok", el("a", { href: url, target: "_blank", rel: "noopener noreferrer", class: "app-link" }, url));
      reply({});
      return;
    }
    case "ui/request-display-mode":
      note(m.method, String(p.mode) + " (the inspector shows apps inline)", "ok");
      reply({ mode: "inline" });
      return;
    case "tools/call":
      await forward(m, "/api/app-call", { view: h.view.id, name: String(p.name || ""), arguments: p.arguments }, String(p.name));
      return;
    case "resources/read":
      // Forwarded for ui:// resources of this server only (the
      // inspector refuses the others).
      await forward(m, "/api/app-read", { view: h.view.id, uri: String(p.uri || "") }, String(p.uri));
      return;
    case "ui/update-model-context": {
      // Accepted and shown; the inspector has no model to give it to.
      const text = (Array.isArray(p.content) ? p.content : []).map((c) => c && c.type === "text" ? c.text : JSON.stringify(c)).join(" ");
      const shown = [text, p.structuredContent !== undefined ? "structuredContent " + JSON.stringify(p.structuredContent) : ""].filter(Boolean).join("; ");
      note(m.method, "(the model context, replacing the one before): ", "ok", el("q", { class: "app-context" }, shown));
      logLine(Date.now(), "app " + m.method, shown);
      reply({});
      return;
    }
    case "ui/download-file": {
      // Offered as links the user may click, never saved by itself.
      const items = Array.isArray(p.contents) ? p.contents : [];
      const links = [];
      let bad = items.length === 0 || items.length > 16 ? "want 1 to 16 contents, got " + items.length : "";
      for (const c of bad ? [] : items) {
        const l = downloadLink(c, h);
        if (typeof l === "string") { bad = l; break; }
        links.push(l);
      }
      if (bad) {
        note(m.method, "(refused: " + bad + ")", "refused");
        reply(undefined, { code: -32000, message: "mcpkit inspect: Invalid content: " + bad });
        return;
      }
      note(m.method, "the app offers ", "ok", el("span", {}, ...links));
      reply({});
      return;
    }
    case "notifications/message": {
      const data = typeof p.data === "string" ? p.data : JSON.stringify(p.data);
      note(m.method, String(p.level || "") + ": " + data, "ok");
      logLine(Date.now(), "app " + (p.level || "log") + (p.logger ? " " + p.logger : ""), data, logLevels.includes(p.level) ? p.level : "");
      return;
    }
    default:
      if (m.method.startsWith("ui/notifications/") || m.id === undefined) { note(m.method, "", "ok"); return; }
      note(m.method, "(not supported)", "refused");
      reply(undefined, { code: -32601, message: "mcpkit inspect: " + m.method + " is not supported" });
    }
  };
  api("app", { tool: tool.name }).then((v) => {
    if (app !== h) return;
    h.view = v;
    h.frame = el("iframe", { id: "app-frame", sandbox: "allow-scripts allow-same-origin", src: v.src, allow: v.allow || undefined,
      referrerpolicy: "no-referrer", title: "MCP App " + v.uri + " (sandbox proxy)" });
    status().textContent = "loading " + v.uri + "…";
    add(box, h.frame,
      el("details", {}, el("summary", {}, "Policy"), el("p", { class: "csp mono" }, "sandbox proxy " + v.origin + " (sandbox=allow-scripts allow-same-origin); the app in it: sandbox=allow-scripts; Content-Security-Policy: " + v.csp)),
      el("h3", {}, "The app's messages"), log);
  }, (err) => {
    status().textContent = "";
    add(box, el("p", { class: "error", role: "alert" }, "The app could not be loaded: " + err.message));
  });
  return h;
}

// ---------------------------------------------------------------- skills

const skillsID = "io.modelcontextprotocol/skills";
const skillList = { items: [], cursor: null };

function skillsDeclared() {
  const c = state.capabilities || {};
  return !!(c.extensions && c.extensions[skillsID]);
}

// loadSkills lists the skills a page at a time: more adds the next page.
async function loadSkills(more) {
  if (!more) { skillList.items = []; skillList.cursor = null; }
  const params = more && skillList.cursor ? { cursor: skillList.cursor } : {};
  const r = await request("skills/list", params, "skills/list", true);
  if (r.error) { $("skills-status").textContent = "skills/list: " + errorText(r.error); return; }
  for (const s of r.result.skills || []) {
    const fm = s.frontmatter || {};
    skillList.items.push(Object.assign({}, s, { name: String(fm.name || s.uri), description: fm.description }));
  }
  skillList.cursor = r.result.nextCursor || null;
  $("skills-more").hidden = !skillList.cursor;
  $("skills-status").textContent = skillList.items.length + " skill" + (skillList.items.length === 1 ? "" : "s") + (skillList.cursor ? ", more on the server" : "");
  showSkills();
}
function showSkills() { renderList("skills-list", skillList.items, "skills-search", "uri", (s) => s.description, showSkill); }

async function showSkill(s) {
  const detail = $("skill-detail");
  fill(detail, el("p", { class: "muted" }, "skills/get " + s.uri + "…"));
  const r = await request("skills/get", { uri: s.uri }, "skills/get " + s.uri, true);
  if (r.error) { fill(detail, el("p", { class: "error", role: "alert" }, "skills/get: " + errorText(r.error))); return; }
  const sk = r.result.skill || {};
  const fm = sk.frontmatter || {};
  const out = el("div", { class: "result", id: "skill-file", "aria-live": "polite" });
  const files = Array.isArray(sk.resources) ? sk.resources : [];
  const rows = files.map((f) => el("tr", { dataset: { uri: f.uri } },
    el("td", { class: "mono" }, f.uri.startsWith(sk.uri.replace(/SKILL\.md$/, "")) ? f.uri.slice(sk.uri.length - "SKILL.md".length) : f.uri),
    el("td", {}, String(f.size)), el("td", { class: "digest" }, f.digest),
    el("td", {}, el("button", { type: "button", class: "small", "aria-label": "Read " + f.uri, onclick: () => readSkillFile(sk.uri, f.uri, out) }, "Read"))));
  fill(detail, el("h2", {}, String(fm.name || sk.uri)), el("p", { class: "mono muted" }, sk.uri),
    fm.description ? el("p", {}, String(fm.description)) : null,
    el("h3", {}, "Frontmatter"), tree(fm, undefined, true),
    el("h3", {}, "Files"),
    sk.resources === "dynamic" ? el("p", { class: "muted" }, "The server says the files are dynamic: no digests to check.") :
      el("table", { class: "files" }, el("caption", { class: "visually-hidden" }, "Files of " + (fm.name || sk.uri)),
        el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "File"), el("th", { scope: "col" }, "Bytes"), el("th", { scope: "col" }, "Digest"), el("th", { scope: "col" }, "Read"))),
        el("tbody", {}, rows)),
    out);
}

// readSkillFile reads a file through the inspector, which checks what
// resources/read gives against skills/get's digest and size.
async function readSkillFile(skill, uri, out) {
  fill(out, el("p", { class: "muted" }, "reading " + uri + "…"));
  delete out.dataset.verified;
  let f;
  try { f = await api("skill-read", { skill, uri }); }
  catch (err) { fill(out, el("p", { class: "error", role: "alert" }, err.message)); out.dataset.verified = "error"; return; }
  out.dataset.verified = String(f.verified);
  out.dataset.uri = f.uri;
  const verdict = f.verified
    ? el("p", { class: "verify ok", role: "status" }, "✓ digest verified: " + f.digest + ", " + f.size + " bytes")
    : el("div", { class: "verify mismatch", role: "alert" }, el("p", {}, "✗ digest mismatch: the file read is not the one skills/get lists"),
      el("p", { class: "mono" }, "listed: " + f.want + ", " + f.wantSize + " bytes"),
      el("p", { class: "mono" }, "read:   " + f.digest + ", " + f.size + " bytes"));
  fill(out, el("h3", {}, uri), verdict, f.mimeType ? el("p", { class: "muted" }, f.mimeType) : null,
    f.binary ? el("p", { class: "muted" }, "(not UTF-8 text: not shown)") : el("pre", { class: "skill-text" }, f.text));
}

// ---------------------------------------------------------------- tasks

// taskCreated shows, in a tool's result, the task its call created.
function taskCreated(target, t, tool) {
  target.dataset.outcome = "task";
  target.dataset.taskId = t.taskId || "";
  add(target, el("p", {}, "Task ", el("span", { class: "mono" }, t.taskId || "?"), " created, " + (t.status || "?") + ". ",
    el("button", { type: "button", class: "small", onclick: () => selectTab("tasks") }, "Show in Tasks")));
  if (t.taskId) trackTask(t, tool.name);
}

// tasks are the tasks this page knows of, by id: those it created and
// those tasks/list showed (session era).
const tasks = new Map();
const terminal = (st) => st === "completed" || st === "failed" || st === "cancelled";

// trackTask adds or updates a task and polls it until it ends.
function trackTask(t, tool) {
  let e = tasks.get(t.taskId);
  if (!e) {
    e = { task: t, tool: tool || "", polling: false };
    tasks.set(t.taskId, e);
  }
  Object.assign(e.task, t);
  if (tool) e.tool = tool;
  renderTask(e);
  if (!terminal(e.task.status) && !e.polling) pollTask(e);
}

async function pollTask(e) {
  e.polling = true;
  while (!terminal(e.task.status) && state.status === "connected" && tasks.get(e.task.taskId) === e) {
    const wait = Math.min(Math.max(e.task.pollInterval || e.task.pollIntervalMs || 1000, 250), 5000);
    await new Promise((r) => setTimeout(r, wait));
    if (terminal(e.task.status)) break;
    await getTask(e);
  }
  e.polling = false;
}

async function getTask(e) {
  const r = await request("tasks/get", { taskId: e.task.taskId }, "tasks/get " + e.task.taskId, true);
  if (r.error) { e.note = errorText(r.error); renderTask(e); return; }
  Object.assign(e.task, r.result);
  e.note = "";
  renderTask(e);
}

// taskResult shows a task's result: tasks/result in the session era; in
// the stateless era, which has no tasks/result, the result or error that
// tasks/get carries inline.
async function taskResult(e) {
  const tool = lists.tools.find((t) => t.name === e.tool);
  if (state.stateless) {
    const r = await request("tasks/get", { taskId: e.task.taskId }, "tasks/get " + e.task.taskId, true);
    if (!r.error) {
      Object.assign(e.task, r.result);
      renderTask(e);
      if (r.result.error) r.error = r.result.error;
      else if (r.result.result) r.result = r.result.result;
      else r.error = { message: "the task is " + r.result.status + ": no result yet" };
    }
    renderOutcome(e.out, r, (res) => renderToolResult(e.out, res, tool));
    return;
  }
  const r = await request("tasks/result", { taskId: e.task.taskId }, "tasks/result " + e.task.taskId, true);
  renderOutcome(e.out, r, (res) => renderToolResult(e.out, res, tool));
}

async function cancelTask(e) {
  const r = await request("tasks/cancel", { taskId: e.task.taskId }, "tasks/cancel " + e.task.taskId, true);
  if (r.error) { e.note = errorText(r.error); renderTask(e); return; }
  Object.assign(e.task, r.result);
  e.note = "";
  renderTask(e);
}

async function loadTasks() {
  if (state.stateless) { $("tasks-status").textContent = "tasks/list is not part of the stateless era: the tasks this page created are shown"; return; }
  try {
    const list = await fetchAll("tasks/list", "tasks");
    for (const t of list) trackTask(t);
    $("tasks-status").textContent = `${list.length} task(s) listed by the server`;
  } catch (err) { $("tasks-status").textContent = "tasks/list: " + err.message; }
}

function renderTask(e) {
  const t = e.task;
  if (!e.li) {
    e.out = el("div", { class: "result", "aria-live": "polite" });
    e.statusNode = el("span", { class: "badge" });
    e.msgNode = el("span", { class: "muted" });
    e.noteNode = el("p", { class: "error" });
    const id = t.taskId;
    e.poll = el("button", { type: "button", class: "small", "aria-label": "Poll task " + id, onclick: () => getTask(e) }, "Poll");
    e.result = el("button", { type: "button", class: "small", "aria-label": "Result of task " + id, onclick: () => taskResult(e) }, "Result");
    e.cancel = el("button", { type: "button", class: "small", "aria-label": "Cancel task " + id, onclick: () => cancelTask(e) }, "Cancel");
    e.toolNode = el("span", {});
    e.inputs = new Map();
    e.inputsNode = el("div", { class: "task-inputs" });
    e.li = el("li", { class: "task", dataset: { taskId: id } },
      el("div", { class: "row" }, el("span", { class: "mono" }, id), e.toolNode, e.statusNode, e.msgNode),
      el("div", { class: "row" }, e.poll, e.result, e.cancel), e.noteNode, e.inputsNode, e.out);
    $("tasks-list").prepend(e.li);
  }
  e.li.dataset.status = t.status || "";
  e.toolNode.textContent = e.tool;
  e.statusNode.textContent = t.status || "?";
  e.msgNode.textContent = (t.statusMessage || "") + (t.createdAt ? " · created " + new Date(t.createdAt).toLocaleTimeString() : "");
  e.noteNode.textContent = e.note || "";
  e.cancel.disabled = terminal(t.status);
  renderTaskInputs(e);
  $("task-count").textContent = String(tasks.size);
}

const inputKinds = { "elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots" };

// renderTaskInputs shows the input requests of an input_required task
// (the stateless era's tasks extension: inputRequests in tasks/get), one
// card a key, each answered with tasks/update. A card stays while the
// server still waits for its key, so that polling keeps what the user
// typed.
function renderTaskInputs(e) {
  const t = e.task;
  const reqs = (t.status === "input_required" && t.inputRequests && typeof t.inputRequests === "object") ? t.inputRequests : {};
  for (const [k, card] of e.inputs) if (!Object.hasOwn(reqs, k)) { card.remove(); e.inputs.delete(k); }
  for (const [k, q] of Object.entries(reqs)) {
    if (e.inputs.has(k)) continue;
    const kind = inputKinds[q && q.method];
    const p = (q && q.params) || {};
    const card = el("div", { class: "ask task-input", dataset: { key: k, kind: kind || "unknown", mode: p.mode || "form" } });
    const respond = async (body) => {
      for (const b of card.querySelectorAll("button")) b.disabled = true;
      for (const x of card.querySelectorAll("p.error")) x.remove();
      const r = await request("tasks/update", { taskId: t.taskId, inputResponses: { [k]: body.result } }, "tasks/update " + t.taskId + " " + k, true);
      if (r.error) {
        for (const b of card.querySelectorAll("button")) b.disabled = false;
        add(card, el("p", { class: "error", role: "alert" }, "tasks/update: " + errorText(r.error)));
        return;
      }
      card.dataset.answered = "true";
      getTask(e);
    };
    add(card, el("p", { class: "muted" }, "Input request ", el("span", { class: "mono" }, k), " of the task"));
    if (kind) fillAsk(card, kind, p, respond, true);
    else add(card, el("p", { class: "error" }, "The inspector cannot answer " + JSON.stringify(q && q.method) + "."), tree(q, k, true));
    e.inputs.set(k, card);
    add(e.inputsNode, card);
  }
}

function clearTasks() {
  tasks.clear();
  fill($("tasks-list"));
  $("task-count").textContent = "0";
  $("tasks-status").textContent = "";
}

async function loadResources() {
  try {
    lists.resources = await fetchAll("resources/list", "resources");
    lists.templates = await fetchAll("resources/templates/list", "resourceTemplates");
  } catch (err) { fill($("resource-detail"), el("p", { class: "error" }, err.message)); }
  showResources();
}
function showResources() {
  renderList("resources-list", lists.resources, "resources-search", "uri", (r) => r.uri, (r) => showResource(r));
  renderList("templates-list", lists.templates, "resources-search", "uriTemplate", (r) => r.uriTemplate, (t) => showTemplate(t));
}

function showResource(r) {
  const out = el("div", { class: "result", "aria-live": "polite", id: "resource-result" });
  fill($("resource-detail"), el("h2", {}, r.title || r.name), el("p", { class: "mono" }, r.uri),
    r.description ? el("p", {}, r.description) : null, r.mimeType ? el("p", { class: "muted" }, r.mimeType) : null,
    el("div", { class: "buttons" }, el("button", { type: "button", class: "primary", id: "resource-read", onclick: () => readResource(r.uri, out) }, "Read")),
    out);
}

function showTemplate(t) {
  const vars = [...new Set([...(t.uriTemplate.matchAll(/\{[+#./;?&]?([^}]+)\}/g))].flatMap((m) => m[1].split(",").map((v) => v.replace(/\*$|:\d+$/, ""))))];
  const props = {};
  for (const v of vars) props[v] = { type: "string" };
  const form = objectField({ type: "object", properties: props, required: vars }, undefined, true);
  completeFields(form, { type: "ref/resource", uri: t.uriTemplate }, vars);
  const out = el("div", { class: "result", "aria-live": "polite", id: "resource-result" });
  const f = el("form", { novalidate: true }, form.node, el("div", { class: "buttons" }, el("button", { type: "submit", class: "primary" }, "Read")));
  f.addEventListener("submit", (ev) => { ev.preventDefault(); readResource(expandTemplate(t.uriTemplate, form.get()), out); });
  fill($("resource-detail"), el("h2", {}, t.title || t.name), el("p", { class: "mono" }, t.uriTemplate),
    t.description ? el("p", {}, t.description) : null, f, out);
}

// expandTemplate expands the simple and reserved forms of RFC 6570.
function expandTemplate(tpl, vals) {
  return tpl.replace(/\{([+#]?)([^}]+)\}/g, (_, op, names) => names.split(",").map((n) => {
    const v = vals[n.replace(/\*$|:\d+$/, "")] ?? "";
    return op ? encodeURI(v) : encodeURIComponent(v);
  }).join(","));
}

async function readResource(uri, out) {
  if (!out) {
    showResource({ uri, name: uri });
    out = $("resource-result");
  }
  fill(out, el("p", { class: "muted" }, "reading " + uri + "…"));
  const r = await request("resources/read", { uri }, "resources/read " + uri);
  renderOutcome(out, r, (res) => { for (const c of res.contents || []) add(out, renderResourceContents(c)); });
}

async function loadPrompts() {
  try { lists.prompts = await fetchAll("prompts/list", "prompts"); }
  catch (err) { fill($("prompt-detail"), el("p", { class: "error" }, err.message)); }
  showPrompts();
}
function showPrompts() { renderList("prompts-list", lists.prompts, "prompts-search", "name", (p) => p.description, showPrompt); }

function showPrompt(p) {
  const props = {}, req = [];
  for (const a of p.arguments || []) { props[a.name] = { type: "string", description: a.description }; if (a.required) req.push(a.name); }
  const form = objectField({ type: "object", properties: props, required: req }, undefined, true);
  completeFields(form, { type: "ref/prompt", name: p.name }, Object.keys(props));
  const out = el("div", { class: "result", "aria-live": "polite", id: "prompt-result" });
  const f = el("form", { novalidate: true }, form.node, el("div", { class: "buttons" }, el("button", { type: "submit", class: "primary", id: "prompt-get" }, "Get " + p.name)));
  f.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const params = { name: p.name };
    const args = form.get();
    if (Object.keys(args).length) params.arguments = args;
    const r = await request("prompts/get", params, "prompts/get " + p.name);
    renderOutcome(out, r, (res) => {
      if (res.description) add(out, el("p", {}, res.description));
      for (const m of res.messages || []) add(out, el("div", { class: "message" }, el("span", { class: "badge" }, m.role), renderContent(m.content || {})));
    });
  });
  fill($("prompt-detail"), el("h2", {}, p.title || p.name), p.description ? el("p", {}, p.description) : null, f, out);
}

// ---------------------------------------------------------------- log pane

const logLevels = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

function logLine(t, what, text, level) {
  const list = $("log-list");
  add(list, el("li", { class: level ? "lvl-" + level : "", dataset: { what } },
    el("span", { class: "muted" }, clock(t)), el("span", { class: "mono" }, what), el("span", {}, text)));
  while (list.children.length > 2000) list.firstChild.remove();
}

function onNotification(n, t) {
  const p = n.params || {};
  switch (n.method) {
    case "notifications/progress": onProgress(p); return;
    case "notifications/message":
      logLine(t, (p.level || "log") + (p.logger ? " " + p.logger : ""), typeof p.data === "string" ? p.data : JSON.stringify(p.data), logLevels.includes(p.level) ? p.level : "");
      return;
    case "notifications/tasks/status":
      if (p.taskId && tasks.has(p.taskId)) trackTask(p);
      logLine(t, n.method, p.taskId + " " + p.status + (p.statusMessage ? " " + p.statusMessage : ""));
      return;
    case "notifications/tools/list_changed": logLine(t, n.method, "refreshing the tools"); loadTools(); return;
    case "notifications/resources/list_changed": logLine(t, n.method, "refreshing the resources"); loadResources(); return;
    case "notifications/prompts/list_changed": logLine(t, n.method, "refreshing the prompts"); loadPrompts(); return;
  }
  logLine(t, n.method, JSON.stringify(p));
}

// ---------------------------------------------------------------- message log

let msgSeq = 0;
const sentAt = new Map(); // request id (as JSON) → time sent, for "took"
const recvAt = new Map(); // server's request id → time received

function clock(t) {
  const d = new Date(t);
  return d.toTimeString().slice(0, 8) + "." + String(d.getMilliseconds()).padStart(3, "0");
}

function describe(m) {
  if (m.method) return m.method + (m.id === undefined ? " (notification)" : "");
  if (m.error) return "error " + m.error.code + " " + m.error.message;
  if (m.result !== undefined) return "result";
  return "?";
}

function onMessage(ev) {
  const frames = ev.frame === undefined ? [{ text: ev.text }] : (Array.isArray(ev.frame) ? ev.frame : [ev.frame]);
  for (const m of frames) {
    addMessageRow(ev, m);
    if (ev.dir === "recv" && m.method && m.id === undefined) onNotification(m, ev.t);
  }
}

function addMessageRow(ev, m) {
  const n = ++msgSeq;
  $("message-count").textContent = String(n);
  const idKey = m.id !== undefined ? JSON.stringify(m.id) : "";
  let took = "";
  if (m.method && idKey) (ev.dir === "send" ? sentAt : recvAt).set(idKey, ev.t);
  if (!m.method && idKey) {
    const from = ev.dir === "recv" ? sentAt : recvAt;
    if (from.has(idKey)) { took = (ev.t - from.get(idKey)).toFixed(1) + " ms"; from.delete(idKey); }
  }
  const text = m.text !== undefined ? m.text : JSON.stringify(m);
  const desc = m.text !== undefined ? "(not JSON)" : describe(m);
  const body = $("messages-body");
  const detail = el("tr", { class: "detail", hidden: true }, el("td", { colspan: 7 }, m.text !== undefined ? el("pre", {}, m.text) : tree(m, undefined, true),
    ev.dir === "send" && m.method ? copyButton(m.method, m.params || {}) : null));
  const btn = el("button", { type: "button", class: "msg", "aria-expanded": "false", "aria-label": `Message ${n}: ${ev.dir === "send" ? "sent" : "received"} ${desc}` }, desc);
  btn.addEventListener("click", () => {
    detail.hidden = !detail.hidden;
    btn.setAttribute("aria-expanded", String(!detail.hidden));
  });
  const row = el("tr", { dataset: { dir: ev.dir, method: m.method || "", search: text.toLowerCase().slice(0, 4096) } },
    el("td", {}, n), el("td", { class: "way-" + ev.dir }, ev.dir === "send" ? "→ sent" : "← recv"),
    el("td", { class: "mono" }, clock(ev.t)), el("td", {}, btn), el("td", { class: "mono" }, idKey), el("td", { class: "took" }, took),
    el("td", {}, text.length));
  filterRow(row, detail);
  add(body, row, detail);
  while (body.children.length > 4000) { body.firstChild.remove(); }
}

function filterRow(row, detail) {
  const q = $("messages-search").value.trim().toLowerCase();
  row.hidden = !!q && !row.dataset.search.includes(q);
  if (row.hidden && detail) detail.hidden = true;
}

// ---------------------------------------------------------------- the server's requests: elicitation, sampling

const asks = new Map(); // ask id → card

function updateAsks() {
  $("asks-count").textContent = String(asks.size);
  $("asks").hidden = asks.size === 0;
}

function answer(id, body, card) {
  for (const b of card.querySelectorAll("button")) b.disabled = true;
  api("answer", Object.assign({ id }, body)).catch((err) => {
    add(card, el("p", { class: "error", role: "alert" }, err.message));
  });
}

function showAsk(a) {
  if (asks.has(a.id)) return;
  const p = a.params || {};
  const card = el("div", { class: "ask", dataset: { id: a.id, kind: a.kind, mode: p.mode || "form" } });
  fillAsk(card, a.kind, p, (body) => answer(a.id, body, card), false);
  asks.set(a.id, card);
  add($("asks-list"), card);
  updateAsks();
}

// fillAsk fills card with the form of a request of the server (kind
// elicitation, sampling or roots, with its params p); respond(body) sends
// the answer, {result} or {reject: true}. A task's input request (forTask)
// has no Reject: it is answered or the task cancelled.
function fillAsk(card, kind, p, respond, forTask) {
  if (kind === "elicitation" && p.mode === "url") {
    add(card, el("h3", {}, "Open a URL"), el("p", {}, p.message),
      el("p", { class: "url mono" }, p.url),
      el("p", { class: "hint" }, "Check the address before you open it; the inspector never opens it by itself."),
      el("div", { class: "buttons" },
        el("a", { href: /^https?:\/\//.test(p.url) ? p.url : undefined, target: "_blank", rel: "noopener noreferrer" }, "Open in a new tab"),
        el("button", { type: "button", class: "primary", onclick: () => respond({ result: { action: "accept" } }) }, "Accept"),
        el("button", { type: "button", onclick: () => respond({ result: { action: "decline" } }) }, "Decline"),
        el("button", { type: "button", onclick: () => respond({ result: { action: "cancel" } }) }, "Cancel")));
  } else if (kind === "elicitation") {
    const form = objectField(p.requestedSchema || { type: "object", properties: {} }, undefined, true);
    const err = el("p", { class: "error", role: "alert" });
    const f = el("form", { novalidate: true }, form.node,
      el("div", { class: "buttons" },
        el("button", { type: "submit", class: "primary" }, "Accept"),
        el("button", { type: "button", onclick: () => respond({ result: { action: "decline" } }) }, "Decline"),
        el("button", { type: "button", onclick: () => respond({ result: { action: "cancel" } }) }, "Cancel")), err);
    f.addEventListener("submit", (ev) => {
      ev.preventDefault();
      let content;
      try { content = form.get(); } catch (e) { err.textContent = e.message; return; }
      respond({ result: { action: "accept", content } });
    });
    add(card, el("h3", {}, "Elicitation"), el("p", {}, p.message), f);
  } else if (kind === "sampling") {
    const msgs = el("div", { class: "messages-list" });
    for (const m of p.messages || []) {
      const contents = Array.isArray(m.content) ? m.content : [m.content || {}];
      add(msgs, el("div", { class: "message" }, el("span", { class: "badge" }, m.role), contents.map(renderContent)));
    }
    const respId = "f" + (++fieldSeq), modelId = "f" + (++fieldSeq);
    const resp = el("textarea", { id: respId, rows: 3, class: "sampling-response" });
    const model = el("input", { id: modelId, type: "text", value: "mcpkit-inspect-user" });
    add(card, el("h3", {}, "Sampling"),
      p.systemPrompt ? el("p", {}, el("span", { class: "badge" }, "system"), p.systemPrompt) : null,
      msgs, el("p", { class: "muted" }, `maxTokens ${p.maxTokens}`),
      el("label", { for: respId }, "Response (the assistant's message)"), resp,
      el("label", { for: modelId }, "Model"), model,
      el("div", { class: "buttons" },
        el("button", { type: "button", class: "primary", onclick: () => respond({ result: {
          role: "assistant", content: { type: "text", text: resp.value }, model: model.value || "mcpkit-inspect-user", stopReason: "endTurn" } }) }, "Approve"),
        forTask ? null : el("button", { type: "button", onclick: () => respond({ reject: true }) }, "Reject")));
  } else if (kind === "roots") {
    add(card, el("h3", {}, "Roots"), el("p", {}, "The server asks for the roots: those of the side bar."),
      el("div", { class: "buttons" },
        el("button", { type: "button", class: "primary", onclick: () => respond({ result: { roots: rootsFromForm() } }) }, "Send the roots")));
  }
}

// showLogin shows the authorization URL of a login that waits for the
// browser: the user opens it in a new tab; the authorization server
// sends that tab back to the inspector.
function showLogin(u) {
  loginDone();
  if (!u) return;
  let host = "";
  try { host = new URL(u).host; } catch (_) { /* shown as is */ }
  const card = el("div", { class: "ask", id: "login-card", dataset: { kind: "login" } },
    el("h3", {}, "Log in to the server"),
    el("p", {}, "The server needs an OAuth token. Log in at " + (host || "the authorization server") +
      " in a new tab; it comes back to this inspector, which connects."),
    el("p", { class: "url mono" }, u),
    el("div", { class: "buttons" },
      el("a", { href: /^https?:\/\//.test(u) ? u : undefined, target: "_blank", rel: "noopener noreferrer", id: "login-link" }, "Log in (opens a new tab)"),
      el("button", { type: "button", onclick: () => { api("login-cancel").catch(() => {}); } }, "Cancel the login")));
  asks.set("login", card);
  $("asks-list").prepend(card);
  updateAsks();
}

function loginDone() { askDone("login"); }

function askDone(id) {
  const card = asks.get(id);
  if (card) card.remove();
  asks.delete(id);
  updateAsks();
}

function showRoots(roots) {
  $("roots").value = (roots || []).map((r) => r.uri + (r.name ? " " + r.name : "")).join("\n");
}

function rootsFromForm() {
  return $("roots").value.split("\n").map((l) => l.trim()).filter(Boolean).map((l) => {
    const i = l.search(/\s/);
    return i < 0 ? { uri: l } : { uri: l.slice(0, i), name: l.slice(i + 1).trim() };
  });
}

async function saveRoots() {
  const roots = rootsFromForm();
  try {
    const r = await api("roots", { roots });
    $("roots-status").textContent = `${r.roots.length} root(s) shared` + (r.live ? ", the server was told" : ", from the next connection");
  } catch (err) { $("roots-status").textContent = err.message; }
}

// ---------------------------------------------------------------- tabs

function selectTab(name) {
  for (const tab of document.querySelectorAll('[role="tab"]')) {
    const on = tab.id === "tab-" + name;
    tab.setAttribute("aria-selected", String(on));
    tab.tabIndex = on ? 0 : -1;
    $(tab.getAttribute("aria-controls")).hidden = !on;
  }
}

function initTabs() {
  const all = [...document.querySelectorAll('[role="tab"]')];
  for (const tab of all) {
    tab.addEventListener("click", () => selectTab(tab.id.slice(4)));
    tab.addEventListener("keydown", (e) => {
      const tabs = all.filter((t) => !t.hidden); // Skills shows only for a server that declares it
      const i = tabs.indexOf(tab);
      let j = -1;
      if (e.key === "ArrowRight") j = (i + 1) % tabs.length;
      if (e.key === "ArrowLeft") j = (i + tabs.length - 1) % tabs.length;
      if (j >= 0) { e.preventDefault(); tabs[j].focus(); selectTab(tabs[j].id.slice(4)); }
    });
  }
  selectTab("tools");
}

// ---------------------------------------------------------------- start

function start() {
  initTabs();
  $("transport").addEventListener("change", () => setTransport($("transport").value));
  $("connect-form").addEventListener("submit", connect);
  $("reconnect").addEventListener("click", async () => {
    try { showState(await api("reconnect")); } catch (err) { $("connect-error").textContent = err.message; }
  });
  $("disconnect").addEventListener("click", async () => {
    try { showState(await api("disconnect")); } catch (err) { $("connect-error").textContent = err.message; }
  });
  $("roots-save").addEventListener("click", saveRoots);
  $("tools-search").addEventListener("input", showTools);
  $("resources-search").addEventListener("input", showResources);
  $("prompts-search").addEventListener("input", showPrompts);
  $("tools-refresh").addEventListener("click", loadTools);
  $("resources-refresh").addEventListener("click", loadResources);
  $("prompts-refresh").addEventListener("click", loadPrompts);
  $("tasks-refresh").addEventListener("click", loadTasks);
  $("skills-refresh").addEventListener("click", () => loadSkills(false));
  $("skills-more").addEventListener("click", () => loadSkills(true));
  $("skills-search").addEventListener("input", showSkills);
  $("log-clear").addEventListener("click", () => fill($("log-list")));
  $("log-set-level").addEventListener("click", async () => {
    const level = $("log-level").value;
    try { await api("set-level", { level }); $("log-level-status").textContent = "level set to " + level; }
    catch (err) { $("log-level-status").textContent = err.message; }
  });
  $("messages-search").addEventListener("input", () => {
    const rows = $("messages-body").children;
    for (let i = 0; i + 1 < rows.length; i += 2) filterRow(rows[i], rows[i + 1]);
  });
  $("messages-clear").addEventListener("click", () => { fill($("messages-body")); msgSeq = 0; $("message-count").textContent = "0"; });

  const es = new EventSource("/api/events?token=" + encodeURIComponent(token));
  let first = true;
  es.addEventListener("reset", (e) => {
    // A new stream: the backlog follows, so what was shown goes.
    fill($("messages-body")); msgSeq = 0; sentAt.clear(); recvAt.clear();
    fill($("log-list"));
    const s = JSON.parse(e.data);
    if (first) { state = {}; fillForm(s.target); showRoots(s.roots); first = false; }
    for (const id of [...asks.keys()]) askDone(id);
    for (const a of s.asks || []) showAsk(a);
    showLogin(s.login);
    showState(s);
    $("live").textContent = "";
  });
  es.addEventListener("state", (e) => showState(JSON.parse(e.data)));
  es.addEventListener("ask", (e) => showAsk(JSON.parse(e.data)));
  es.addEventListener("ask-done", (e) => askDone(JSON.parse(e.data).id));
  es.addEventListener("login", (e) => showLogin(JSON.parse(e.data).url));
  es.addEventListener("login-done", () => loginDone());
  es.addEventListener("message", (e) => onMessage(JSON.parse(e.data)));
  es.addEventListener("stderr", (e) => { const s = JSON.parse(e.data); logLine(s.t, "stderr", s.text.replace(/\n$/, ""), ""); });
  es.addEventListener("response", (e) => {
    const r = JSON.parse(e.data);
    finish(r.id, r);
  });
  es.onerror = () => { $("live").textContent = "event stream lost; retrying"; };
  document.body.dataset.ready = "true";
}

start();

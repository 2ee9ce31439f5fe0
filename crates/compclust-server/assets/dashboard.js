// The researcher's dashboard: progress, the current result drawn, participants, downloads.
// The admin token is asked once and kept in sessionStorage (this tab only); every request
// sends it as `Authorization: Bearer TOKEN`. The page polls every few seconds.
"use strict";

const study = studyId();
const api = `/api/studies/${encodeURIComponent(study)}`;
const TOKEN_KEY = `compclust-admin:${study}`;
const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
let timer = null;
let downloadsDrawn = false;

function token() { return sessionStorage.getItem(TOKEN_KEY); }

class Unauthorized extends Error {}

async function getJSON(path) {
  const r = await fetch(api + path, { headers: { authorization: `Bearer ${token()}` }, cache: "no-store" });
  if (r.status === 401) throw new Unauthorized("the admin token was not accepted");
  if (!r.ok) throw new Error(`${path || "/"}: HTTP ${r.status}`);
  return r.json();
}

function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

/** A bar chart: one bar per count, `labels` under the first, middle and last bars. */
function bars(counts, labelOf, title) {
  const w = 360, h = 140, pad = 24;
  const max = Math.max(1, ...counts);
  const bw = (w - 2 * pad) / Math.max(1, counts.length);
  const g = svg("svg", { viewBox: `0 0 ${w} ${h + 30}`, width: "100%", role: "img", "aria-label": title });
  counts.forEach((c, i) => {
    const bh = (c / max) * h;
    const r = svg("rect", { class: "bar", x: pad + i * bw + 1, y: h - bh + 4, width: Math.max(1, bw - 2), height: bh });
    r.append(svg("title", {}, `${labelOf(i)}: ${c}`));
    g.append(r);
  });
  g.append(svg("line", { x1: pad, x2: w - pad, y1: h + 4, y2: h + 4, stroke: "#4a4a4a" }));
  const marks = counts.length > 1 ? [0, Math.floor(counts.length / 2), counts.length - 1] : [0];
  for (const i of marks) {
    g.append(svg("text", { x: pad + i * bw + bw / 2, y: h + 22, "text-anchor": "middle", "font-size": 11 }, labelOf(i)));
  }
  g.append(svg("text", { x: 2, y: 12, "font-size": 11 }, String(max)));
  return g;
}

// The study's state in words, from `done` and `result` of the status.
function stateOf(st) {
  if (!st.done) return st.error ? "stopped (error)" : "running";
  if (st.result === "computing") return "finished, computing the result";
  if (st.result === "failed") return "finished, the fit failed";
  return "finished";
}

function drawNumbers(st) {
  const rows = [
    ["Answers", st.answers], ["Participants", st.participants], ["Rounds", st.rounds],
    ["Open questions", `${st.open_questions} of ${st.round_questions}`],
    ["State", stateOf(st)],
  ];
  $("numbers").replaceChildren(...rows.map(([k, v]) => el("div", {}, el("dt", { text: k }), el("dd", { text: String(v) }))));
  if (st.error) setStatus(st.error);
}

function drawCharts(d) {
  const t = d.timeline;
  const clock = (ms) => new Date(ms).toLocaleTimeString();
  $("timeline").replaceChildren(t.counts.length
    ? bars(t.counts, (i) => clock(t.start_ms + i * t.bin_ms), `Answers per ${t.bin_ms / 1000} s`)
    : el("p", { text: "No answers yet." }));
  const e = d.response_ms.edges;
  const label = (i) => (i + 1 < e.length ? `${e[i] / 1000}–${e[i + 1] / 1000} s` : `≥ ${e[i] / 1000} s`);
  $("times").replaceChildren(bars(d.response_ms.counts, label, "Response times"));
}

function drawPeople(people) {
  const sorted = [...people].sort((a, b) => (a.agreement ?? 2) - (b.agreement ?? 2));
  const head = el("tr", {}, ...["Participant", "Answers", "Median time", "Agreement", "Compared"].map((h) => el("th", { scope: "col", text: h })));
  const rows = sorted.slice(0, 500).map((p) => {
    const low = p.agreement !== null && p.compared >= 5 && p.agreement < 0.6;
    return el("tr", { class: low ? "low" : null },
      el("td", { text: p.participant }),
      el("td", { class: "num", text: String(p.answers) }),
      el("td", { class: "num", text: p.median_ms === null ? "–" : `${(p.median_ms / 1000).toFixed(1)} s` }),
      el("td", { class: "num", text: p.agreement === null ? "–" : `${Math.round(p.agreement * 100)} %` }),
      el("td", { class: "num", text: String(p.compared) }));
  });
  $("people").replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
}

function itemMap(d) {
  return new Map(d.items.map((it, i) => [it.name, { ...it, index: i }]));
}

function drawFlat(result, d) {
  const items = itemMap(d);
  const groups = new Map();
  for (const [name, c] of Object.entries(result.labels || {})) {
    if (!groups.has(c)) groups.set(c, []);
    groups.get(c).push(name);
  }
  const cards = [...groups.keys()].sort((a, b) => a - b).map((c) =>
    el("div", { class: "cluster" }, el("h3", { text: `Cluster ${c} (${groups.get(c).length})` }),
      el("div", { class: "grid" }, ...groups.get(c).map((n) => renderItem((items.get(n) || {}).display, n)))));
  const parts = [el("div", { class: "clusters" }, ...cards)];
  if (Array.isArray(d.similarity)) {
    const order = [...groups.keys()].sort((a, b) => a - b).flatMap((c) => groups.get(c)).map((n) => items.get(n).index);
    parts.push(el("h3", { text: "AddS-3 similarity, items ordered by cluster" }), heatmap(d.similarity, order));
  }
  return parts;
}

/** The similarity matrix as a canvas: blue positive, red negative, white zero. */
function heatmap(m, order) {
  const n = order.length;
  const c = el("canvas", { class: "heatmap", width: n, height: n, role: "img",
    "aria-label": `Similarity of ${n} items, ordered by cluster` });
  c.style.width = `${Math.min(480, Math.max(120, n * 8))}px`;
  const ctx = c.getContext("2d");
  const img = ctx.createImageData(n, n);
  let max = 0;
  for (const row of m) for (const v of row) max = Math.max(max, Math.abs(v));
  max = max || 1;
  order.forEach((i, y) => order.forEach((j, x) => {
    const v = m[i][j] / max;
    const k = 4 * (y * n + x);
    const fade = Math.round(255 * (1 - Math.abs(v)));
    img.data[k] = v < 0 ? 255 : fade;
    img.data[k + 1] = fade;
    img.data[k + 2] = v > 0 ? 255 : fade;
    img.data[k + 3] = 255;
  }));
  ctx.putImageData(img, 0, 0);
  return c;
}

/** A dendrogram (merge steps `[a, b, height, size]`, scipy's convention) drawn left to right. */
function dendrogram(den) {
  const n = den.items.length, steps = den.steps;
  const kids = (id) => (id < n ? null : steps[id - n]);
  const order = [];
  const stack = [n + steps.length - 1];
  while (stack.length) {
    const id = stack.pop();
    const s = kids(id);
    if (s) stack.push(s[1], s[0]); else order.push(id);
  }
  const row = 18, labelW = 140, treeW = 420;
  const y = new Map(order.map((id, i) => [id, i * row + row / 2]));
  // Merge heights where they grow along the tree, else the order of the merges.
  const level = new Map(order.map((id) => [id, 0]));
  const byHeight = steps.every((s) => s[2] > 0 && [s[0], s[1]].every((c) => c < n || steps[c - n][2] <= s[2]));
  steps.forEach((s, i) => level.set(n + i, byHeight ? s[2] : i + 1));
  const top = Math.max(1e-9, ...steps.map((_, i) => level.get(n + i)));
  const x = (id) => labelW + (level.get(id) / top) * treeW;
  const g = svg("svg", { viewBox: `0 0 ${labelW + treeW + 10} ${n * row + 4}`, width: "100%", role: "img",
    "aria-label": `Dendrogram of ${n} items (${byHeight ? "merge heights" : "merge order"})` });
  order.forEach((id) => g.append(svg("text", { x: labelW - 6, y: y.get(id) + 4, "text-anchor": "end", "font-size": 12 }, den.items[id])));
  steps.forEach((s, i) => {
    const id = n + i;
    y.set(id, (y.get(s[0]) + y.get(s[1])) / 2);
    const [xa, xb, xm] = [x(s[0]), x(s[1]), x(id)];
    g.append(svg("path", { d: `M${xa},${y.get(s[0])} H${xm} V${y.get(s[1])} H${xb}`, fill: "none", stroke: "#0b4f9c", "stroke-width": 1.5 }));
  });
  return g;
}

function drawOverlap(result) {
  const m = result.membership || {};
  const clusters = [...new Set(Object.values(m).flat())].sort((a, b) => a - b);
  if (!Object.keys(m).length) return [el("p", { text: "No estimate before the algorithm's sample is answered." })];
  const head = el("tr", {}, el("th", { scope: "col", text: "Item" }), ...clusters.map((c) => el("th", { scope: "col", text: `Cluster ${c}` })));
  const rows = Object.entries(m).map(([name, cs]) => el("tr", {}, el("th", { scope: "row", text: name }),
    ...clusters.map((c) => el("td", { text: cs.includes(c) ? "✓" : "" }))));
  return [el("div", { class: "scroll" }, el("table", { id: "membership" }, el("thead", {}, head), el("tbody", {}, ...rows)))];
}

function drawResult(result, d) {
  const note = result.error ? `No estimate yet: ${result.error}` : result.partial
    ? "The current estimate (the study is still running)." : "The final result.";
  $("result-note").textContent = note;
  let parts = [];
  if (result.kind === "flat" && result.labels) parts = drawFlat(result, d);
  else if (result.kind === "hierarchy" && result.dendrogram) parts = [dendrogram(result.dendrogram)];
  else if (result.kind === "overlap") parts = drawOverlap(result);
  $("result").replaceChildren(...parts);
  $("result").dataset.kind = result.kind;
  $("result").dataset.partial = String(!!result.partial);
}

async function download(path, file, transform) {
  try {
    const r = await fetch(api + path, { headers: { authorization: `Bearer ${token()}` } });
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    const text = transform ? transform(await r.json()) : await r.text();
    const a = el("a", { href: URL.createObjectURL(new Blob([text])), download: file });
    document.body.append(a);
    a.click();
    a.remove();
  } catch (e) { setStatus(`Download failed: ${e.message}`); }
}

const csvField = (v) => (/[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));

function drawDownloads(d) {
  const button = (text, path, file, transform) => {
    const b = el("button", { type: "button", text });
    b.addEventListener("click", () => download(path, file, transform));
    return b;
  };
  const list = [button("Answers (compclust CSV)", "/answers.csv?format=compclust", `${study}-answers.csv`)];
  if (d.question !== "same-cluster") list.push(button("Answers (cblearn CSV)", "/answers.csv?format=cblearn", `${study}-cblearn.csv`));
  if (d.question === "triplet") list.push(button("Answers (salmon CSV)", "/answers.csv?format=salmon", `${study}-salmon.csv`));
  list.push(button("Answer log (CSV)", "/answers.csv?format=log", `${study}-log.csv`));
  list.push(button("Result (JSON)", "/result", `${study}-result.json`, (r) => JSON.stringify(r, null, 2)));
  if (d.family === "flat") {
    list.push(button("Clusters (item,cluster CSV)", "/result", `${study}-clusters.csv`,
      (r) => "item,cluster\n" + Object.entries(r.labels || {}).map(([i, c]) => `${csvField(i)},${c}`).join("\n") + "\n"));
  }
  if (d.family === "overlap") {
    list.push(button("Membership (item,cluster CSV)", "/result", `${study}-membership.csv`,
      (r) => "item,cluster\n" + Object.entries(r.membership || {}).flatMap(([i, cs]) => cs.map((c) => `${csvField(i)},${c}`)).join("\n") + "\n"));
  }
  $("downloads").replaceChildren(...list);
}

async function refresh() {
  try {
    const [st, result, d] = await Promise.all([getJSON("/status"), getJSON("/result"), getJSON("/dashboard")]);
    $("title").textContent = `${d.title || d.study}: dashboard`;
    document.title = $("title").textContent;
    setStatus(st.error || "");
    drawNumbers(st);
    drawCharts(d);
    drawResult(result, d);
    drawPeople(d.participants);
    if (!downloadsDrawn) { drawDownloads(d); downloadsDrawn = true; }
    $("board").dataset.answers = String(st.answers);
    $("board").dataset.done = String(st.done);
    show("board");
  } catch (e) {
    if (e instanceof Unauthorized) return logout(e.message);
    setStatus(`Cannot reach the server (${e.message}); trying again.`);
  }
}

function start() {
  refresh();
  clearInterval(timer);
  timer = setInterval(refresh, 5000);
}

function logout(message) {
  clearInterval(timer);
  sessionStorage.removeItem(TOKEN_KEY);
  setStatus(message || "");
  show("login");
  $("token").focus();
}

$("login-form").addEventListener("submit", (e) => {
  e.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $("token").value);
  $("token").value = "";
  start();
});
$("logout").addEventListener("click", () => logout(""));
if (token()) start(); else logout("");

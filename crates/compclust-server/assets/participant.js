// The participant's page: instructions, one question at a time, the debrief.
//
// Every answer is first kept in localStorage ("pending"), then sent; it is forgotten only
// once the server acknowledged it (or refused it: then the server asks again). A reload, a
// lost connection or a double click therefore neither loses an answer nor stores it twice
// (the server also acknowledges a resent answer without storing it again).
"use strict";

const study = studyId();
const params = new URLSearchParams(location.search);
let participant = ["participant", "PROLIFIC_PID", "workerId", "puid"]
  .map((k) => params.get(k))
  .find((v) => v);
// Amazon Mechanical Turk opens an ExternalQuestion page with `assignmentId`, `hitId` and
// `turkSubmitTo`, and adds `workerId` once the worker accepted the HIT; while the worker only
// previews it, `assignmentId` is ASSIGNMENT_ID_NOT_AVAILABLE. A preview shows the instructions
// and asks nothing (a question handed to a previewer would be held from the others), and the
// debrief of an accepted HIT submits the assignment back to MTurk with the completion code.
const assignment = params.get("assignmentId");
const preview = assignment === "ASSIGNMENT_ID_NOT_AVAILABLE";
const MTURK_ORIGINS = ["https://www.mturk.com", "https://workersandbox.mturk.com"];
let info = null;
let current = null; // the question shown: {question, answer, shownAt}
let busy = false;

const $ = (id) => document.getElementById(id);
const storeKey = () => `compclust:${study}:${participant}`;
function state() {
  try { return JSON.parse(localStorage.getItem(storeKey())) || {}; } catch (_) { return {}; }
}
function save(patch) {
  try { localStorage.setItem(storeKey(), JSON.stringify({ ...state(), ...patch })); } catch (_) {}
}

/** POST until the server answers: a lost connection, 5xx and 429 are retried. */
async function request(url, body) {
  for (let delay = 1000; ; delay = Math.min(delay * 2, 10000)) {
    let r = null;
    try { r = await postJSON(url, body); } catch (_) { r = null; }
    if (r && r.status === 200) { setStatus(""); return r.body || {}; }
    if (r && r.status >= 400 && r.status < 500 && r.status !== 429) {
      return { refused: true, error: (r.body && r.body.error) || `HTTP ${r.status}` };
    }
    setStatus("The connection was lost; trying again…");
    await sleep(delay);
  }
}

/** Send the answer kept in localStorage, if any. */
async function flushPending() {
  const p = state().pending;
  if (!p) return;
  await request("/api/answer", { study, participant, question: p.question, answer: p.answer, ms: p.ms });
  save({ pending: null });
}

/** Send what is pending, then show the next question, the wait or the debrief. */
async function advance() {
  for (;;) {
    await flushPending();
    const r = await request("/api/next", { study, participant });
    if (r.question) return render(r);
    if (r.done) return debrief(r);
    if (r.refused) { setStatus(r.error); return; }
    show("wait");
    await sleep(2000);
  }
}

function choose(value) {
  if (busy || !current) return;
  busy = true;
  for (const b of $("question").querySelectorAll("button, input")) b.disabled = true;
  const ms = Math.round(performance.now() - current.shownAt);
  save({ pending: { question: current.question, answer: value, ms } });
  current = null;
  advance();
}

function choiceButton(value, keys, ...content) {
  const b = el("button", { type: "button", class: "choice", "data-answer": String(value) }, ...content,
    el("span", { class: "key", text: keys }));
  b.addEventListener("click", () => choose(value));
  return b;
}

function render(q) {
  const d = q.display || q.items.map((name) => ({ text: name }));
  const item = (i) => renderItem(d[i], q.items[i]);
  const box = $("question");
  box.replaceChildren();
  box.dataset.kind = q.kind;
  box.dataset.question = q.question;
  let prompt;
  if (q.kind === "triplet") {
    prompt = "Which of the two is more similar to the one on top?";
    box.append(el("div", { class: "anchor" }, item(0)),
      el("div", { class: "choices" },
        choiceButton(0, "← or 1", item(1)), choiceButton(1, "→ or 2", item(2))));
  } else if (q.kind === "quadruplet") {
    prompt = "Which pair is more alike?";
    box.append(el("div", { class: "choices" },
      choiceButton(0, "← or 1", el("span", { class: "pair" }, item(0), item(1))),
      choiceButton(1, "→ or 2", el("span", { class: "pair" }, item(2), item(3)))));
  } else if (q.answer === "count") {
    prompt = "How many groups do these two have in common?";
    const input = el("input", { id: "count", type: "number", min: "0", max: "64", step: "1",
      inputmode: "numeric", required: true });
    const form = el("form", { class: "count-form" },
      el("label", { for: "count", text: "Number of groups both belong to" }), input,
      el("button", { type: "submit", class: "primary", text: "Answer" }));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const v = Number(input.value);
      if (input.value !== "" && Number.isInteger(v) && v >= 0 && v <= 64) choose(v);
    });
    box.append(el("div", { class: "pair" }, item(0), item(1)), form);
  } else {
    prompt = "Do these two belong to the same group?";
    const yes = el("button", { type: "button", class: "primary", "data-answer": "true" }, "Same group ",
      el("kbd", { text: "y" }));
    const no = el("button", { type: "button", "data-answer": "false" }, "Different group ",
      el("kbd", { text: "n" }));
    yes.addEventListener("click", () => choose(true));
    no.addEventListener("click", () => choose(false));
    box.append(el("div", { class: "pair" }, item(0), item(1)), el("div", { class: "answers" }, yes, no));
  }
  $("prompt").textContent = prompt;
  const done = (q.progress && q.progress.answered) || 0;
  const quota = q.progress && q.progress.quota;
  $("progress-text").textContent = quota ? `Question ${done + 1} of ${quota}` : `Question ${done + 1}`;
  $("progress").hidden = !quota;
  if (quota) { $("progress").max = quota; $("progress").value = done; }
  show("ask");
  current = { question: q.question, answer: q.answer, shownAt: performance.now() };
  busy = false;
  const count = $("count");
  (count || $("prompt")).focus();
}

function debrief(r) {
  current = null;
  $("debrief-text").textContent = r.debrief || "";
  $("code").textContent = r.code || "";
  $("code-line").hidden = !r.code;
  const submit = mturkSubmitUrl();
  if (submit && !preview && assignment) {
    const form = $("mturk-submit");
    form.action = submit;
    $("mturk-assignment").value = assignment;
    $("mturk-code").value = r.code || "";
    form.hidden = false;
  }
  show("debrief");
  $("debrief-title").focus();
}

/** MTurk's ExternalQuestion submit address, `turkSubmitTo` + /mturk/externalSubmit, when
 * `turkSubmitTo` is MTurk's or its sandbox's (the pages' Content-Security-Policy allows forms
 * to be sent there and nowhere else). */
function mturkSubmitUrl() {
  const to = params.get("turkSubmitTo");
  if (!to) return null;
  try {
    const u = new URL("/mturk/externalSubmit", to);
    return MTURK_ORIGINS.includes(u.origin) ? u.href : null;
  } catch (_) {
    return null;
  }
}

/** The instructions of a previewed HIT, with the start button replaced by the request to
 * accept it. */
function showPreview() {
  showTitle();
  showIntro();
  $("start").disabled = true;
  $("start").textContent = "Accept the HIT to start";
}

document.addEventListener("keydown", (e) => {
  if (!current || busy || e.altKey || e.ctrlKey || e.metaKey) return;
  if (e.target && e.target.tagName === "INPUT") return;
  const k = e.key;
  let value = null;
  if (current.answer === "0-1") {
    if (k === "ArrowLeft" || k === "1") value = 0;
    if (k === "ArrowRight" || k === "2") value = 1;
  } else if (current.answer === "yes-no") {
    if (k === "y" || k === "Y") value = true;
    if (k === "n" || k === "N") value = false;
  }
  if (value !== null) { e.preventDefault(); choose(value); }
});

const KEYS = {
  triplet: "← or 1 for the left one, → or 2 for the right one.",
  quadruplet: "← or 1 for the left pair, → or 2 for the right pair.",
  "same-cluster": "y for the same group, n for different groups.",
};

function showTitle() {
  $("title").textContent = info.title || "Study";
  document.title = info.title || "Study";
}

/** The study's instructions and the keys, above the start button. */
function showIntro() {
  $("instructions").textContent = info.instructions || "";
  $("keys-hint").textContent = KEYS[info.question] || "";
  show("intro");
}

async function begin() {
  showTitle();
  if (state().started) return advance();
  showIntro();
  $("start").focus();
}

async function main() {
  $("start").addEventListener("click", () => {
    $("start").disabled = true;
    save({ started: true });
    advance();
  });
  $("who-form").addEventListener("submit", (e) => {
    e.preventDefault();
    participant = $("who-id").value.trim();
    if (!participant) return;
    const u = new URL(location.href);
    u.searchParams.set("participant", participant);
    history.replaceState(null, "", u);
    begin();
  });
  for (let delay = 1000; !info; delay = Math.min(delay * 2, 10000)) {
    try {
      const r = await fetch(`/api/studies/${encodeURIComponent(study)}`, { cache: "no-store" });
      if (r.ok) info = await r.json();
      else { setStatus(`This study cannot be opened (HTTP ${r.status}).`); return; }
    } catch (_) {
      setStatus("The connection was lost; trying again…");
      await sleep(delay);
    }
  }
  setStatus("");
  if (preview) return showPreview();
  if (!participant) {
    $("title").textContent = info.title || "Study";
    show("who");
    $("who-id").focus();
    return;
  }
  begin();
}

main();

// Shared by the participant page and the dashboard of `compclust serve`.
"use strict";

/** The study id: the second segment of the page's path (/s/ID or /admin/ID). */
function studyId() {
  return decodeURIComponent(location.pathname.split("/")[2] || "");
}

/** A new element with attributes and children (strings become text). */
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) e.append(c);
  return e;
}

/** An item as the study shows it: its name, the study file's HTML, or its image. */
function renderItem(display, name) {
  const box = el("span", { class: "item", "data-item": name });
  if (display && display.image) {
    box.append(el("img", { src: display.image, alt: display.alt || name }));
  } else if (display && typeof display.html === "string") {
    // HTML from the study file only (the server never passes participants' text here).
    box.innerHTML = display.html;
  } else {
    box.textContent = display && display.text !== undefined ? display.text : name;
  }
  return box;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** POST JSON; resolves to {status, body}; rejects only when the server cannot be reached. */
async function postJSON(url, body) {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    cache: "no-store",
  });
  let data = null;
  try { data = await r.json(); } catch (_) { data = null; }
  return { status: r.status, body: data };
}

/** Show exactly one of the page's sections. */
function show(id) {
  for (const s of document.querySelectorAll("main > section, main > div#board")) {
    s.hidden = s.id !== id;
  }
}

function setStatus(text) {
  document.getElementById("status").textContent = text || "";
}

// The start page's lobby: the quick-pairing buttons, the open seeks (live, over the page's own
// WebSocket: server/PROTOCOL.md, "The lobby"), this page's own seek with its cancel button.
// Paired, the page keeps its seat token and opens the room. The server pairs; this only shows.

import { settings, tokens } from "./api.js";
import { $, h, show } from "./dom.js";
import { known, t, tn } from "./i18n.js";
import { ratingMark } from "./seatratings.js";
import { clockWords } from "./clockwords.js";

const gameName = (name) => (known(`game.${name}`) ? t(`game.${name}`) : name);
// The server's label for the clock (server/rooms/clock.py: "3+2", "½+0", "4s+0"), and its words.
const clockLabel = (s) =>
  s.clock ? t("lobby.clockWhat", { label: s.label, words: clockWords(s.clock) }) : t("lobby.noClock");

// `seeks`: the list the server keeps for this page (at most 40, nearest first); `more`: per game,
// the open seeks it does not show (server/PROTOCOL.md, "The lobby").
const state = { seeks: new Map(), more: {}, mine: null, quick: [], ws: null, wait: 500, pending: [] };
// Where each intent's refusal is said (its id -> the notice by the control that sent it), and
// the notice showing one now.
const saidAt = new Map();
let saying = null;
let counter = 0;

function send(message) {
  if (state.ws?.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(message));
  else state.pending.push(message);
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${scheme}//${location.host}/ws`);
  state.ws = ws;
  ws.onopen = () => {
    state.wait = 500;
    ws.send(JSON.stringify({ t: "lobby" }));
    for (const m of state.pending.splice(0)) ws.send(JSON.stringify(m));
  };
  ws.onmessage = (e) => onMessage(JSON.parse(e.data));
  ws.onclose = () => {
    // A seek lives with its socket: it went with this one. Watch again after a pause.
    state.mine = null;
    setTimeout(connect, state.wait);
    state.wait = Math.min(state.wait * 2, 10000);
    draw();
  };
}

function onMessage(m) {
  if (m.t === "lobby") {
    if (m.full) state.seeks.clear();
    for (const s of m.seeks) state.seeks.set(s.id, s);
    for (const id of m.gone) state.seeks.delete(id);
    state.more = m.more;
  } else if (m.t === "seeking") {
    state.mine = m.status === "open" ? m.seek : null;
  } else if (m.t === "paired") {
    tokens.set(m.room, m.token);
    document.body.dataset.paired = m.room;
    location.assign(m.url);
  } else if (m.t === "error") {
    fail(refusalText(m), saidAt.get(m.id));
  }
  draw();
}

// A refusal in the player's words: its code's sentence where we have one (a wait in seconds when
// the server says how long), else the server's own in `otherwise`'s.
export function refusalText({ code, message, retry_after_ms: ms }, otherwise = "lobby.failed") {
  const key = `refusal.${code}`;
  if (!known(key)) return t(otherwise, { msg: message });
  return t(key, { s: Math.ceil((ms || 0) / 1000), msg: message });
}

// Say `text` at `at` (the notice by the control that was used; the lobby's own by default),
// in view; "" clears what was said.
export function fail(text, at = $("#lobby-error")) {
  if (saying && saying !== at) show(saying, false);
  saying = text ? at : null;
  at.textContent = text;
  show(at, Boolean(text));
  if (text) at.scrollIntoView({ block: "nearest" });
}

// {game, options, clock, side, rated} -> a seek (paired at once if someone compatible waits);
// its refusal is said at `at`.
export function seek(request, at) {
  fail("");
  const name = settings.name() || undefined;
  const id = `s${Date.now().toString(36)}-${++counter}`;
  if (at) saidAt.set(id, at);
  send({ t: "seek", ...request, name, id });
}

// This browser became another player (or one at all): the socket carries the cookie it opened
// with, so it opens again (its seek, if any, goes with it).
export function reconnect() {
  if (state.ws?.readyState === WebSocket.OPEN) state.ws.close();
}

function seekLine(s) {
  const who = s.name || t("lobby.anonymous");
  const rating = s.rating !== null && s.rating !== undefined ? [" (", ratingMark(s.rating, s.provisional), ")"] : [];
  const what = `${gameName(s.game)} · ${clockLabel(s)}${s.rated ? ` · ${t("lobby.rated")}` : ""}`;
  const mine = s.id === state.mine;
  return h("li", { class: "seek", dataset: { seek: s.id, mine: mine ? "1" : "0" } },
    h("span", { class: "seek-who" }, who, rating),
    h("span", { class: "seek-what" }, what),
    mine
      ? h("span", { class: "muted" }, t("lobby.yours"))
      : h("button", { type: "button", class: "primary seek-play", onclick: () => accept(s.id) }, t("lobby.play")));
}

function accept(id) {
  fail("");
  send({ t: "accept", seek: id, name: settings.name() || undefined, id: `a${Date.now().toString(36)}-${++counter}` });
}

// A lobby update redraws only what changed: a button made anew between a press and its release
// takes no click, so the quick pools' buttons and each listed seek's row are kept while they stand.
const rows = new Map(); // seek id -> its row

function drawQuick() {
  $("#quick").replaceChildren(
    ...state.quick.map((q) =>
      h("button", { type: "button", class: "quick-pool",
        dataset: { game: q.game, clock: q.label },
        onclick: () => state.quickSeek({ game: q.game, options: q.options, clock: q.clock, side: "random" }) },
        h("span", { class: "quick-game" }, gameName(q.game)), h("span", { class: "quick-clock" }, q.label),
        h("span", { class: "quick-words" }, clockWords(q.clock)))),
  );
}

function drawSeeks() {
  const list = $("#seeks");
  for (const [id, row] of rows) {
    if (!state.seeks.has(id) || row.dataset.mine !== (id === state.mine ? "1" : "0")) {
      row.remove();
      rows.delete(id);
    }
  }
  let i = 0;
  for (const s of state.seeks.values()) {
    let row = rows.get(s.id);
    if (!row) rows.set(s.id, (row = seekLine(s)));
    if (list.children[i] !== row) list.insertBefore(row, list.children[i] || null);
    i++;
  }
}

function draw() {
  for (const button of $("#quick").children) button.disabled = Boolean(state.mine);
  drawSeeks();
  const counts = Object.entries(state.more);
  const rest = counts.reduce((sum, [, n]) => sum + n, 0);
  const games = counts.map(([game, n]) => `${gameName(game)} ${n}`).join(" · ");
  $("#seeks-more").textContent = rest ? tn("lobby.more", rest, { games }) : "";
  show($("#seeks-more"), rest > 0);
  show($("#seeks-empty"), state.seeks.size === 0 && rest === 0);
  const waiting = state.mine !== null && state.mine !== undefined;
  show($("#seeking"), waiting);
  document.body.dataset.seeking = waiting ? "1" : "0";
}

// Everything drawn again (the language changed).
function redraw() {
  rows.clear();
  $("#seeks").replaceChildren();
  drawQuick();
  draw();
}

// `ready`: the player this page is being made, awaited before the socket opens (its cookie is
// read at the upgrade); `quickSeek(request)`: how a quick-pool button seeks.
export async function startLobby({ ready = Promise.resolve(), quickSeek = seek } = {}) {
  state.quickSeek = quickSeek;
  $("#seek-cancel").addEventListener("click", () => state.mine && send({ t: "cancel", seek: state.mine }));
  try {
    const r = await fetch("/api/lobby", { headers: { Accept: "application/json" } });
    state.quick = (await r.json()).quick;
  } catch {
    state.quick = [];
  }
  redraw();
  await ready;
  connect();
}

export const redrawLobby = redraw;

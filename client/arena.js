// An arena's page (/t/{id}): its name, game and clock, the time to its start or end, the
// Join/Pause button, the standings live over the page's own WebSocket (`arena`, then the
// server's paced updates: server/PROTOCOL.md, "Arenas"), the games being played (watch them),
// the podium once it is over. A finished arena's page is drawn from GET /api/arenas/{id}.
// Joined and not paused, the page waits for a game (`arena-join`); paired, it keeps the seat
// token and opens the room. The server pairs and counts: this only shows and asks.

import { settings, tokens } from "./api.js";
import { $, h, show } from "./dom.js";
import { t, tn } from "./i18n.js";
import { fail, getJSON, pathId, startPage, when } from "./archivepage.js";
import { ensurePlayer } from "./identity.js";
import { refusalText } from "./lobby.js";
import { arenaWhat, countdown, playedItems, playingItems, podiumItems, standingsTable } from "./arenaview.js";

const id = pathId();
const main = $("#arena");
// A finished arena's standings come a page of rows at a time (?page=, from 0).
const page = Math.max(0, Number(new URLSearchParams(location.search).get("page")) || 0);
const PAGE_ROWS = 100;

const a = {
  spec: null,
  status: "",
  offset: 0, // the server's clock minus this browser's (from the view's now_ms)
  rows: new Map(), // player -> row: the top of the standings (live), or all of them (final)
  me: null, // this player's row, once joined
  joined: null, // what the last arena-joined said: "in" or "paused" (before a view's `me`)
  players: 0,
  playing: [],
  podium: [],
  played: [], // a finished arena's games (the archive's)
  final: false, // drawn from the archive: nothing live to wait for
  player: null, // this browser's player id
  ws: null,
  wait: 500,
  opened: 0, // sockets opened so far: a join is asked once a socket
  asked: 0, // the socket (its number) the last arena-join went on
};
let counter = 0;
const intentId = () => `a${Date.now().toString(36)}-${++counter}`;

function send(message) {
  if (a.ws?.readyState !== WebSocket.OPEN) return false;
  a.ws.send(JSON.stringify(message));
  return true;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${scheme}//${location.host}/ws`);
  a.ws = ws;
  a.opened += 1;
  ws.onopen = () => {
    a.wait = 500;
    ws.send(JSON.stringify({ t: "arena", arena: id }));
  };
  ws.onmessage = (e) => onMessage(JSON.parse(e.data));
  ws.onclose = () => {
    if (a.ws !== ws || a.final) return;
    // Waiting lives with the socket: it went with this one. Watch (and wait) again after a pause.
    setTimeout(connect, a.wait);
    a.wait = Math.min(a.wait * 2, 10000);
  };
}

function onMessage(m) {
  if (m.t === "arena" && m.arena.id === id) {
    a.spec = m.arena;
    a.status = m.status;
    a.offset = m.now_ms - Date.now();
    if (m.full) a.rows.clear();
    merge(m.standings);
    a.me = m.me;
    if (a.me) a.joined = a.me.paused ? "paused" : "in";
    a.players = m.players;
    a.playing = m.playing;
    a.podium = m.podium;
    if (a.status === "finished") loadFinal();
    else waitForGame();
  } else if (m.t === "arena-joined" && m.arena === id) {
    a.joined = m.paused ? "paused" : "in";
    if (a.me) a.me = { ...a.me, paused: m.paused };
  } else if (m.t === "arena-paired" && m.arena === id) {
    tokens.set(m.room, m.token);
    document.body.dataset.paired = m.room;
    location.assign(m.url);
  } else if (m.t === "error") {
    say(m.code === "not-identified" ? t("arena.notIdentified") : refusalText(m, "arenas.failed"));
  }
  draw();
}

// An update carries the rows that changed: a row whose rank another row now has is gone from
// the top the page keeps.
function merge(rows) {
  const ranks = new Map(rows.map((r) => [r.rank, r.player]));
  for (const [player, row] of a.rows) {
    if (ranks.has(row.rank) && ranks.get(row.rank) !== player) a.rows.delete(player);
  }
  for (const r of rows) a.rows.set(r.player, r);
}

// Joined, not paused, and the arena not over: this socket waits for a game, asked once a socket
// (the store keeps a player who joined before the start waiting, and pairs them once it starts;
// a second ask on the same socket while a pairing is on its way could cost that pairing).
function waitForGame() {
  if (a.joined !== "in" || !["upcoming", "running"].includes(a.status) || a.asked === a.opened) return;
  if (send({ t: "arena-join", arena: id, id: intentId() })) a.asked = a.opened;
}

async function press() {
  say("");
  if (a.joined === "in") {
    send({ t: "arena-pause", arena: id, id: intentId() });
    return;
  }
  if (!a.player) {
    // No player yet (the first try took too long): make one, and open a socket that carries it.
    const me = await ensurePlayer(settings.name());
    if (!me?.player) return say(t("refusal.no-player"));
    a.player = me.player;
    a.ws?.close();
    return;
  }
  if (send({ t: "arena-join", arena: id, id: intentId() })) a.asked = a.opened;
}

function say(text) {
  const el = $("#arena-error");
  el.textContent = text;
  show(el, Boolean(text));
}

// The arena as the archive keeps it once finished: all its standings and its podium.
function showFinal(data) {
  a.final = true;
  a.spec = data.arena;
  a.status = data.status;
  a.rows = new Map(data.standings.map((r) => [r.player, r]));
  a.podium = data.podium;
  a.players = data.players;
  a.playing = data.playing || [];
  a.played = data.games || [];
  a.me = data.standings.find((r) => r.player === a.player) || null;
  a.joined = null;
}

async function loadFinal() {
  if (a.final) return;
  a.final = true;
  a.ws?.close();
  try {
    showFinal(await getJSON(`/api/arenas/${encodeURIComponent(id)}?page=${page}`));
  } catch (err) {
    fail(err);
  }
  draw();
}

function meLine() {
  const mine = a.playing.find((g) => g.players.includes(a.player));
  if (mine) {
    return [t("arena.yourGame"), " ", h("a", { href: `/r/${encodeURIComponent(mine.room)}`, id: "my-game" }, t("arena.goToGame"))];
  }
  if (a.joined === "paused") return [t("arena.paused")];
  if (a.joined === "in") return [t(a.status === "upcoming" ? "arena.waitingStart" : "arena.waiting")];
  return [];
}

function draw() {
  const s = a.spec;
  if (!s) return;
  main.dataset.status = a.status;
  main.dataset.joined = a.joined || "";
  document.title = `nyumba · ${s.name}`;
  $("#arena-name").textContent = s.name;
  $("#arena-what").textContent = arenaWhat(s);
  show($("#rules-berserk"), s.berserk);
  drawClock();
  $("#arena-count").textContent = `· ${tn("arena.players", a.players)}`;
  const open = ["upcoming", "running"].includes(a.status);
  show($("#arena-action"), open);
  $("#arena-join").textContent = t(a.joined === "in" ? "arena.pause" : a.joined === "paused" ? "arena.resume" : "arena.join");
  $("#arena-join").classList.toggle("secondary", a.joined === "in");
  $("#arena-me").replaceChildren(...meLine());
  const rows = [...a.rows.values()].sort((x, y) => x.rank - y.rank);
  // This player's own line, below the top when they are not in it.
  if (a.me && !a.rows.has(a.me.player) && !a.final) rows.push(a.me);
  const newer = $("#newer");
  show(newer, a.final && page > 0);
  newer.href = `?page=${page - 1}`;
  const older = $("#older");
  show(older, a.final && a.players > (page + 1) * PAGE_ROWS);
  older.href = `?page=${page + 1}`;
  show($("#standings-empty"), rows.length === 0);
  show($("#standings"), rows.length > 0);
  $("#standings").replaceChildren(...standingsTable(rows, a.player));
  show($("#podium-box"), a.podium.length > 0);
  $("#podium").replaceChildren(...podiumItems(a.podium));
  show($("#playing-box"), !a.final || a.playing.length > 0);
  show($("#playing-empty"), a.playing.length === 0);
  $("#playing").replaceChildren(...playingItems(a.playing));
  show($("#played-box"), a.final && a.played.length > 0);
  $("#played").replaceChildren(...playedItems(a.played));
}

function drawClock() {
  if (!a.spec) return;
  const start = a.status === "upcoming" ? ` (${when(a.spec.starts_ms)})` : "";
  $("#arena-when").textContent = countdown(a.spec, a.status, Date.now() + a.offset, when) + start;
}

async function start() {
  startPage(draw);
  $("#arena-join").addEventListener("click", press);
  setInterval(drawClock, 1000);
  // The socket carries the player it opened with: be someone first (as the start page does).
  const me = await ensurePlayer(settings.name());
  a.player = me?.player || null;
  try {
    // A finished arena is drawn from the archive; a live one from the socket.
    const data = await getJSON(`/api/arenas/${encodeURIComponent(id)}?page=${page}`);
    if (data.status === "finished") showFinal(data);
    else {
      a.spec = data.arena;
      a.status = data.status;
      connect();
    }
    draw();
  } catch (err) {
    fail(err);
  }
  document.body.dataset.ready = "1";
}

start();

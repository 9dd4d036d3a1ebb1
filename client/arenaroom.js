// The room page's arena bits, for a room an arena paired (`state.arena`: server/PROTOCOL.md,
// "Arenas"): a link back to the arena's page (/t/{id}); the Berserk button before one's first
// move where the arena allows it (`state.berserk` not null: each side's choice so far), which
// halves one's clock for a point more on a win (the server judges it); no Rematch (an arena room
// has one game: panels.js); and once the game is over, the next game: the room's socket says
// `arena-join` and, paired, the page keeps the new seat token and opens the new room.

import { tokens } from "./api.js";
import { $, show } from "./dom.js";
import { t } from "./i18n.js";

// `asked`: the socket the last arena-join went on (a new socket asks again); `paused`: this page
// paused (or the server did: it pauses a player whose missing first move aborted the game);
// `over`: the arena pairs nobody any more.
const ui = { asked: null, paused: false, over: false, arena: null, judged: false };
let wired = null;

// send(message): an intent of this room (the room is added); raw(message): a message as it is
// (the arena's own carry no room); socket(): the room's current socket; intentId().
export function wireArena({ send, raw, socket, intentId }) {
  wired = { raw, socket, intentId };
  $("#berserk").addEventListener("click", () => send({ t: "berserk", id: intentId() }));
  $("#arena-next-pause").addEventListener("click", () => {
    ui.paused = !ui.paused;
    ui.asked = socket();
    raw({ t: ui.paused ? "arena-pause" : "arena-join", arena: ui.arena, id: intentId() });
    drawNext();
  });
}

// The arena's messages on the room's socket; true when this took it.
export function arenaMessage(m) {
  if (m.t === "arena-paired") {
    tokens.set(m.room, m.token);
    document.body.dataset.paired = m.room;
    location.assign(m.url);
    return true;
  }
  if (m.t === "arena-joined") {
    ui.paused = m.paused;
    drawNext();
    return true;
  }
  if (m.t === "error" && m.code === "arena-over") {
    ui.over = true;
    drawNext();
  }
  return false;
}

// Before this side's first move: South before any move; North while the first-move window is
// still open (the clock's `abort_ms` is left out once both sides have moved).
function beforeFirstMove(s, side) {
  return s.plies === 0 || (side === 1 && s.clock?.abort_ms !== null && s.clock?.abort_ms !== undefined);
}

export function renderArena(s, v) {
  const box = $("#arena-line");
  show(box, Boolean(s.arena));
  if (!s.arena) return;
  ui.arena = s.arena;
  $("#arena-back").href = `/t/${encodeURIComponent(s.arena)}`;
  show($("#rematch"), false);
  show($("#lobby-link"), false); // an aborted arena game: the arena pairs again, not the lobby
  const side = v.sides.length === 1 ? v.sides[0] : null;
  const berserk = Array.isArray(s.berserk) ? s.berserk : null;
  for (const el of document.querySelectorAll("#clocks .clock")) el.classList.toggle("berserked", Boolean(berserk?.[Number(el.dataset.side)]));
  const may = side !== null && berserk && !berserk[side] && !s.outcome && Boolean(s.clock) && beforeFirstMove(s, side);
  show($("#berserk"), Boolean(may));
  show($("#berserk-what"), Boolean(may));
  $("#berserk").disabled = !v.online;
  box.dataset.berserk = berserk ? berserk.map(Number).join(",") : "";
  // Over: wait for the next game, unless paused (by this page, or by the server for a missing
  // first move) or the arena is over.
  const over = Boolean(s.outcome) && side !== null;
  if (over && !ui.judged) {
    ui.judged = true;
    ui.paused = s.outcome.reason === "first-move" && s.ended_by === side;
  }
  if (over && v.online && !ui.paused && !ui.over && ui.asked !== wired.socket()) {
    ui.asked = wired.socket();
    wired.raw({ t: "arena-join", arena: s.arena, id: wired.intentId() });
  }
  show($("#arena-next"), over);
  drawNext();
}

function drawNext() {
  $("#arena-next-text").textContent = t(ui.over ? "arena.over" : ui.paused ? "arena.nextPaused" : "arena.next");
  $("#arena-next-pause").textContent = t(ui.paused ? "arena.resume" : "arena.pause");
  show($("#arena-next-pause"), !ui.over);
  $("#arena-line").dataset.next = ui.over ? "over" : ui.paused ? "paused" : ui.asked ? "waiting" : "";
}

// The room page (/r/{room}): joins the room's socket, draws each state the server sends,
// animates the last move's steps, and turns clicks into intents. The server decides everything.

import { animatable, animate } from "./anim.js";
import { wireControls } from "./controls.js";
import { getRecord, replay as replayRecord, settings, tokens } from "./api.js";
import { BoardView, portraitQuery } from "./board.js";
import { HistoryFeed, HistoryPanel } from "./history.js";
import { PastView } from "./pastview.js";
import { $, show } from "./dom.js";
import { applyI18n, has, known, languagePicker, onLangChange, t } from "./i18n.js";
import { Connection } from "./net.js";
import {
  nothingPlayed, reclaimedSeats, renderBanner, renderControls, renderGone, renderOffer, renderPlayable, renderRatedness, renderSeats,
  renderShare, renderStatus,
} from "./panels.js";
import { ChoiceBox } from "./choices.js";
import { FinishedGame } from "./finished.js";
import { ensurePlayer } from "./identity.js";
import { RoomReports } from "./reports.js";
import { updateClocks } from "./clock.js";
import { arenaMessage, renderArena, wireArena } from "./arenaroom.js";

const room = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const app = $("#app");

const ui = {
  sides: [], // the sides this connection holds (latest welcome)
  state: null, // the latest state received
  shown: null, // the state on the board (after its animation)
  queue: [],
  animating: false,
  anim: null, // the running animation's cancel token
  pending: null, // id of a move sent and not yet answered
  acked: null, // the version its ack named, until that state arrives
  userFlip: false,
  received: 0, // performance.now() when the latest state arrived (for absence clocks)
  welcomed: false,
  hint: null, // the pit of the computer's suggestion for the position on the board
  note: null, // a transient notice {key, vars} or {text}
  armed: null, // a pit tapped once, waiting for the second tap (tap to select, tap to play)
};

let [board, counter] = [null, 0];
const intentId = () => `c${Date.now().toString(36)}-${++counter}`;

const conn = new Connection(room, { onMessage: (m) => arenaMessage(m) || onMessage(m), onStatus });
// What the page reports unless the player turned it off (reports.js): a friend's link is a room
// page opened without a seat token for the room.
const reports = new RoomReports({ friendLink: !tokens.get(room) });
const choices = new ChoiceBox({ onPlay: play, focusPit: (pit) => board?.cells.get(pit)?.el.focus() });
const history = new HistoryPanel($("#history"), { onPick: (i) => past.open(i) });
const past = new PastView({
  history,
  board: () => board,
  live: () => ui.shown,
  render: () => render(),
  onEnter: () => {
    choices.close();
    if (ui.anim) ui.anim.cancelled = true;
  },
});
const finished = new FinishedGame(room, {
  flipped: () => board?.flipped,
  onFail: (kind, err) => setNote({ key: `${kind}.failed`, vars: { msg: err.message } }),
});
const feed = new HistoryFeed(history, {
  load: async () => (await replayRecord(await getRecord(room))).states,
  current: () => ui.shown,
  onCut: (plies) => past.active && past.index > plies && past.close(),
});

// ------------------------------------------------------------------ messages

function onMessage(m) {
  switch (m.t) {
    case "welcome":
      if (m.token) tokens.set(room, m.token);
      ui.sides = m.sides;
      ui.welcomed = true;
      orient();
      render();
      break;
    case "state":
      if (m.resync) {
        // The server's store lost its newest moves (a failover): this state is the truth now,
        // whatever was shown or queued; a move waiting for its answer is answered no more.
        ui.queue.length = 0;
        ui.pending = null;
        ui.acked = null;
        if (ui.anim) ui.anim.cancelled = true;
        setNote({ key: "room.resync" });
      }
      if (ui.state && !m.resync) noticeChanges(ui.state, m);
      ui.state = m;
      updateClocks(m, ui.sides);
      ui.received = performance.now();
      if (ui.pending && (m.last?.id === ui.pending || (ui.acked !== null && m.version >= ui.acked))) {
        ui.pending = null;
        ui.acked = null;
      }
      ui.queue.push(m);
      drain();
      break;
    case "ack":
      // The state the move made may still be on its way: stay busy until it is here.
      if (m.id === ui.pending) {
        if (ui.state && ui.state.version >= m.version) ui.pending = null;
        else ui.acked = m.version;
        render();
      }
      break;
    case "error":
      onError(m);
      break;
    case "offer":
      if (m.status !== "open") setNote({ key: `offer.${m.status}.${m.kind}` });
      break;
    case "expiring": // the room's longest life ends soon: it and its game go then (sent once)
      setNote({ key: "room.expiring", vars: { min: Math.max(1, Math.round(m.in_ms / 60000)) } });
      break;
    case "hint":
      if (ui.shown && m.version === ui.shown.version) {
        ui.hint = ui.shown.legal.find((l) => l.move === m.move)?.pit ?? null;
        setNote({ key: "hint.says", vars: { move: m.move } });
      }
      break;
  }
}

// What one state says happened since the one before it, where nothing else says so.
function noticeChanges(prev, next) {
  // A new game (a rematch): the last game's replay and analysis are put away.
  if (next.game_no !== prev.game_no) return finished.close();
  for (const side of reclaimedSeats(prev, next, ui.sides)) {
    setNote({ key: "seat.reclaimed", vars: { side: t(`side.${side}`) } });
  }
}

function onError(m) {
  reports.refused(m.code);
  if (m.id && m.id === ui.pending) {
    ui.pending = null;
    ui.acked = null;
  }
  if (m.code === "no-room") {
    conn.stop();
    return renderGone(app);
  }
  if (m.code === "bad-token") {
    // The stored token is not this room's any more: join again as whoever the server lets us be.
    tokens.forget(room);
    conn.ws?.close(4001);
    return;
  }
  const key = `error.${m.code}`;
  setNote(has(key) ? { key } : { text: m.message });
  render();
}

function onStatus(status, delay) {
  app.dataset.conn = status;
  reports.status(status, conn.failures);
  renderBanner(status, delay);
  if (status !== "open") {
    ui.pending = null;
    ui.acked = null;
  }
  render();
}

function setNote(note) {
  ui.note = note;
  clearTimeout(setNote.timer);
  setNote.timer = setTimeout(() => {
    ui.note = null;
    render();
  }, 6000);
  render();
}

// ------------------------------------------------------------------ states and animation

async function drain() {
  if (ui.animating) return;
  while (ui.queue.length) {
    const next = ui.queue.shift();
    if (!board) makeBoard(next);
    const prev = ui.shown;
    const speed = settings.speed();
    if (animatable(prev, next) && speed !== "off" && ui.queue.length < 4 && !past.active) {
      ui.animating = true;
      ui.hint = null;
      choices.close();
      render();
      board.show(prev.board);
      board.mark({ from: null, to: null });
      ui.anim = { cancelled: false };
      await animate(board, next.last.steps, { speed, sound: settings.sound(), token: ui.anim });
      ui.animating = false;
      // The steps should have led exactly to the server's board; count it if they did not.
      if (!ui.anim.cancelled && board.diff(next.board).length) {
        app.dataset.drift = String(Number(app.dataset.drift || 0) + 1);
      }
    }
    if (!prev || next.version !== prev.version || next.game_no !== prev.game_no) {
      ui.hint = null;
      ui.armed = null;
      choices.close();
    }
    ui.shown = next;
    feed.track(next);
    if (!past.active) board.show(next.board);
  }
  render();
}

function makeBoard(s) {
  board = new BoardView($("#board-wrap"), s.game, { onPick: pick, portrait: portraitQuery().matches, interactive: true });
  orient();
  const title = known(`game.${s.game}`) ? t(`game.${s.game}`) : s.game;
  $("#game-title").textContent = title;
  document.title = `nyumba · ${title}`;
  $("#rules-link").href = `/static/rules.html?game=${encodeURIComponent(s.game)}`;
}

// South at the bottom for South and for local games; North's player sees the board turned.
function orient() {
  if (!board) return;
  const viewSide = ui.sides.length === 1 ? ui.sides[0] : 0;
  board.setFlipped((viewSide === 1) !== ui.userFlip);
}

// ------------------------------------------------------------------ who may do what

function myTurn(s = ui.shown) {
  return Boolean(
    s &&
      !s.outcome &&
      s.to_move !== null &&
      ui.sides.includes(s.to_move) &&
      s.seats[s.to_move]?.holder === "person",
  );
}

function canPlay() {
  return !past.active && myTurn() && !ui.animating && !ui.pending && ui.queue.length === 0 && conn.isOpen && ui.shown === ui.state;
}

// ------------------------------------------------------------------ intents

function send(message) {
  if (!conn.send({ room, ...message })) {
    setNote({ key: "room.reconnecting" });
    return false;
  }
  return true;
}

function pick(pit) {
  if (!canPlay()) return;
  const moves = ui.shown.legal.filter((l) => l.pit === pit);
  // With "tap to select, tap to play" a one-move pit is armed by the first tap and played by
  // the second; a pit with several moves opens its choices, where the chosen button is the second.
  if (moves.length === 1 && settings.tapConfirm() && ui.armed !== pit) {
    ui.armed = pit;
    render();
    return;
  }
  ui.armed = null;
  if (moves.length === 1) play(moves[0].move);
  else if (moves.length > 1) choices.open(pit, moves);
}

function play(move) {
  if (!canPlay()) return;
  choices.close();
  const id = intentId();
  if (send({ t: "move", version: ui.shown.version, move, id })) ui.pending = id;
  render();
}

// ------------------------------------------------------------------ drawing the page

function render() {
  const s = ui.shown;
  app.dataset.myturn = canPlay() ? "1" : "0";
  app.dataset.busy = ui.animating || ui.pending || ui.queue.length ? "1" : "0";
  app.dataset.sides = ui.sides.join(",");
  if (!s) return;
  app.dataset.version = String(s.version);
  app.dataset.over = s.outcome ? "1" : "0";
  app.dataset.mode = s.mode;
  app.dataset.game = s.game;
  app.dataset.plies = String(s.plies);
  show($("#analyse-btn"), Boolean(s.outcome) && !nothingPlayed(s));

  const v = view();
  renderStatus(s, v);
  board?.setOwners(s.seats.map((seat) => seat.name || null));
  show($("#viewing"), past.active);
  $("#board-wrap").classList.toggle("viewing", past.active);
  app.dataset.viewing = past.active ? String(past.index) : "";
  if (past.active) {
    past.draw();
    $("#passes").replaceChildren();
    show($("#move-list"), false);
  } else renderBoardMarks(s);
  renderOffer(s, v);
  renderSeats(s, v);
  renderControls(s, v);
  renderShare(s, v);
  renderRatedness(s);
  renderArena(s, v);
  const note = $("#notice");
  note.textContent = ui.note ? (ui.note.key ? t(ui.note.key, ui.note.vars) : ui.note.text) : "";
  show(note, Boolean(ui.note));
}

// What the panels need to know about this connection.
function view() {
  return {
    sides: ui.sides,
    received: ui.received,
    welcomed: ui.welcomed,
    room,
    myTurn: canPlay(),
    online: conn.isOpen,
    redraw: render,
  };
}

function renderBoardMarks(s) {
  if (!board || ui.animating) return;
  const playable = canPlay();
  ui.armed = renderPlayable(s, board, { playable, armed: ui.armed, hint: ui.hint, play });
  if (!playable) choices.close();
}

// ------------------------------------------------------------------ wiring

function wire() {
  languagePicker($("#lang"));
  applyI18n(document);
  onLangChange(() => {
    choices.refresh();
    history.render();
    if (board) {
      board.refreshLabels();
      board.showInfo();
      const title = t(`game.${board.game}`);
      $("#game-title").textContent = title;
    }
    render();
  });

  wireControls({ send, intentId, state: () => ui.shown, render, join: () => conn.join() });
  wireArena({ send, raw: (m) => conn.send(m), socket: () => conn.ws, intentId });
  $("#flip").addEventListener("click", () => {
    ui.userFlip = !ui.userFlip;
    orient();
  });
  $("#live").addEventListener("click", () => past.close());
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && past.active) past.close();
    else if (e.key === "Escape" && ui.armed !== null) {
      ui.armed = null;
      render();
    }
  });
  $("#replay-btn").addEventListener("click", () => finished.open("replay"));
  $("#analyse-btn").addEventListener("click", () => finished.open("analysis"));

  $("#tap-confirm").addEventListener("change", () => {
    ui.armed = null;
    render();
  });
  portraitQuery().addEventListener("change", (e) => board?.setPortrait(e.matches));
  $("#speed").addEventListener("change", () => {
    if (settings.speed() === "off" && ui.anim) ui.anim.cancelled = true;
  });

  // Clocks for absence and the hand-over window tick locally between states.
  setInterval(() => {
    if (ui.shown && ui.shown.seats.some((seat) => !seat.present)) {
      renderSeats(ui.shown, view());
      renderControls(ui.shown, view());
    }
  }, 1000);
}

wire();
if (room) {
  ensurePlayer(settings.name()).finally(() => {
    $("#name").value = settings.name(); // the player's name, if another device gave it one
    conn.start();
  });
}
else onError({ code: "no-room" });

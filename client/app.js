// The room page (/r/{room}): joins the room's socket, draws each state the server sends,
// animates the last move's steps, and turns clicks into intents. The server decides everything.

import { animate, unlockAudio } from "./anim.js";
import { clientMessages, getRecord, replay as replayRecord, settings, tokens } from "./api.js";
import { BoardView, lastMovePits, portraitQuery } from "./board.js";
import { HistoryPanel } from "./history.js";
import { $, h, show } from "./dom.js";
import { applyI18n, has, known, languagePicker, onLangChange, t } from "./i18n.js";
import { Connection } from "./net.js";
import { openReplay } from "./replay.js";
import { renderControls, renderOffer, renderSeats, renderShare, renderStatus, sideName } from "./panels.js";
import { choiceLabels, choiceWords } from "./words.js";

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
  picking: null, // pit whose choices are open
  pickingMoves: [],
  userFlip: false,
  received: 0, // performance.now() when the latest state arrived (for absence clocks)
  welcomed: false,
  hint: null, // the pit of the computer's suggestion for the position on the board
  hints: false, // whether the server takes "hint" messages
  note: null, // a transient notice {key, vars} or {text}
  armed: null, // a pit tapped once, waiting for the second tap (tap to select, tap to play)
  viewing: null, // the ply whose position the board shows read-only, or null for the live board
  historyGame: null, // the game_no the history panel holds
  historySyncing: false,
  historyAgain: false,
};

let board = null;
let counter = 0;
const intentId = () => `c${Date.now().toString(36)}-${++counter}`;

const conn = new Connection(room, { onMessage, onStatus });
const history = new HistoryPanel($("#history"), { onPick: viewPly });

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
      ui.state = m;
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
      if (m.status !== "open") setNote({ key: `offer.${m.status}`, vars: { kind: t(`offer.${m.kind}`) } });
      break;
    case "hint":
      if (ui.shown && m.version === ui.shown.version) {
        ui.hint = ui.shown.legal.find((l) => l.move === m.move)?.pit ?? null;
        setNote({ key: "hint.says", vars: { move: m.move } });
      }
      break;
  }
}

function onError(m) {
  if (m.id && m.id === ui.pending) {
    ui.pending = null;
    ui.acked = null;
  }
  if (m.code === "no-room") {
    conn.stop();
    app.dataset.conn = "gone";
    $("#conn").textContent = t("room.noRoom");
    $("#conn").classList.add("gone");
    show($("#conn"), true);
    show($("#controls"), true);
    return;
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
  const banner = $("#conn");
  if (status === "open") {
    show(banner, false);
  } else if (status === "reconnecting") {
    banner.textContent = delay > 1000 ? t("room.reconnectIn", { s: Math.round(delay / 1000) }) : t("room.reconnecting");
    show(banner, true);
  } else if (status === "connecting") {
    banner.textContent = t("room.connecting");
    show(banner, true);
  }
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

function animatable(prev, next) {
  return (
    prev &&
    next.last &&
    next.game_no === prev.game_no &&
    next.plies === prev.plies + 1 &&
    next.version > prev.version
  );
}

async function drain() {
  if (ui.animating) return;
  while (ui.queue.length) {
    const next = ui.queue.shift();
    if (!board) makeBoard(next);
    const prev = ui.shown;
    const speed = settings.speed();
    if (animatable(prev, next) && speed !== "off" && ui.queue.length < 4 && ui.viewing === null) {
      ui.animating = true;
      ui.hint = null;
      closeChoices();
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
      closeChoices();
    }
    ui.shown = next;
    trackHistory(next);
    if (ui.viewing === null) board.show(next.board);
  }
  render();
}

// ------------------------------------------------------------------ the history panel

// Keep the panel in step with the states shown: the next ply is appended; an undo or takeback
// cuts it; anything else (joining mid-game, a rematch, states missed while the link was down)
// fetches the game's record and has the server replay it.
function trackHistory(s) {
  if (ui.historyGame !== s.game_no || !history.states.length) return syncHistory(s);
  const known = history.states[s.plies]?.last;
  if (s.plies < history.plies) {
    history.truncate(s.plies);
    if (ui.viewing !== null && ui.viewing > s.plies) backToLive();
  } else if (s.plies === history.plies + 1 && s.last) {
    history.push(s);
  } else if (s.plies !== history.plies || (s.last && (!known || known.move !== s.last.move || known.side !== s.last.side))) {
    syncHistory(s);
  }
}

async function syncHistory(s) {
  ui.historyGame = s.game_no;
  if (s.plies === 0) {
    history.set([{ board: s.board, to_move: s.to_move, last: null }]);
    return;
  }
  if (ui.historySyncing) {
    ui.historyAgain = true;
    return;
  }
  ui.historySyncing = true;
  try {
    const data = await replayRecord(await getRecord(room));
    const now = ui.shown;
    if (now && now.game_no === s.game_no) {
      const states = data.states.slice(0, now.plies + 1);
      history.set(states);
      if (history.plies < now.plies) ui.historyAgain = true;
    }
  } catch {
    // The record could not be had just now (busy server, link down): try on the next state.
    ui.historyGame = null;
  } finally {
    ui.historySyncing = false;
    if (ui.historyAgain && ui.shown) {
      ui.historyAgain = false;
      setTimeout(() => ui.shown && trackHistory(ui.shown), 500);
    }
  }
}

// Show the position after ply i, read-only, until "Back to the live game".
function viewPly(i) {
  if (!ui.shown || !history.states[i]) return;
  if (i === ui.shown.plies && ui.shown.plies === history.plies) {
    backToLive();
    return;
  }
  ui.viewing = i;
  history.select(i);
  closeChoices();
  if (ui.anim) ui.anim.cancelled = true;
  drawViewed();
  render();
}

function backToLive() {
  if (ui.viewing === null) return;
  ui.viewing = null;
  history.select(null);
  if (board && ui.shown) board.show(ui.shown.board);
  render();
}

function drawViewed() {
  const st = history.states[ui.viewing];
  if (!board || !st) return;
  board.show(st.board);
  board.mark({ lit: new Set(), ...lastMovePits(st.last) });
  const last = st.last;
  $("#viewing-text").textContent = last
    ? t("history.viewing", { i: ui.viewing, n: history.plies, side: sideName(last.side), move: last.move })
    : t("history.viewingStart");
}

function makeBoard(s) {
  board = new BoardView($("#board-wrap"), s.game, { onPick: pick, portrait: portraitQuery().matches });
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
  return ui.viewing === null && myTurn() && !ui.animating && !ui.pending && ui.queue.length === 0 && conn.isOpen && ui.shown === ui.state;
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
  else if (moves.length > 1) openChoices(pit, moves);
}

function play(move) {
  if (!canPlay()) return;
  closeChoices();
  const id = intentId();
  if (send({ t: "move", version: ui.shown.version, move, id })) ui.pending = id;
  render();
}

function openChoices(pit, moves) {
  ui.picking = pit;
  ui.pickingMoves = moves;
  $("#choices-heading").textContent = t("choose.heading", { pit });
  const labels = choiceLabels(moves);
  $("#choice-buttons").replaceChildren(
    ...moves.map((l, i) =>
      h(
        "button",
        { type: "button", class: "choice", dataset: { move: l.move }, onclick: () => play(l.move) },
        labels[i] || l.move,
        h("span", { class: "notation" }, l.move),
      ),
    ),
  );
  show($("#choices"), true);
  $("#choice-buttons button")?.focus();
}

function closeChoices() {
  if (ui.picking === null) return;
  const pit = ui.picking;
  ui.picking = null;
  show($("#choices"), false);
  board?.cells.get(pit)?.el.focus();
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

  const v = view();
  renderStatus(s, v);
  board?.setOwners(s.seats.map((seat) => seat.name || null));
  show($("#viewing"), ui.viewing !== null);
  $("#board-wrap").classList.toggle("viewing", ui.viewing !== null);
  app.dataset.viewing = ui.viewing === null ? "" : String(ui.viewing);
  if (ui.viewing !== null) {
    drawViewed();
    $("#passes").replaceChildren();
    show($("#move-list"), false);
  } else renderBoardMarks(s);
  renderOffer(s, v);
  renderSeats(s, v);
  renderControls(s, v);
  renderShare(s, v);
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
    hints: ui.hints,
    online: conn.isOpen,
  };
}

function renderBoardMarks(s) {
  if (!board || ui.animating) return;
  const playable = canPlay();
  // A move whose pit is not on the board (a pass) gets a button instead.
  const onBoard = (l) => Boolean(l.pit) && board.cells.has(l.pit);
  const lit = new Set(playable ? s.legal.filter(onBoard).map((l) => l.pit) : []);
  if (!lit.has(ui.armed)) ui.armed = null;
  board.mark({ lit, ...lastMovePits(s.last), armed: ui.armed });
  const armed = ui.armed && s.legal.find((l) => l.pit === ui.armed);
  $("#tap-hint").textContent = armed ? t("tap.again", { move: armed.move }) : "";
  show($("#tap-hint"), Boolean(armed));
  for (const c of board.cells.values()) c.el.classList.toggle("hinted", c.name === ui.hint);
  const passes = playable ? s.legal.filter((l) => !onBoard(l)) : [];
  $("#passes").replaceChildren(
    ...passes.map((l) =>
      h("button", { type: "button", class: "pass", dataset: { move: l.move }, onclick: () => play(l.move) },
        l.move === "pass" || !l.choice ? t("btn.pass") : choiceWords(l.choice)),
    ),
  );
  $("#move-buttons").replaceChildren(
    ...(playable ? s.legal : []).map((l) =>
      h("button", { type: "button", class: "secondary", dataset: { move: l.move }, onclick: () => play(l.move) }, l.move),
    ),
  );
  show($("#move-list"), playable);
  if (!playable) closeChoices();
}

// ------------------------------------------------------------------ wiring

function wire() {
  languagePicker($("#lang"));
  applyI18n(document);
  onLangChange(() => {
    if (ui.picking !== null) openChoices(ui.picking, ui.pickingMoves);
    history.render();
    if (board) {
      board.refreshLabels();
      board.showInfo();
      const title = t(`game.${board.game}`);
      $("#game-title").textContent = title;
    }
    render();
  });

  $("#undo").addEventListener("click", () => send({ t: "undo", version: ui.shown.version, id: intentId() }));
  $("#resign").addEventListener("click", (e) => {
    const b = e.currentTarget;
    if (b.dataset.confirm === "1") {
      delete b.dataset.confirm;
      send({ t: "resign", id: intentId() });
    } else {
      b.dataset.confirm = "1";
      setTimeout(() => {
        delete b.dataset.confirm;
        render();
      }, 4000);
    }
    render();
  });
  $("#draw").addEventListener("click", (e) => {
    // A local room's draw ends the game at once: ask first, as for resigning.
    const b = e.currentTarget;
    if (ui.shown?.mode !== "local" || b.dataset.confirm === "1") {
      delete b.dataset.confirm;
      send({ t: "offer", kind: "draw", id: intentId() });
    } else {
      b.dataset.confirm = "1";
      setTimeout(() => {
        delete b.dataset.confirm;
        render();
      }, 4000);
    }
    render();
  });
  $("#takeback").addEventListener("click", () => send({ t: "offer", kind: "takeback", id: intentId() }));
  $("#rematch").addEventListener("click", () => send({ t: "offer", kind: "rematch", id: intentId() }));
  $("#accept").addEventListener("click", () =>
    send({ t: "reply", kind: ui.shown.offer.kind, accept: true, id: intentId() }),
  );
  $("#decline").addEventListener("click", () =>
    send({ t: "reply", kind: ui.shown.offer.kind, accept: false, id: intentId() }),
  );
  $("#handover").addEventListener("click", () => send({ t: "hand_over", id: intentId() }));
  $("#reclaim").addEventListener("click", () => send({ t: "reclaim", id: intentId() }));
  $("#hint").addEventListener("click", () => send({ t: "hint", id: intentId() }));
  $("#flip").addEventListener("click", () => {
    ui.userFlip = !ui.userFlip;
    orient();
  });
  $("#choice-cancel").addEventListener("click", closeChoices);
  $("#live").addEventListener("click", backToLive);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && ui.viewing !== null) backToLive();
    else if (e.key === "Escape" && ui.armed !== null) {
      ui.armed = null;
      render();
    }
  });
  $("#choices").addEventListener("keydown", (e) => {
    if (e.key === "Escape") closeChoices();
  });
  $("#replay-btn").addEventListener("click", startReplay);

  $("#copy").addEventListener("click", async () => {
    const input = $("#share-url");
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      input.select();
    }
    $("#copy").textContent = t("room.copied");
    setTimeout(() => ($("#copy").textContent = t("room.copy")), 2000);
  });
  if (navigator.share) {
    show($("#share-btn"), true);
    $("#share-btn").addEventListener("click", () =>
      navigator.share({ title: document.title, url: $("#share-url").value }).catch(() => {}),
    );
  }

  const speed = $("#speed");
  speed.value = settings.speed();
  speed.addEventListener("change", () => {
    settings.setSpeed(speed.value);
    if (speed.value === "off" && ui.anim) ui.anim.cancelled = true;
  });
  const name = $("#name");
  name.value = settings.name();
  name.addEventListener("change", () => {
    settings.setName(name.value);
    name.value = settings.name();
    if (settings.name()) conn.join();
  });
  const tap = $("#tap-confirm");
  tap.checked = settings.tapConfirm();
  tap.addEventListener("change", () => {
    settings.setTapConfirm(tap.checked);
    ui.armed = null;
    render();
  });
  portraitQuery().addEventListener("change", (e) => board?.setPortrait(e.matches));
  const sound = $("#sound");
  sound.checked = settings.sound();
  sound.addEventListener("change", () => settings.setSound(sound.checked));
  for (const kind of ["pointerdown", "keydown"]) {
    document.addEventListener(kind, () => settings.sound() && unlockAudio(), { passive: true });
  }

  // Clocks for absence and the hand-over window tick locally between states.
  setInterval(() => {
    if (ui.shown && ui.shown.seats.some((seat) => !seat.present)) {
      renderSeats(ui.shown, view());
      renderControls(ui.shown, view());
    }
  }, 1000);
}

async function startReplay() {
  const box = $("#replay");
  try {
    const data = await replayRecord(await getRecord(room));
    openReplay(box, data, { onClose: () => show(box, false) });
    show(box, true);
    box.scrollIntoView({ block: "start" });
  } catch (err) {
    setNote({ key: "replay.failed", vars: { msg: err.message } });
  }
}

wire();
if (room) conn.start();
else onError({ code: "no-room" });
clientMessages()
  .then((kinds) => {
    ui.hints = kinds.has("hint");
    render();
  })
  .catch(() => {});

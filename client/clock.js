// The room's clocks: both sides' time, large, counted down here between states and corrected by
// every state (its clock says each side's time as the server made it, and which one runs).
// A low-time warning (a class, and a tone if the page's sound is on) and the abort button while
// a clocked game may still be aborted. The server decides every flag: this page only shows it.

import { settings } from "./api.js";
import { beep } from "./anim.js";
import { $, h, show } from "./dom.js";
import { t } from "./i18n.js";

const LOW_MS = 10000; // under this, or a tenth of the initial time if less, a clock is "low"

let shown = null; // {clock, at, sides, over, seats}
let timer = null;
let warned = -1; // the side last warned of low time (once per running stretch)

// "1:05", and under ten seconds "9.4".
export function clockText(ms) {
  if (ms < 10000) return (Math.max(0, ms) / 1000).toFixed(1);
  const s = Math.ceil(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function left(side) {
  const c = shown.clock;
  const spent = c.running === side ? performance.now() - shown.at : 0;
  return Math.max(0, c.remaining[side] - spent);
}

function low(ms) {
  return ms <= Math.min(LOW_MS, Math.max(3000, shown.clock.initial_ms / 10));
}

function draw() {
  const box = $("#clocks");
  if (!box || !shown) return;
  const c = shown.clock;
  // The player's own clock below (phone first: it sits by the thumb), the opponent's above.
  const mine = shown.sides.length === 1 ? shown.sides[0] : 0;
  for (const side of [1 - mine, mine]) {
    const el = box.querySelector(`[data-side="${side}"]`);
    const ms = left(side);
    el.querySelector(".clock-time").textContent = clockText(ms);
    el.querySelector(".clock-name").textContent = shown.seats[side]?.name || t(`side.${side}`);
    el.dataset.running = c.running === side ? "1" : "0";
    el.classList.toggle("low", c.running === side && low(ms));
    el.classList.toggle("out", shown.over && ms <= 0); // the flag that ended the game
    el.classList.toggle("mine", shown.sides.includes(side));
    if (c.running === side && low(ms) && warned !== side && shown.sides.includes(side)) {
      warned = side;
      if (settings.sound()) beep("capture");
    }
    if (c.running !== side && warned === side) warned = -1;
  }
  const abort = $("#abort");
  if (abort) show(abort, c.abort_ms !== null && c.abort_ms !== undefined && !shown.over && shown.sides.length > 0);
  const note = $("#abort-note");
  if (note) {
    const wait = c.abort_ms !== null && c.abort_ms !== undefined && !shown.over;
    note.textContent = wait ? t("clock.firstMove", { s: Math.max(0, Math.ceil((c.abort_ms - (performance.now() - shown.at)) / 1000)) }) : "";
    show(note, wait);
  }
}

function build(box) {
  box.replaceChildren(
    ...[1, 0].map((side) =>
      h("div", { class: "clock", dataset: { side: String(side), running: "0" }, role: "timer", "aria-live": "off" },
        h("span", { class: "clock-name" }), h("span", { class: "clock-time" }))),
  );
  box.classList.add("ready");
}

// Every state: the clocks as it says them (a state without a clock hides them).
export function updateClocks(state, sides) {
  const box = $("#clocks");
  if (!box) return;
  // An aborted game has no result: back to the lobby for another opponent.
  show($("#lobby-link"), state.outcome?.adjudication === "aborted");
  if (!state.clock) {
    show(box, false);
    shown = null;
    return;
  }
  if (!box.classList.contains("ready")) build(box);
  shown = { clock: state.clock, at: performance.now(), sides, over: Boolean(state.outcome), seats: state.seats };
  document.body.dataset.clock = state.clock.running === null ? "stopped" : "running";
  show(box, true);
  draw();
  timer ??= setInterval(draw, 100);
}

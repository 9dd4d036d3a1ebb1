// Stepping through a game (finished or not), with the same move history panel as the room and
// an autoplay. The server turns a record into the list of positions
// (POST /api/replay), each with its board and the steps of the move that led to it; this view
// only draws them, animating a single step forward.

import { animate } from "./anim.js";
import { settings } from "./api.js";
import { BoardView, lastMovePits, portraitQuery } from "./board.js";
import { h } from "./dom.js";
import { HistoryPanel } from "./history.js";
import { openAnalysis } from "./analysis.js";
import { known, onLangChange, t } from "./i18n.js";
import { lastMoveSummary, resultText } from "./words.js";

// With `record` (the record replayed) the view offers the computer's analysis of it.
export function openReplay(container, data, { onClose = () => {}, flipped = false, record = null } = {}) {
  const states = data.states || [];
  let index = 0;
  let token = { cancelled: false };
  const sideName = (side) => t(`side.${side}`);

  const title = h("h2", {}, "");
  const where = h("p", { class: "replay-where", "aria-live": "polite" });
  const unfinished = h("p", { class: "notice replay-unfinished" });
  const historyBox = h("div", { class: "history-box replay-history" });
  const summary = h("p", { class: "last" });
  const result = h("p", { class: "result" });
  const boardBox = h("div", { class: "board-wrap" });
  const slider = h("input", {
    type: "range", min: 0, max: Math.max(0, states.length - 1), value: 0, class: "replay-slider",
    "data-i18n-aria": "replay.slider", "aria-label": t("replay.slider"),
  });
  const button = (key, onclick, cls) => h("button", { type: "button", class: cls, "data-i18n": key, onclick }, t(key));
  const controls = h("div", { class: "replay-controls" },
    button("replay.first", () => go(0), "replay-first"),
    button("replay.prev", () => go(index - 1), "replay-prev"),
    button("replay.next", () => go(index + 1, true), "replay-next"),
    button("replay.last", () => go(states.length - 1), "replay-last"),
  );
  const auto = h("button", { type: "button", class: "secondary replay-auto", "aria-pressed": "false", onclick: () => toggleAuto() });
  controls.append(auto);
  let autoTimer = null;
  const close = button("replay.close", () => {
    token.cancelled = true;
    stopAuto();
    analysisView?.stop();
    onClose();
  }, "secondary replay-close");
  const play = h("div", { class: "play" },
    h("div", { class: "play-board" }, boardBox, summary, slider, controls),
    historyBox);
  const analysisBox = h("section", { class: "analysis-box", hidden: true });
  let analysisView = null;
  const analyse = button("analysis.open", () => {
    analysisView?.stop();
    analysisView = openAnalysis(analysisBox, record, data, { onClose: () => (analysisBox.hidden = true), flipped });
    analysisBox.hidden = false;
  }, "replay-analyse");
  analyse.hidden = !record;
  container.replaceChildren(title, unfinished, where, play, result, analyse, close, analysisBox);

  const board = new BoardView(boardBox, data.game, { flipped, portrait: portraitQuery().matches });
  const history = new HistoryPanel(historyBox, { onPick: (i) => go(i) });
  history.set(states);

  // Autoplay: a step forward every so often until the end, or until stopped.
  function toggleAuto() {
    if (autoTimer) stopAuto();
    else {
      if (index >= states.length - 1) go(0);
      autoTimer = setInterval(() => {
        if (index >= states.length - 1 || !container.isConnected || container.hidden) stopAuto();
        else go(index + 1, true);
      }, settings.speed() === "off" ? 500 : 1300);
      text();
    }
  }

  function stopAuto() {
    clearInterval(autoTimer);
    autoTimer = null;
    text();
  }
  slider.addEventListener("input", () => go(Number(slider.value)));
  container.addEventListener("keydown", (e) => {
    if (e.target === slider) return;
    if (e.key === "ArrowRight") go(index + 1, true);
    else if (e.key === "ArrowLeft") go(index - 1);
  });

  function text() {
    const game = known(`game.${data.game}`) ? t(`game.${data.game}`) : data.game;
    title.textContent = `${t("replay.heading")} · ${game}`;
    const n = states.length - 1;
    where.textContent = index === 0 ? t("replay.start") : t("replay.position", { i: index, n });
    const s = states[index];
    summary.textContent = s?.last ? lastMoveSummary(s.last, sideName) : "";
    const end = index === n && data.outcome ? resultText({ outcome: data.outcome, to_move: null }, [], sideName) : "";
    result.textContent = end;
    result.hidden = !end;
    unfinished.textContent = data.outcome ? "" : t("replay.unfinished");
    unfinished.hidden = Boolean(data.outcome);
    auto.textContent = t(autoTimer ? "replay.stop" : "replay.auto");
    auto.setAttribute("aria-pressed", autoTimer ? "true" : "false");
    container.dataset.auto = autoTimer ? "1" : "0";
    for (const el of container.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
    container.dataset.index = String(index);
    container.dataset.count = String(states.length);
  }

  async function go(i, animateStep = false) {
    if (!states.length) return;
    i = Math.max(0, Math.min(states.length - 1, i));
    token.cancelled = true;
    token = { cancelled: false };
    const mine = token;
    const from = states[index];
    index = i;
    slider.value = String(i);
    history.select(i);
    text();
    const to = states[i];
    if (animateStep && i > 0 && from === states[i - 1] && to.last) {
      board.show(from.board);
      board.mark({});
      await animate(board, to.last.steps, { speed: settings.speed() === "off" ? "off" : "fast", token: mine });
      if (mine.cancelled) return;
    }
    board.show(to.board);
    board.mark(lastMovePits(to.last));
  }

  onLangChange(() => {
    history.render();
    text();
    board.refreshLabels();
    board.showInfo();
  });
  go(0);
  return { go, board };
}

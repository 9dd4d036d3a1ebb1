// The computer's analysis of a game: an evaluation graph over the plies (drawn here, as SVG), the
// moves with their labels (inaccuracy, mistake, blunder), and for any ply the position before it
// with the move played and the best move marked; "Show me" plays the best line. The server does
// every bit of judging (POST /api/analysis, server/PROTOCOL.md); this view only draws it.
//
// openAnalysis(container, record, view): `record` is the game record (text or parsed JSON) the
// server analyses, `view` the replay of it (POST /api/replay: each position's board and the steps
// of the move that led there).

import { animate } from "./anim.js";
import { settings } from "./api.js";
import { BoardView, portraitQuery } from "./board.js";
import { h } from "./dom.js";
import { known, onLangChange, t, tn } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const POLL_MS = 1000;
const MARK = { inaccuracy: "?!", mistake: "?", blunder: "??" };

async function call(method, url, body, headers = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const r = await fetch(url, init);
  let data = null;
  try {
    data = await r.json();
  } catch {
    data = null;
  }
  return { status: r.status, data, retry: Number(r.headers.get("retry-after")) || 10 };
}

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

// A value in seeds as words: "+3.5" from South's view, or who wins by force.
function valueText(value, winner) {
  if (winner === 0 || winner === 1) return t("analysis.wins", { side: t(`side.${winner}`) });
  const v = Math.round(value * 10) / 10;
  return tn("analysis.seeds", v, { v: v > 0 ? `+${v}` : String(v) });
}

export function openAnalysis(container, record, view, { onClose = () => {}, flipped = false } = {}) {
  const states = view.states || [];
  let analysis = null;
  let selected = null; // the ply looked at
  let phase = "running"; // running | busy | done | failed | cancelled
  let note = { key: "analysis.starting", vars: {} };
  let key = null;
  let cancelToken = null; // what our POST was answered with: only its holder may cancel
  let timer = null;
  let token = { cancelled: false };
  let closed = false;

  const title = h("h2", {});
  const status = h("p", { class: "analysis-status", role: "status", "aria-live": "polite" });
  const bar = h("progress", { class: "analysis-progress", max: 1, value: 0 });
  const graphBox = h("div", { class: "analysis-graph" });
  const boardBox = h("div", { class: "board-wrap analysis-board" });
  const caption = h("p", { class: "analysis-caption", "aria-live": "polite" });
  const counts = h("p", { class: "analysis-counts" });
  const list = h("ol", { class: "analysis-plies" });
  const button = (k, onclick, cls = "secondary") =>
    h("button", { type: "button", class: cls, "data-i18n": k, onclick }, t(k));
  const prev = button("analysis.prev", () => pick(selected === null ? 1 : selected - 1), "secondary analysis-prev");
  const next = button("analysis.next", () => pick(selected === null ? 1 : selected + 1), "secondary analysis-next");
  const worst = button("analysis.nextError", () => pickNextError(), "secondary analysis-next-error");
  const showMe = button("analysis.showMe", () => playLine(), "analysis-show");
  const back = button("analysis.back", () => pick(selected), "secondary analysis-back");
  const retry = button("analysis.retry", () => start(), "analysis-retry");
  const close = button("analysis.close", () => stop(true), "secondary analysis-close");
  const controls = h("div", { class: "analysis-controls" }, prev, next, worst, showMe, back);
  const body = h("div", { class: "play analysis-body" },
    h("div", { class: "play-board" }, boardBox, caption, controls),
    h("div", { class: "analysis-side" }, counts, list));
  container.replaceChildren(title, status, bar, retry, graphBox, body, close);
  container.classList.add("analysis");
  const board = new BoardView(boardBox, view.game, { flipped, portrait: portraitQuery().matches });

  function setPhase(p, n = note) {
    phase = p;
    note = n;
    container.dataset.state = p;
    render();
  }

  async function start() {
    clearTimeout(timer);
    setPhase("running", { key: "analysis.starting", vars: {} });
    cancelToken = null;
    let r;
    try {
      r = await call("POST", "/api/analysis", record);
    } catch (err) {
      return setPhase("failed", { key: "analysis.failed", vars: { msg: err.message } });
    }
    answer(r);
  }

  async function poll() {
    if (closed || !key) return;
    let r;
    try {
      r = await call("GET", `/api/analysis/${key}`);
    } catch {
      timer = setTimeout(poll, POLL_MS * 3); // the link dropped: keep asking
      return;
    }
    answer(r);
  }

  function answer(r) {
    if (closed) return;
    const d = r.data || {};
    if ((r.status === 429 || r.status === 503) && d.code === "busy") {
      setPhase("busy", { key: "analysis.busy", vars: { s: r.retry } });
      timer = setTimeout(start, r.retry * 1000);
      return;
    }
    if (r.status >= 400 || !d.status) {
      return setPhase("failed", { key: "analysis.failed", vars: { msg: d.message || r.status } });
    }
    key = d.key;
    if (d.cancel_token) cancelToken = d.cancel_token; // in the POST's answer, not in a GET's
    if (d.status === "running") {
      const done = d.done || 0; // fields at their defaults are left out of the answer
      const total = d.total || 0;
      bar.max = Math.max(1, total);
      bar.value = Math.min(done, bar.max);
      setPhase("running", { key: "analysis.running", vars: { done, total } });
      timer = setTimeout(poll, POLL_MS);
    } else if (d.status === "done") {
      analysis = d.analysis;
      setPhase("done", { key: "analysis.done", vars: {} });
      drawGraph();
      drawList();
      pick(firstError() ?? 1);
      reveal();
    } else {
      setPhase(d.status, { key: `analysis.${d.status}`, vars: { msg: d.message || "" } });
    }
  }

  function stop(byUser) {
    closed = true;
    clearTimeout(timer);
    token.cancelled = true;
    if (phase === "running" && key && cancelToken) {
      // Withdraws only this page's wish: another asker's keeps the analysis running.
      call("DELETE", `/api/analysis/${key}`, undefined, { Authorization: `Bearer ${cancelToken}` })
        .catch(() => {});
    }
    if (byUser) onClose();
  }

  // The box was scrolled to when it opened, still short (on a phone the page could not scroll
  // that far): once the graph is drawn, bring it into view.
  function reveal() {
    const inView = (el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    };
    if (!container.isConnected || container.hidden || inView(graphBox)) return;
    status.scrollIntoView({ block: "start" });
    if (!inView(graphBox)) graphBox.scrollIntoView({ block: "end" });
  }

  // ---------------------------------------------------------------- drawing

  function render() {
    const game = known(`game.${view.game}`) ? t(`game.${view.game}`) : view.game;
    title.textContent = `${t("analysis.heading")} · ${game}`;
    status.textContent = t(note.key, note.vars);
    bar.hidden = phase !== "running";
    retry.hidden = !(phase === "failed" || phase === "cancelled");
    body.hidden = phase !== "done";
    graphBox.hidden = phase !== "done";
    for (const el of container.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
    if (phase === "done") {
      drawCounts();
      drawCaption();
    }
  }

  // South's expected score over the positions: up is good for South. Each labelled ply has a dot.
  function drawGraph() {
    const W = 600;
    const H = 140;
    const n = analysis.scores.length;
    const x = (i) => (n > 1 ? (i / (n - 1)) * W : 0);
    const y = (s) => H - s * H;
    const points = analysis.scores.map((s, i) => `${x(i).toFixed(1)},${y(s).toFixed(1)}`);
    const area = `M0,${H} L${points.join(" L")} L${W},${H} Z`;
    const dots = analysis.plies
      .filter((p) => p.label)
      .map((p) =>
        svg("circle", {
          cx: x(p.ply).toFixed(1), cy: y(analysis.scores[p.ply]).toFixed(1), r: 5,
          class: `dot ${p.label}`, "data-ply": p.ply,
        }, svg("title", {}, `${p.ply}. ${p.played} ${MARK[p.label]}`)),
      );
    const cursor = svg("line", { class: "cursor", x1: 0, x2: 0, y1: 0, y2: H });
    const graph = svg("svg", {
      viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", role: "img", class: "eval-graph",
      "aria-label": t("analysis.graph"),
    },
    svg("rect", { class: "north-half", x: 0, y: 0, width: W, height: H / 2 }),
    svg("path", { class: "south-area", d: area }),
    svg("line", { class: "mid", x1: 0, x2: W, y1: H / 2, y2: H / 2 }),
    svg("polyline", { class: "line", points: points.join(" ") }),
    cursor, ...dots);
    graph.addEventListener("click", (e) => {
      const box = graph.getBoundingClientRect();
      const i = Math.round(((e.clientX - box.left) / box.width) * (n - 1));
      pick(Math.max(1, i));
    });
    graphBox.replaceChildren(
      h("span", { class: "graph-end south" }, t("analysis.southUp")),
      graph,
      h("span", { class: "graph-end north" }, t("analysis.northDown")),
    );
  }

  function drawList() {
    list.replaceChildren(
      ...analysis.plies.map((p) =>
        h("li", { class: `side${p.side}` },
          h("button", {
            type: "button",
            class: `an-ply${p.label ? ` ${p.label}` : ""}`,
            dataset: { ply: p.ply, label: p.label || "" },
            onclick: () => pick(p.ply),
          },
          h("span", { class: "an-no" }, `${p.ply}.`),
          h("span", { class: "an-move" }, p.played),
          p.label ? h("span", { class: `tag ${p.label}` }, MARK[p.label]) : null,
          p.label ? h("span", { class: "an-label" }, t(`analysis.${p.label}`)) : null)),
      ),
    );
  }

  function drawCounts() {
    const c = [0, 1].map((side) => {
      const of = (label) => analysis.plies.filter((p) => p.side === side && p.label === label).length;
      return t("analysis.counts", {
        side: t(`side.${side}`),
        i: tn("analysis.inaccuracies", of("inaccuracy")),
        m: tn("analysis.mistakes", of("mistake")),
        b: tn("analysis.blunders", of("blunder")),
      });
    });
    counts.replaceChildren(...c.map((line) => h("span", {}, line)));
  }

  function drawCaption() {
    const p = plyOf(selected);
    if (!p) return;
    const side = t(`side.${p.side}`);
    const parts = [t("analysis.before", { i: p.ply, side, value: valueText(p.before, analysis.winners[p.ply - 1]) })];
    if (p.forced) parts.push(t("analysis.forced", { move: p.played }));
    else if (p.played === p.best) parts.push(t("analysis.wasBest", { move: p.played }));
    else {
      const how = p.label ? t(`analysis.${p.label}`) : t("analysis.ok");
      parts.push(t("analysis.played", { move: p.played, how, loss: tn("analysis.loss", p.loss) }));
      parts.push(t("analysis.best", { move: p.best }));
    }
    caption.textContent = parts.join(" ");
  }

  function plyOf(i) {
    return analysis?.plies[i - 1] || null;
  }

  function firstError() {
    return analysis.plies.find((p) => p.label === "blunder")?.ply ?? analysis.plies.find((p) => p.label)?.ply;
  }

  function pickNextError() {
    const after = analysis.plies.find((p) => p.label && p.ply > (selected ?? 0));
    pick((after || analysis.plies.find((p) => p.label) || { ply: 1 }).ply);
  }

  // Show the position before ply i with the move played and the best move marked.
  function pick(i) {
    if (!analysis || !analysis.plies.length) return;
    i = Math.max(1, Math.min(analysis.plies.length, i));
    token.cancelled = true;
    token = { cancelled: false };
    selected = i;
    const p = plyOf(i);
    board.show(states[i - 1].board);
    board.mark({});
    markPits(p.played_pit, p.played === p.best ? null : p.best_pit);
    for (const b of list.querySelectorAll("button.an-ply")) {
      const on = Number(b.dataset.ply) === i;
      b.classList.toggle("selected", on);
      if (on) b.setAttribute("aria-current", "step");
      else b.removeAttribute("aria-current");
    }
    const cursor = graphBox.querySelector("line.cursor");
    const n = analysis.scores.length;
    if (cursor) for (const a of ["x1", "x2"]) cursor.setAttribute(a, String((i / Math.max(1, n - 1)) * 600));
    showMe.hidden = !p.line?.length;
    back.hidden = true;
    container.dataset.ply = String(i);
    container.dataset.showing = "position";
    render();
  }

  function markPits(played, best) {
    for (const c of board.cells.values()) {
      c.el.classList.toggle("an-played", c.name === played);
      c.el.classList.toggle("an-best", c.name === best);
      if (c.name === best) c.parts.mark.textContent = "★";
      else if (c.name === played) c.parts.mark.textContent = "▲";
    }
  }

  // "Show me": the best line from the position before the selected ply, move by move.
  async function playLine() {
    const p = plyOf(selected);
    if (!p?.line?.length) return;
    token.cancelled = true;
    token = { cancelled: false };
    const mine = token;
    back.hidden = false;
    showMe.hidden = true;
    container.dataset.showing = "line";
    caption.textContent = t("analysis.line", { moves: p.line.map((m) => m.move).join(" ") });
    board.show(states[selected - 1].board);
    const speed = settings.speed() === "off" ? "off" : "fast";
    for (const m of p.line) {
      board.mark({});
      markPits(null, m.pit);
      await animate(board, m.steps, { speed, token: mine });
      if (mine.cancelled) return;
      board.show(m.board);
      await new Promise((r) => setTimeout(r, speed === "off" ? 150 : 500));
      if (mine.cancelled) return;
    }
    container.dataset.showing = "line-done";
  }

  onLangChange(() => {
    if (phase === "done") {
      drawGraph();
      drawList();
      if (selected) pick(selected);
    }
    board.refreshLabels();
    board.showInfo();
    render();
  });
  start();
  return { stop: () => stop(false), pick };
}

// The move history panel: every ply of the game, by side. Moves are numbered by ply, as
// everywhere else (the analysis, the replay, "move 4 of 10"): move 4 is the fourth move made,
// whoever made it. Plies one side makes in a row (Kalah's extra turns) share one line; a Bao
// move's laps (captures, relays, where it stopped) are listed under it; captures, NYAKUA, tax and safari are said in words. Choosing a
// ply asks the page to show the position after it (read-only); the live page and the replay use
// the same panel.
//
// Entries are what the server sends: `states[0]` is the start, `states[i]` the position after
// ply i ({board, to_move, last: {move, side, steps}}), from POST /api/replay for a record, then
// grown by each live state.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { plyFacts, plyLaps } from "./words.js";

export class HistoryPanel {
  // onPick(i): show the position after ply i (0: the start).
  constructor(container, { onPick = () => {} } = {}) {
    this.container = container;
    this.onPick = onPick;
    this.states = [];
    this.selected = null; // the ply being looked at, or null for the latest
    this.list = h("ol", { class: "history-list", "aria-label": t("history.heading") });
    this.empty = h("p", { class: "muted history-empty" });
    container.replaceChildren(this.empty, this.list);
    container.classList.add("history");
  }

  get plies() {
    return Math.max(0, this.states.length - 1);
  }

  set(states) {
    this.states = states.slice();
    this.render();
  }

  // The next ply, as a live state brings it.
  push(state) {
    this.states.push({ board: state.board, to_move: state.to_move, last: state.last });
    this.render();
  }

  // An undo or a takeback: keep the first `plies` plies.
  truncate(plies) {
    this.states.length = Math.min(this.states.length, plies + 1);
    if (this.selected !== null && this.selected > this.plies) this.selected = null;
    this.render();
  }

  select(i) {
    this.selected = i;
    for (const b of this.list.querySelectorAll("button.ply")) {
      const on = Number(b.dataset.ply) === i;
      b.classList.toggle("selected", on);
      if (on) b.setAttribute("aria-current", "step");
      else b.removeAttribute("aria-current");
    }
    this.reveal(this.list.querySelector("button.ply.selected"));
  }

  // Scroll the list (never the page) so that `el` is in view.
  reveal(el) {
    if (!el) return;
    const list = this.list;
    const top = el.offsetTop;
    if (top < list.scrollTop || top + el.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = Math.max(0, top - list.clientHeight / 2);
    }
  }

  render() {
    const sideName = (side) => t(`side.${side}`);
    const groups = [];
    for (let i = 1; i < this.states.length; i += 1) {
      const last = this.states[i].last;
      if (!last) continue;
      const prev = groups[groups.length - 1];
      if (prev && prev.side === last.side) prev.plies.push(i);
      else groups.push({ side: last.side, plies: [i] });
    }
    this.empty.textContent = t("history.none");
    this.empty.hidden = groups.length > 0;
    this.list.setAttribute("aria-label", t("history.heading"));
    this.list.replaceChildren(
      ...groups.map((g, n) =>
        h("li", { class: `turn side${g.side}`, dataset: { side: g.side, turn: n + 1 } },
          h("span", { class: "turn-side" }, sideName(g.side)),
          h("span", { class: "turn-plies" }, ...g.plies.map((i, k) => this.plyButton(i, k, g.plies.length, sideName)))),
      ),
    );
    if (this.selected !== null) this.select(this.selected);
    else this.list.scrollTop = this.list.scrollHeight;
  }

  plyButton(i, k, count, sideName) {
    const last = this.states[i].last;
    const facts = plyFacts(last, sideName);
    const laps = plyLaps(last);
    const marks = [];
    if (facts.some((f) => f === t("last.nyakua"))) marks.push(h("span", { class: "tag nyakua" }, "NYAKUA"));
    const word = h("span", { class: "ply-facts" }, facts.join(" · "));
    const lapLine = laps.length > 1 || laps.some((l) => l.kind !== "stop")
      ? h("span", { class: "ply-laps", "aria-hidden": "true" },
        ...laps.map((l) => h("span", { class: `lap lap-${l.kind}` }, l.n ? `${l.text}(${l.n})` : l.text)))
      : null;
    // The button's text is its name (no aria-label), so what is read out starts with what is
    // shown: the side (for screen readers only), then "3. A captured 2 · extra turn".
    const chained = count > 1 ? t("history.chain", { k: k + 1, n: count }) : "";
    return h("button", {
      type: "button",
      class: `ply${facts.length ? " has-facts" : ""}${laps.some((l) => l.kind === "capture") ? " capture" : ""}`,
      dataset: { ply: i, move: last.move },
      onclick: () => this.onPick(i),
    },
    k > 0 ? h("span", { class: "chain", "aria-hidden": "true" }, "↪") : null,
    h("span", { class: "sr-only" }, `${sideName(last.side)} `),
    h("span", { class: "ply-no" }, `${i}.`),
    h("span", { class: "ply-move" }, last.move),
    ...marks,
    facts.length ? word : null,
    chained ? h("span", { class: "sr-only" }, `, ${chained}`) : null,
    lapLine);
  }
}

// Keeps a panel in step with a live room: the next ply is appended; an undo or takeback cuts
// it; anything else (joining mid-game, a rematch, states missed while the link was down) loads
// the game's states again (the record, replayed by the server).
export class HistoryFeed {
  // load(): the current game's states; current(): the state on show; onCut(plies): plies were
  // taken back.
  constructor(panel, { load, current, onCut = () => {} }) {
    this.panel = panel;
    this.load = load;
    this.current = current;
    this.onCut = onCut;
    this.gameNo = null;
    this.loading = false;
    this.again = false;
  }

  track(s) {
    const panel = this.panel;
    if (this.gameNo !== s.game_no || !panel.states.length) return this.sync(s);
    const known = panel.states[s.plies]?.last;
    const differs = s.last && (!known || known.move !== s.last.move || known.side !== s.last.side);
    if (s.plies < panel.plies) {
      panel.truncate(s.plies);
      this.onCut(s.plies);
    } else if (s.plies === panel.plies + 1 && s.last) {
      panel.push(s);
    } else if (s.plies !== panel.plies || differs) {
      this.sync(s);
    }
  }

  async sync(s) {
    this.gameNo = s.game_no;
    if (s.plies === 0) {
      this.panel.set([{ board: s.board, to_move: s.to_move, last: null }]);
      return;
    }
    if (this.loading) {
      this.again = true;
      return;
    }
    this.loading = true;
    try {
      const states = await this.load();
      const now = this.current();
      if (now && now.game_no === s.game_no) {
        this.panel.set(states.slice(0, now.plies + 1));
        if (this.panel.plies < now.plies) this.again = true;
      }
    } catch {
      // The record could not be had just now (busy server, link down): try on the next state.
      this.gameNo = null;
    } finally {
      this.loading = false;
      if (this.again) {
        this.again = false;
        setTimeout(() => this.current() && this.track(this.current()), 500);
      }
    }
  }
}

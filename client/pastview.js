// Looking at a past position from the move history: the board shows the position after the
// chosen ply, read-only, with a bar saying so and a way back to the live game.

import { lastMovePits } from "./board.js";
import { $ } from "./dom.js";
import { lang, t } from "./i18n.js";

export class PastView {
  // history: the HistoryPanel; board(): the BoardView; live(): the state on show; render():
  // redraw the page; onEnter(): stop what the live board was doing (choices, animation).
  constructor({ history, board, live, render, onEnter = () => {} }) {
    Object.assign(this, { history, board, live, render, onEnter });
    this.index = null; // the ply looked at, or null for the live board
  }

  get active() {
    return this.index !== null;
  }

  open(i) {
    const live = this.live();
    if (!live || !this.history.states[i]) return;
    if (i === live.plies && live.plies === this.history.plies) {
      this.close();
      return;
    }
    this.index = i;
    this.history.select(i);
    this.onEnter();
    this.draw();
    this.render();
  }

  close() {
    if (this.index === null) return;
    this.index = null;
    this.history.select(null);
    const live = this.live();
    if (this.board() && live) this.board().show(live.board);
    this.render();
  }

  draw() {
    const st = this.history.states[this.index];
    const board = this.board();
    if (!board || !st) return;
    board.show(st.board);
    board.mark({ lit: new Set(), ...lastMovePits(st.last) });
    const last = st.last;
    const where = last
      ? t("history.viewing", { i: this.index, n: this.history.plies, side: t(`side.${last.side}`), move: last.move })
      : t("history.viewingStart");
    // Only a game still being played goes on while one looks back.
    const live = this.live();
    const goesOn = live && !live.outcome ? t("history.goesOn") : "";
    $("#viewing-text").textContent = [where, goesOn].filter(Boolean).join(lang() === "ja" ? "" : " ");
  }
}

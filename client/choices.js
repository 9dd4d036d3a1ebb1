// The choice step: when one pit starts several moves (Bao's directions, kichwa, stop or
// safari), a box lists them in words with their notation; choosing one plays it.

import { $, h, show } from "./dom.js";
import { t } from "./i18n.js";
import { choiceLabels } from "./words.js";

export class ChoiceBox {
  // onPlay(move) plays the chosen move; focusPit(pit) returns the focus to the pit on closing.
  constructor({ onPlay, focusPit }) {
    this.onPlay = onPlay;
    this.focusPit = focusPit;
    this.pit = null; // the pit whose choices are open
    this.moves = [];
    $("#choice-cancel").addEventListener("click", () => this.close());
    $("#choices").addEventListener("keydown", (e) => {
      if (e.key === "Escape") this.close();
    });
  }

  open(pit, moves) {
    this.pit = pit;
    this.moves = moves;
    $("#choices-heading").textContent = t("choose.heading", { pit });
    const labels = choiceLabels(moves);
    $("#choice-buttons").replaceChildren(
      ...moves.map((l, i) =>
        h(
          "button",
          { type: "button", class: "choice", dataset: { move: l.move }, onclick: () => this.onPlay(l.move) },
          labels[i] || l.move,
          h("span", { class: "notation" }, l.move),
        ),
      ),
    );
    show($("#choices"), true);
    $("#choice-buttons button")?.focus();
  }

  // Words again in the page's (new) language.
  refresh() {
    if (this.pit !== null) this.open(this.pit, this.moves);
  }

  close() {
    if (this.pit === null) return;
    const pit = this.pit;
    this.pit = null;
    show($("#choices"), false);
    this.focusPit(pit);
  }
}

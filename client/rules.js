// The "How to play" page (/static/rules.html?game=kalah): one game's rules in the page's
// language, with small diagrams drawn by the board code from positions the engine produced
// (rules-diagrams.js). The words are in rules-text.js.

import { BoardView, lastMovePits } from "./board.js";
import { $, h } from "./dom.js";
import { applyI18n, lang, languagePicker, onLangChange, t } from "./i18n.js";
import { DIAGRAMS } from "./rules-diagrams.js";
import { DIAGRAM, PAGES, TEXT } from "./rules-text.js";

const asked = new URLSearchParams(location.search).get("game");
const game = Object.hasOwn(PAGES, asked ?? "") ? asked : "kalah";

function diagram(id) {
  const d = DIAGRAMS[id];
  const wrap = h("div", { class: "board-wrap" });
  const view = new BoardView(wrap, d.game);
  view.show(d.board);
  view.mark(lastMovePits(d.last));
  view.grid.setAttribute("aria-label", t("rules.diagram", { game: t(`game.${d.game}`) }));
  return { wrap, view };
}

function draw() {
  const text = TEXT[lang()] ?? TEXT.en;
  const title = t("rules.title", { game: t(`game.${game}`) });
  document.title = `nyumba · ${title}`;
  $("#rules-title").textContent = title;
  $("#rules-intro").textContent = text[game].intro;
  $("#rules-games").replaceChildren(
    ...Object.keys(PAGES).map((g) =>
      h("a", { href: `?game=${g}`, class: "rules-game", "aria-current": g === game ? "page" : null }, t(`game.${g}`)),
    ),
  );
  $("#rules-body").replaceChildren(
    ...PAGES[game].map((id) => {
      const sec = text[id];
      const parts = [h("h2", {}, sec.h), ...sec.p.map((p) => h("p", {}, p))];
      if (DIAGRAM[id]) {
        const { wrap } = diagram(DIAGRAM[id]);
        parts.push(h("figure", { class: "diagram", dataset: { diagram: DIAGRAM[id] } }, wrap, h("figcaption", {}, sec.c)));
      }
      return h("section", { class: "rules-section", id, dataset: { section: id } }, ...parts);
    }),
  );
  document.body.dataset.ready = "1";
}

languagePicker($("#lang"));
applyI18n(document);
onLangChange(draw);
draw();

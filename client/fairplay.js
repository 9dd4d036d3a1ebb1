// "Fair play" (/fair-play): what is rated, aborts, leaving, cooldowns, ratings and arenas, in the page's
// language. The text is docs/fairplay.md and docs/fairplay.ja.md, carried in the page.

import { $, show } from "./dom.js";
import { applyI18n, lang, languagePicker, onLangChange, t } from "./i18n.js";

function draw() {
  document.title = `nyumba · ${t("fairplay.title")}`;
  show($("#fairplay-en"), lang() !== "ja");
  show($("#fairplay-ja"), lang() === "ja");
}

languagePicker($("#lang"));
applyI18n(document);
onLangChange(draw);
draw();
document.body.dataset.ready = "1";

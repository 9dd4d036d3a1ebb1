// "What we record" (/static/privacy.html, also /privacy): what the server counts, what the page
// reports and what is never recorded, in the page's language, with the switch that stops the
// page's reports (reports.js); then what the archive keeps of players and their games, and for
// how long, with the button that deletes this browser's player (identity.js).

import { settings } from "./api.js";
import { $, show } from "./dom.js";
import { applyI18n, lang, languagePicker, onLangChange, t } from "./i18n.js";
import { wireMe } from "./identity.js";

function draw() {
  document.title = `nyumba · ${t("settings.reportsWhat")}`;
  show($("#privacy-en"), lang() !== "ja");
  show($("#privacy-ja"), lang() === "ja");
}

languagePicker($("#lang"));
applyI18n(document);
onLangChange(draw);
draw();
const reports = $("#reports");
reports.checked = settings.reports();
reports.addEventListener("change", () => settings.setReports(reports.checked));
wireMe($("#me"));
document.body.dataset.ready = "1";

// "What we record" (/static/privacy.html): what the server counts, what the page reports and
// what is never recorded, in the page's language, with the switch that stops the page's reports
// (reports.js). This page itself sends nothing.

import { settings } from "./api.js";
import { $ } from "./dom.js";
import { applyI18n, languagePicker, onLangChange, t } from "./i18n.js";

function draw() {
  document.title = `nyumba · ${t("settings.reportsWhat")}`;
}

languagePicker($("#lang"));
applyI18n(document);
onLangChange(draw);
draw();
const reports = $("#reports");
reports.checked = settings.reports();
reports.addEventListener("change", () => settings.setReports(reports.checked));
document.body.dataset.ready = "1";

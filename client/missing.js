// The page an archive address answers (with 404) when it names nothing: /g/{id} of a game the
// archive does not have, /p/{id} of a player never made or deleted, /t/{id} of no arena. It
// says which, and why that may be, in the page's language.

import { $ } from "./dom.js";
import { t } from "./i18n.js";
import { startPage } from "./archivepage.js";

const KINDS = { p: "player", t: "arena" };
const kind = KINDS[location.pathname.split("/")[1]] || "game";

function draw() {
  $("#missing-title").textContent = t(`missing.${kind}`);
  $("#missing-why").textContent = t(`missing.${kind}Why`);
  document.title = `nyumba · ${t(`missing.${kind}`)}`;
}

startPage(draw);
draw();
document.body.dataset.ready = "1";

// What nyumba keeps and for how long, in the reader's language, with the button that deletes
// this browser's player (identity.js).

import { $, show } from "./dom.js";
import { lang } from "./i18n.js";
import { wireMe } from "./identity.js";
import { startPage } from "./archivepage.js";

function draw() {
  show($("#privacy-en"), lang() !== "ja");
  show($("#privacy-ja"), lang() === "ja");
}

startPage(draw);
draw();
wireMe($("#me"));

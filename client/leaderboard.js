// The leaderboards (/leaderboard/{game}): the best established ratings of each game.

import { getGames } from "./api.js";
import { $, h, show } from "./dom.js";
import { lang, t } from "./i18n.js";
import { fail, gameTitle, getJSON, pathId, startPage } from "./archivepage.js";
import { ratingMark } from "./seatratings.js";

let games = [];
let rows = [];
let loaded = false; // rows are the server's answer for the game shown
const current = () => $("#board-game").value || pathId() || games[0]?.name;

function draw() {
  $("#board-game").replaceChildren(...games.map((g) => h("option", { value: g.name, selected: g.name === current() }, gameTitle(g.name))));
  // Nobody listed: say so, and why, rather than a table of headers.
  const empty = loaded && rows.length === 0;
  $("#board-empty-text").textContent = t("board.empty", { game: gameTitle(current()) });
  $("#board-rule").href = `/fair-play#leaderboard-rule-${lang() === "ja" ? "ja" : "en"}`;
  show($("#board-empty"), empty);
  show($("#board"), rows.length > 0);
  $("#board").replaceChildren(
    h("tr", {}, h("th", {}, "#"), h("th", {}, t("archive.player")), h("th", {}, t("archive.rating")), h("th", {}, t("archive.gamesPlayed"))),
    ...rows.map((r, i) =>
      h("tr", {}, h("td", {}, String(i + 1)),
        h("td", {}, h("a", { href: `/p/${encodeURIComponent(r.player)}` }, r.name || t("me.anonymous"))),
        h("td", {}, ratingMark(r.rating, r.provisional)), h("td", {}, String(r.games)))),
  );
}

async function load(game) {
  loaded = false;
  try {
    rows = await getJSON(`/api/leaderboard/${encodeURIComponent(game)}`);
    loaded = true; // an archive that does not answer is not an empty leaderboard
  } catch (err) {
    rows = [];
    fail(err);
  }
  draw();
  document.body.dataset.ready = "1";
}

async function main() {
  startPage(draw);
  games = await getGames();
  const game = pathId() || games[0].name;
  draw();
  $("#board-game").value = game;
  $("#board-game").addEventListener("change", (e) => {
    history.replaceState(null, "", `/leaderboard/${encodeURIComponent(e.target.value)}`);
    load(e.target.value);
  });
  load(game);
}

main();

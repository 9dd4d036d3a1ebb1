// A player's page (/p/{id}): their ratings per game and their games, newest first, a page at a
// time, each with its opponent, result and rating change, linking to the game's page.

import { $, h, show } from "./dom.js";
import { t } from "./i18n.js";
import { change, fail, gameTitle, getJSON, pathId, startPage, when } from "./archivepage.js";
import { ratingMark } from "./seatratings.js";

const id = pathId();
const page = Math.max(0, Number(new URLSearchParams(location.search).get("page")) || 0);
let shown = null;

function result(g) {
  if (g.winner === null || g.winner === undefined) return t("archive.draw");
  return t(g.winner === g.side ? "archive.won" : "archive.lost");
}

function opponent(g) {
  const o = g.opponent;
  if (!o) return t("me.anonymous");
  if (o.holder === "computer") return t("seat.computer", { level: t(`level.${o.level}`) });
  const name = o.name || t("me.anonymous");
  return o.player ? h("a", { href: `/p/${encodeURIComponent(o.player)}` }, name) : name;
}

// A game's line begins with a link to its page: the game and how it ended for this player. A
// game they played alone on one device (both seats theirs, listed once) says which side won.
function linked(g) {
  const link = (words) => h("a", { href: `/g/${encodeURIComponent(g.id)}`, class: "game-link" }, `${gameTitle(g.game)} · ${words}`);
  if (g.mode !== "local") return [link(result(g)), " ", t("archive.against"), " ", opponent(g)];
  const won = g.winner === null || g.winner === undefined ? t("archive.draw") : t("player.sideWon", { side: t(`side.${g.winner}`) });
  return [link(won), " · ", t("player.oneDevice")];
}

function draw() {
  if (!shown) return;
  const title = shown.name || t("player.unnamed");
  $("#player-name").textContent = title;
  document.title = `nyumba · ${title}`;
  $("#player-unnamed").textContent = t("player.unnamedNote");
  show($("#player-unnamed"), !shown.name);
  $("#player-since").textContent = t("archive.since", { when: when(shown.created_ms) });
  $("#player-no-ratings").textContent = t("player.noRatings");
  show($("#player-no-ratings"), shown.ratings.length === 0);
  $("#player-ratings").replaceChildren(
    h("tr", {}, h("th", {}, t("start.game")), h("th", {}, t("archive.rating")), h("th", {}, t("archive.gamesPlayed"))),
    ...shown.ratings.map((r) => h("tr", { dataset: { game: r.game } }, h("td", {}, gameTitle(r.game)), h("td", {}, ratingMark(r.rating, r.provisional)), h("td", {}, String(r.games)))),
  );
  show($("#player-ratings"), shown.ratings.length > 0);
  $("#player-games").replaceChildren(
    ...(shown.games.length ? shown.games : [null]).map((g) =>
      g === null
        ? h("li", { class: "muted" }, t("archive.noGames"))
        : h("li", { dataset: { game: g.id } },
            ...linked(g),
            g.rated ? ` (${change(g.rating_before, g.rating_after)})` : "",
            h("span", { class: "muted" }, ` · ${when(g.ended_ms)}`)),
    ),
  );
  const newer = $("#newer");
  show(newer, page > 0);
  newer.href = `?page=${page - 1}`;
  const older = $("#older");
  show(older, shown.more);
  older.href = `?page=${page + 1}`;
}

async function main() {
  startPage(draw);
  try {
    shown = await getJSON(`/api/players/${encodeURIComponent(id)}?page=${page}`);
    draw();
    document.body.dataset.ready = "1";
  } catch (err) {
    fail(err);
  }
}

main();

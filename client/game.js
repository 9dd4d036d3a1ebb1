// A finished game's permanent page (/g/{id}): who played, the result, the replay with its move
// history and the computer's analysis (replay.js), download and share. The server sends the
// game and its record; POST /api/replay turns the record into the positions this page draws.

import { replay } from "./api.js";
import { $, h, show } from "./dom.js";
import { t, tn } from "./i18n.js";
import { openReplay } from "./replay.js";
import { change, fail, gameTitle, getJSON, pathId, startPage, when } from "./archivepage.js";
import { ratingMark } from "./seatratings.js";

const id = pathId();
let shown = null;

function seatLine(seat) {
  let who;
  if (seat.holder === "computer") who = t("seat.computer", { level: t(`level.${seat.level}`) });
  else who = seat.name || t("me.anonymous");
  const label = seat.player ? h("a", { href: `/p/${encodeURIComponent(seat.player)}`, class: "player-link" }, who) : h("span", {}, who);
  const moved = change(seat.rating_before, seat.rating_after);
  const rating = seat.rating_after != null ? [" ", ratingMark(seat.rating_after, seat.provisional), ` (${moved})`] : [];
  return h("span", { class: "game-seat", dataset: { side: seat.side } }, `${t(`side.${seat.side}`)}: `, label, rating);
}

function draw() {
  if (!shown) return;
  const g = shown.game;
  $("#game-title").textContent = `${gameTitle(g.game)} · ${t(g.rated ? "archive.rated" : "archive.casual")}`;
  document.title = `nyumba · ${gameTitle(g.game)}`;
  $("#game-players").replaceChildren(...g.seats.flatMap((s, i) => (i ? [" — ", seatLine(s)] : [seatLine(s)])));
  $("#game-when").textContent = tn("archive.ended", g.plies, { when: when(g.ended_ms) });
}

async function main() {
  startPage(draw);
  $("#game-download").href = `/api/archive/${encodeURIComponent(id)}/record`;
  const url = location.origin + location.pathname;
  $("#game-copy").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(url);
      $("#game-copy").textContent = t("room.copied");
    } catch {
      /* no clipboard: the address bar has the link */
    }
  });
  show($("#game-share"), Boolean(navigator.share));
  $("#game-share").addEventListener("click", () => navigator.share({ title: document.title, url }).catch(() => {}));
  try {
    shown = await getJSON(`/api/archive/${encodeURIComponent(id)}`);
    draw();
    const data = await replay(shown.record);
    const box = $("#replay");
    openReplay(box, data, { record: shown.record, onClose: () => show(box, false) });
    document.body.dataset.ready = "1";
  } catch (err) {
    fail(err);
  }
}

main();

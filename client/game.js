// A finished game's permanent page (/g/{id}): who played, the result, the replay with its move
// history and the computer's analysis (replay.js), download and share. The server sends the
// game and its record; POST /api/replay turns the record into the positions this page draws.

import { replay } from "./api.js";
import { $, h, show } from "./dom.js";
import { t, tn } from "./i18n.js";
import { openReplay } from "./replay.js";
import { change, fail, gameTitle, getJSON, pathId, startPage, when } from "./archivepage.js";
import { ratingMark } from "./seatratings.js";
import { resultText } from "./words.js";

const id = pathId();
const COPIED_MS = 2000; // how long the copy button says "Copied"
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
  // The result at the top, in the words the replay uses at the last move.
  $("#game-result").textContent = resultText({ outcome: g.outcome, to_move: null }, [], (side) => t(`side.${side}`));
  // An arena's game links to the arena's page (/t/{id}).
  show($("#game-arena"), Boolean(g.arena));
  if (g.arena) $("#game-arena-link").href = `/t/${encodeURIComponent(g.arena)}`;
}

// The replay is this page's body: closing it brings it back as the page opened (the first
// position, no autoplay, no analysis), never an empty page.
function openHere(box, data, { focus = false } = {}) {
  openReplay(box, data, { record: shown.record, onClose: () => openHere(box, data, { focus: true }) });
  if (focus) box.querySelector(".replay-first")?.focus(); // the pressed button is gone
}

async function main() {
  startPage(draw);
  $("#game-download").href = `/api/archive/${encodeURIComponent(id)}/record`;
  const url = location.origin + location.pathname;
  let copied = null;
  $("#game-copy").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(url);
    } catch {
      return; /* no clipboard: the address bar has the link */
    }
    const button = $("#game-copy");
    button.textContent = t("room.copied");
    clearTimeout(copied);
    copied = setTimeout(() => (button.textContent = t("archive.copyLink")), COPIED_MS);
  });
  show($("#game-share"), Boolean(navigator.share));
  $("#game-share").addEventListener("click", () => navigator.share({ title: document.title, url }).catch(() => {}));
  try {
    shown = await getJSON(`/api/archive/${encodeURIComponent(id)}`);
    draw();
    const data = await replay(shown.record);
    openHere($("#replay"), data);
    document.body.dataset.ready = "1";
  } catch (err) {
    fail(err);
  }
}

main();

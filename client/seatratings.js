// Ratings for the room's seats: asked of the server once per game and player
// (GET /api/ratings/{game}), then drawn from here; the seats redraw when they arrive.

import { h } from "./dom.js";
import { t } from "./i18n.js";

const known = new Map(); // "game player when" -> the rating, or null while asked or when unrated

// A rating as every page shows it: "1532", or "1532?" while provisional (deviation above 110,
// as the server says), the "?" explained in the page's language on hover and to screen readers.
export function ratingMark(rating, provisional) {
  const text = `${Math.round(rating)}${provisional ? "?" : ""}`;
  if (!provisional) return h("span", { class: "rating" }, text);
  const what = t("rating.provisional");
  return h("span", { class: "rating provisional", title: what, "aria-label": `${text} ${what}` }, text);
}

// `when`: what the rating is as of (it moves when a game ends: a new `when` asks again).
export function ratingOf(game, player, redraw, when = "") {
  const key = `${game} ${player} ${when}`;
  if (known.has(key)) return known.get(key);
  known.set(key, null);
  fetch(`/api/ratings/${encodeURIComponent(game)}?players=${encodeURIComponent(player)}`, { headers: { Accept: "application/json" } })
    .then((r) => (r.ok ? r.json() : {}))
    .then((found) => {
      if (found[player]) {
        known.set(key, found[player]);
        redraw?.();
      }
    })
    .catch(() => {});
  return null;
}

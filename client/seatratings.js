// Ratings for the room's seats: asked of the server once per game and player
// (GET /api/ratings/{game}), then drawn from here; the seats redraw when they arrive.

const known = new Map(); // "game player when" -> the rating, or null while asked or when unrated

export const ratingText = (r) => `${Math.round(r.rating)}${r.provisional ? "?" : ""}`;

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

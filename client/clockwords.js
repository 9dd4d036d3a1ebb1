// A clock setting in plain words for someone who has never seen "3+2": "3 minutes each, +2
// seconds a move". The short label (the server's, or "3+2" in the clock menu) stays beside it.

import { t, tn } from "./i18n.js";

// 180000 -> "3 minutes"; 4000 -> "4 seconds" (whole minutes said as minutes, the rest in seconds).
function span(ms) {
  if (ms >= 60000 && ms % 60000 === 0) return tn("clock.minutes", ms / 60000);
  return tn("clock.seconds", Math.round(ms / 100) / 10);
}

// {initial_ms, increment_ms} -> "3 minutes each, +2 seconds a move"; null -> "" (no clock).
export function clockWords(clock) {
  if (!clock) return "";
  const each = span(clock.initial_ms);
  return clock.increment_ms > 0
    ? t("clock.words", { each, plus: span(clock.increment_ms) })
    : t("clock.wordsFlat", { each });
}

// {initial_ms, increment_ms} -> "3+2" as the server labels a clock (server/rooms/clock.py:
// quarter minutes as fractions, "½+0"; any other time in seconds, "4s+0").
export function clockLabel(clock) {
  const quarters = clock.initial_ms / 15000;
  const initial = Number.isInteger(quarters)
    ? `${Math.floor(quarters / 4) || (quarters % 4 ? "" : "0")}${["", "¼", "½", "¾"][quarters % 4]}`
    : `${clock.initial_ms / 1000}s`;
  return `${initial}+${clock.increment_ms / 1000}`;
}

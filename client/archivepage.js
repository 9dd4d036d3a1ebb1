// What the archive's pages share (game.js, player.js, leaderboard.js, privacy.js): the page's
// language, a JSON fetch that says why it failed, dates, and ratings as players read them.

import { $, show } from "./dom.js";
import { applyI18n, known, lang, languagePicker, onLangChange, t } from "./i18n.js";

export async function getJSON(path) {
  const response = await fetch(path, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error(body?.message || `${response.status}`);
    error.code = body?.code || String(response.status);
    throw error;
  }
  return body;
}

// The page's id: the last part of its path (/g/{id}, /p/{id}, /leaderboard/{game}).
export const pathId = () => decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");

export const gameTitle = (game) => (known(`game.${game}`) ? t(`game.${game}`) : game);

export const when = (ms) =>
  new Date(ms).toLocaleString(lang() === "ja" ? "ja-JP" : "en-GB", { dateStyle: "medium", timeStyle: "short" });

export function change(before, after) {
  if (before == null || after == null) return "";
  const d = Math.round(after - before);
  return d >= 0 ? `+${d}` : `${d}`;
}

export function fail(err) {
  const note = $("#notice");
  note.textContent = known(`error.${err.code}`) ? t(`error.${err.code}`) : err.message;
  show(note, true);
}

// Wire the language picker; `draw` redraws the page's words when the language changes.
export function startPage(draw) {
  languagePicker($("#lang"));
  applyI18n(document);
  onLangChange(draw);
}

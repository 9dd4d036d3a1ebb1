// What the arena pages draw (arenas.js: the list; arena.js: one arena, /t/{id}): an arena's
// game, clock and times in words, its standings with each player's sheet of games, the podium
// and the games being played. The server keeps the standings and counts the points: this only
// shows them (server/PROTOCOL.md, "Arenas").

import { h } from "./dom.js";
import { t, tn } from "./i18n.js";
import { clockLabel, clockWords } from "./clockwords.js";
import { gameTitle } from "./archivepage.js";
import { ratingMark } from "./seatratings.js";

// "Kalah · 3+2 (3 minutes each, +2 seconds a move) · rated · berserk"
export function arenaWhat(spec) {
  const clock = t("lobby.clockWhat", { label: clockLabel(spec.clock), words: clockWords(spec.clock) });
  const parts = [gameTitle(spec.game), clock, t(spec.rated ? "archive.rated" : "archive.casual")];
  if (spec.berserk) parts.push(t("arena.berserkOn"));
  return parts.join(" · ");
}

// A time left: "4:05", "1:04:05", and over two days "3 d 4:05:00".
export function span(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const [d, hh, mm, ss] = [Math.floor(s / 86400), Math.floor(s / 3600) % 24, Math.floor(s / 60) % 60, s % 60];
  const two = (n) => String(n).padStart(2, "0");
  const clock = d || hh ? `${hh}:${two(mm)}:${two(ss)}` : `${mm}:${two(ss)}`;
  return d ? `${d} d ${clock}` : clock;
}

// The arena's times as a line: "Starts in 4:05", "Ends in 12:00", the last games, finished.
export function countdown(spec, status, now, when) {
  if (status === "upcoming") return t("arena.startsIn", { t: span(spec.starts_ms - now) });
  if (status === "running") return t("arena.endsIn", { t: span(spec.ends_ms - now) });
  if (status === "ending") return t("arena.ending");
  return t("arena.finished", { when: when(spec.ends_ms) });
}

const who = (name) => name || t("lobby.anonymous");

function playerLink(player, name) {
  return h("a", { href: `/p/${encodeURIComponent(player)}`, class: "arena-player" }, who(name));
}

// A player's sheet: each game's points, those the server says were doubled (played on fire)
// marked as the standings' legend explains (`row.doubled`, as long as `row.sheet`).
function sheetCell(row) {
  const doubled = row.doubled || [];
  return h("td", { class: "arena-sheet" },
    h("span", { class: "sheet" },
      ...row.sheet.map((points, i) =>
        doubled[i]
          ? h("span", { class: "game fire", title: t("arena.doubled") }, String(points))
          : h("span", { class: "game" }, String(points)))));
}

function pointsCell(row) {
  const fire = row.fire ? h("span", { class: "fire-mark", title: t("arena.fire"), "aria-label": t("arena.fire") }, "×2") : null;
  return h("td", { class: "arena-points" }, h("strong", {}, String(row.points)), fire ? " " : "", fire);
}

// The standings as a table; `me`: this page's player (their row is marked "you").
export function standingsTable(rows, me) {
  return [
    h("tr", {}, h("th", { scope: "col" }, t("arena.rank")), h("th", { scope: "col" }, t("arena.player")),
      h("th", { scope: "col" }, t("arena.points")), h("th", { scope: "col" }, t("arena.sheet"))),
    ...rows.map((r) =>
      h("tr", { class: r.paused ? "paused" : "", dataset: { player: r.player, points: String(r.points), rank: String(r.rank) } },
        h("td", { class: "arena-rank" }, String(r.rank)),
        h("td", {}, playerLink(r.player, r.name),
          r.rating !== null && r.rating !== undefined ? [" ", ratingMark(r.rating, false)] : [],
          r.player === me ? h("span", { class: "arena-tag" }, t("arena.you")) : null,
          r.paused ? h("span", { class: "arena-tag" }, t("arena.pausedMark")) : null),
        pointsCell(r), sheetCell(r))),
  ];
}

export function podiumItems(rows) {
  return rows.slice(0, 3).map((r, i) =>
    h("li", { class: `place place-${i + 1}`, dataset: { player: r.player } },
      h("span", { class: "medal", "aria-hidden": "true" }, String(i + 1)),
      h("span", { class: "place-name" }, t(`arena.place.${i + 1}`)),
      playerLink(r.player, r.name),
      h("span", { class: "place-points" }, tn("arena.pointsOf", r.points))));
}

// The games being played, each with a link to watch it.
export function playingItems(games) {
  return games.map((g) =>
    h("li", { dataset: { room: g.room } },
      h("span", {}, t("arena.vs", { a: who(g.names[0]), b: who(g.names[1]) })), " ",
      h("a", { class: "button secondary watch", href: `/r/${encodeURIComponent(g.room)}` }, t("arena.watch"))));
}

// A finished arena's games as the archive keeps them, each linking to its page (/g/{id}).
export function playedItems(games) {
  return games.map((g) => {
    const result = g.winner === null || g.winner === undefined ? t("archive.draw") : t("arenas.won", { name: who(g.names[g.winner]) });
    const points = Array.isArray(g.points) ? ` (${g.points[0]}–${g.points[1]})` : "";
    return h("li", { dataset: { game: g.id } },
      h("a", { href: `/g/${encodeURIComponent(g.id)}` }, t("arenas.result", { a: who(g.names[0]), b: who(g.names[1]), result })), points);
  });
}

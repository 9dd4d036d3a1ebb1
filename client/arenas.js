// The arenas (/arenas): those playing now, those starting soon and the last finished ones
// (GET /api/arenas), each linking to its page (/t/{id}); and a form that creates one
// (POST /api/arenas) for a player the server allows to (server/PROTOCOL.md, "Arenas"): a
// refusal is said by the button, in the page's language, by its code.

import { getGames, settings } from "./api.js";
import { $, h, show } from "./dom.js";
import { known, t } from "./i18n.js";
import { fail, gameTitle, getJSON, startPage, when } from "./archivepage.js";
import { ensurePlayer } from "./identity.js";
import { clockLabel, clockWords } from "./clockwords.js";
import { refusalText } from "./lobby.js";
import { arenaWhat, countdown } from "./arenaview.js";

let listed = { upcoming: [], running: [], finished: [] };
let games = [];

const STATUS = { running: "running", upcoming: "upcoming", finished: "finished" };

function item(entry, status) {
  const spec = entry.arena || entry; // a finished one carries its podium beside its spec
  const podium = entry.podium || [];
  const time = status === "finished"
    ? [t("arenas.ended", { when: when(entry.finished_ms || spec.ends_ms) }),
       podium[0] ? ` · ${t("arenas.winner", { name: podium[0].name || t("lobby.anonymous") })}` : ""].join("")
    : countdown(spec, status, Date.now(), when);
  return h("li", { dataset: { arena: spec.id } },
    h("a", { class: "arena-link", href: `/t/${encodeURIComponent(spec.id)}` }, spec.name), h("br"),
    h("span", {}, arenaWhat(spec)), h("br"),
    h("span", { class: "muted arena-time", dataset: { status } }, time,
      status === "upcoming" ? ` (${when(spec.starts_ms)})` : ""));
}

function drawLists() {
  document.title = `nyumba · ${t("arenas.heading")}`;
  for (const [key, status] of Object.entries(STATUS)) {
    const entries = listed[key] || [];
    $(`#${key}`).replaceChildren(
      ...(entries.length ? entries.map((e) => item(e, status)) : [h("li", { class: "muted" }, t("arenas.none"))]));
  }
}

// The countdowns tick between loads without redrawing the rest.
function tick() {
  for (const el of document.querySelectorAll(".arena-time[data-status='running'], .arena-time[data-status='upcoming']")) {
    const key = el.dataset.status;
    const id = el.closest("li").dataset.arena;
    const spec = listed[key].find((e) => (e.arena || e).id === id);
    if (spec) el.firstChild.textContent = countdown(spec, key, Date.now(), when);
  }
}

async function load() {
  try {
    listed = await getJSON("/api/arenas");
    show($("#notice"), false);
  } catch (err) {
    fail(err);
  }
  drawLists();
  document.body.dataset.ready = "1";
}

// ------------------------------------------------------------------ the create form

const optionTitle = (o) => (known(`opt.${o.name}`) ? t(`opt.${o.name}`) : o.title);
const valueText = (v) => (v === true ? t("yes") : v === false ? t("no") : String(v));
const chosenGame = () => games.find((g) => g.name === $("#arena-game").value) || games[0];

function drawForm() {
  const current = $("#arena-game").value || games[0]?.name;
  $("#arena-game").replaceChildren(...games.map((g) => h("option", { value: g.name, selected: g.name === current }, gameTitle(g.name))));
  const game = chosenGame();
  $("#arena-options").replaceChildren(
    ...(game?.options ?? []).map((o) =>
      h("div", { class: "field" },
        h("label", { for: `arena-opt-${o.name}` }, optionTitle(o)),
        h("select", { id: `arena-opt-${o.name}`, dataset: { option: o.name } },
          ...o.choices.map((c) => h("option", { value: JSON.stringify(c), selected: c === o.default }, valueText(c) + (c === o.default ? " *" : "")))))));
  for (const option of $("#arena-clock").options) {
    const [initial_ms, increment_ms] = option.value.split("+").map(Number);
    const clock = { initial_ms, increment_ms };
    option.textContent = t("start.clockWhat", { label: clockLabel(clock), words: clockWords(clock) });
  }
}

function say(text) {
  const el = $("#create-error");
  el.textContent = text;
  show(el, Boolean(text));
}

async function create(event) {
  event.preventDefault();
  say("");
  const game = chosenGame();
  const options = {};
  for (const select of $("#arena-options").querySelectorAll("select")) options[select.dataset.option] = JSON.parse(select.value);
  const [initial_ms, increment_ms] = $("#arena-clock").value.split("+").map(Number);
  const name = $("#arena-name").value.trim();
  const body = {
    game: game.name, options, clock: { initial_ms, increment_ms },
    starts_in_ms: Math.round(Number($("#arena-start").value) * 60000),
    duration_ms: Math.round(Number($("#arena-duration").value) * 60000),
    rated: $("#arena-rated").checked, berserk: $("#arena-berserk").checked,
    ...(name ? { name } : {}),
  };
  const go = $("#create-go");
  go.disabled = true;
  try {
    const response = await fetch("/api/arenas", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    });
    const answer = await response.json().catch(() => null);
    if (!response.ok) throw Object.assign(new Error(answer?.message || `${response.status}`), { code: answer?.code, retry_after_ms: answer?.retry_after_ms });
    location.assign(`/t/${encodeURIComponent(answer.id)}`);
  } catch (err) {
    say(refusalText(err, "arenas.failed"));
    go.disabled = false;
  }
}

async function main() {
  startPage(() => {
    drawLists();
    if (games.length) drawForm();
  });
  load();
  setInterval(tick, 1000);
  setInterval(load, 30000);
  $("#create").addEventListener("submit", create);
  $("#arena-game").addEventListener("change", drawForm);
  // The form is for a player (the server says whether this one may create): be someone first.
  const [me, all] = await Promise.all([ensurePlayer(settings.name()), getGames().catch(() => [])]);
  games = all;
  if (!games.length) return;
  drawForm();
  show($("#create-box"), true);
  if (!me?.player) say(t("arenas.noPlayer"));
  document.body.dataset.form = "1";
}

main();

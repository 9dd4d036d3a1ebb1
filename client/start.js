// The start page (/): choose a game, its options and a mode, and open a room.
// Also replays a record file chosen from disk.

import { cleanName, createRoom, getGames, replay, settings, tokens } from "./api.js";
import { $, h, show } from "./dom.js";
import { applyI18n, known, languagePicker, onLangChange, t } from "./i18n.js";
import { ensurePlayer, rename, wireMe } from "./identity.js";
import { openReplay } from "./replay.js";
import { fail as lobbyFail, reconnect, redrawLobby, refusalText, seek, startLobby } from "./lobby.js";
import { clockWords } from "./clockwords.js";

let games = [];
// A first visit gets a player (a cookie the page never reads) before the lobby's socket opens,
// so its seeks, seats and games are its own: `player` once made (null: none could be).
let player = null;
let making = null; // the one request making it, while it runs
let typedHere = false; // a name was typed in the box since the page opened
let meShown = () => {}; // draws the "You" box again, once it is wired

// The box shows the player's name, unless one was typed meanwhile (which becomes theirs).
const makePlayer = () =>
  (making ??= ensurePlayer(settings.name()).then((p) => {
    making = null;
    player = p;
    if (p && !typedHere) $("#name").value = settings.name();
    return p;
  }));

// The name in the box is the player's, and this browser's; a refusal is said by the box.
async function saveName() {
  const typed = cleanName($("#name").value);
  if (!player || (player.name || "") === typed) {
    settings.setName(typed);
    return true;
  }
  try {
    player = await rename(typed);
    meShown(player);
    lobbyFail("", $("#start-error"));
    return true;
  } catch (err) {
    lobbyFail(refusalText(err), $("#start-error"));
    return false;
  }
}

const gameTitle = (g) => (known(`game.${g.name}`) ? t(`game.${g.name}`) : g.title);
const optionTitle = (o) => (known(`opt.${o.name}`) ? t(`opt.${o.name}`) : o.title);
const valueText = (v) => (v === true ? t("yes") : v === false ? t("no") : String(v));

function selectedGame() {
  const name = $("input[name=game]:checked")?.value;
  return games.find((g) => g.name === name);
}

function drawGames() {
  const current = selectedGame()?.name ?? games[0]?.name;
  $("#games").replaceChildren(
    ...games.map((g) =>
      h("div", { class: "choice-line game-choice" },
        h("label", { class: "game-label" },
          h("input", { type: "radio", name: "game", value: g.name, checked: g.name === current, onchange: drawOptions }),
          h("span", {}, gameTitle(g))),
        h("a", { class: "rules-link", href: rulesUrl(g.name), dataset: { game: g.name },
          "aria-label": t("rules.linkGame", { game: gameTitle(g) }) }, t("rules.link"))),
    ),
  );
  drawOptions();
}

const rulesUrl = (name) => `/static/rules.html?game=${encodeURIComponent(name)}`;

// The section of a game's "How to play" page that explains an option.
const OPTION_SECTIONS = {
  kalah: "kalah-options",
  "bao-kiswahili": "bao-takasia",
  "bao-kujifunza": "bao-takasia-option",
};

// The option's label says what it does in plain words; its rule numbers (the end of the server's
// title: "… (K6)") become a link to where the rules page explains it.
function ruleLink(game, option) {
  const rules = /\(([A-Z]\d+(?:, [A-Z]\d+)*)\)$/.exec(option.title)?.[1];
  if (!rules || !OPTION_SECTIONS[game.name]) return null;
  return h("a", {
    class: "rule-ref", href: `${rulesUrl(game.name)}#${OPTION_SECTIONS[game.name]}`,
    "aria-label": t("start.ruleRefFull", { rules, game: gameTitle(game) }),
  }, t("start.ruleRef", { rules }));
}

function drawOptions() {
  const game = selectedGame();
  if (game) $("#rules-link").href = rulesUrl(game.name);
  const options = game?.options ?? [];
  const box = $("#options");
  const old = Object.fromEntries([...box.querySelectorAll("select")].map((s) => [s.name, s.value]));
  box.replaceChildren(
    ...options.map((o) => {
      const select = h("select", { name: o.name, id: `opt-${o.name}`, dataset: { option: o.name } },
        ...o.choices.map((c) =>
          h("option", { value: JSON.stringify(c), selected: old[o.name] !== undefined ? old[o.name] === JSON.stringify(c) : c === o.default },
            valueText(c) + (c === o.default ? " *" : ""))),
      );
      return h("div", { class: "option" },
        h("label", { for: `opt-${o.name}` }, optionTitle(o)), select, ruleLink(game, o));
    }),
  );
  show($("#options-box"), options.length > 0);
}

// "3+2: 3 minutes each, +2 seconds a move" for every clock of the menu (values are "ms+ms").
function drawClockMenu() {
  for (const option of $("#clock").options) {
    if (!option.value) continue;
    const [initial_ms, increment_ms] = option.value.split("+").map(Number);
    const label = `${initial_ms / 60000}+${increment_ms / 1000}`;
    option.textContent = t("start.clockWhat", { label, words: clockWords({ initial_ms, increment_ms }) });
  }
}

function drawMode() {
  const mode = $("input[name=mode]:checked").value;
  show($("#computer-box"), mode === "computer");
  show($("#clock-box"), mode === "friend" || mode === "lobby");
  show($("#side-box"), mode !== "local");
}

async function submit(event) {
  event.preventDefault();
  const game = selectedGame();
  if (!game) return;
  const options = {};
  for (const o of game.options ?? []) {
    const select = $(`#opt-${o.name}`);
    options[o.name] = JSON.parse(select.value);
  }
  const mode = $("input[name=mode]:checked").value;
  const request = { game: game.name, options, mode, side: $("input[name=side]:checked").value, level: $("#level").value };
  const [initial, increment] = $("#clock").value.split("+").map(Number);
  const clock = $("#clock").value && (mode === "friend" || mode === "lobby") ? { initial_ms: initial, increment_ms: increment } : undefined;
  const rated = $("#rated").checked;
  if (mode === "lobby") return seekAs({ game: game.name, options, clock: clock ?? null, side: request.side, rated }, $("#start-error"));
  if (!(await readyToPlay())) return;
  if (mode === "friend" && rated) request.rated = true;
  if (clock) request.clock = clock;
  const go = $("#go");
  go.disabled = true;
  try {
    const created = await createRoom(request);
    tokens.set(created.room, created.token);
    location.assign(created.url || `/r/${encodeURIComponent(created.room)}`);
  } catch (err) {
    lobbyFail(refusalText(err, "start.failed"), $("#start-error"));
    go.disabled = false;
  }
}

// Before a seek or a room: the player is made (a rated seek needs one; on a first visit the
// lobby's socket may have opened without it) and the name in the box is theirs, as the seek and
// the seat carry it. False when the name was refused (said by the name box).
async function readyToPlay() {
  if (!player) {
    await makePlayer();
    if (player) reconnect();
  }
  return saveName();
}

async function seekAs(request, at) {
  if (!(await readyToPlay())) return;
  if (request.rated && !player) return lobbyFail(t("refusal.no-player"), at);
  seek(request, at);
}

// The quick buttons seek as the form would, rated if "rated" is ticked (by either box).
function quickSeek(request) {
  seekAs({ ...request, rated: $("#quick-rated").checked }, $("#lobby-error"));
}

function fail(selector, text) {
  const el = $(selector);
  el.textContent = text;
  show(el, Boolean(text));
}

async function upload() {
  const input = $("#record-file");
  const file = input.files[0];
  if (!file) return;
  input.value = ""; // the same file chosen again (after fixing it) is read again
  $("#record-name").textContent = file.name;
  fail("#replay-error", "");
  try {
    const record = await file.text();
    const data = await replay(record);
    const box = $("#replay");
    openReplay(box, data, { onClose: () => show(box, false), record });
    show(box, true);
    box.scrollIntoView({ block: "start" });
  } catch (err) {
    fail("#replay-error", t("replay.failed", { msg: err.message }));
  }
}

async function init() {
  languagePicker($("#lang"));
  applyI18n(document);
  drawClockMenu();
  onLangChange(() => {
    drawClockMenu();
    if (games.length) drawGames();
    redrawLobby();
  });
  $("#name").value = settings.name();
  $("#name").addEventListener("input", () => (typedHere = true));
  $("#name").addEventListener("change", saveName);
  const ready = makePlayer();
  startLobby({ ready, quickSeek });
  for (const [a, b] of [["#rated", "#quick-rated"], ["#quick-rated", "#rated"]]) {
    $(a).addEventListener("change", () => ($(b).checked = $(a).checked)); // one choice, two places
  }
  for (const radio of document.querySelectorAll("input[name=mode]")) radio.addEventListener("change", drawMode);
  drawMode();
  $("#new-game").addEventListener("submit", submit);
  $("#record-file").addEventListener("change", upload);
  $("#record-choose").addEventListener("click", () => $("#record-file").click());
  // The bar with the name and Start stays in view (sticky): the skip link moves the focus there
  // without scrolling the choices away.
  $(".skip-link").addEventListener("click", (event) => {
    event.preventDefault();
    $("#name").focus({ preventScroll: true });
  });
  ready.then(async () => {
    if (typedHere) await saveName();
    const onPlayer = (p) => {
      player = p;
      reconnect();
    };
    meShown = await wireMe($("#me"), { player, name: $("#name"), onPlayer });
  });
  try {
    games = await getGames();
    drawGames();
    $("#go").disabled = games.length === 0;
    document.body.dataset.ready = "1";
  } catch (err) {
    fail("#start-error", t("start.failed", { msg: err.message }));
  }
}

init();

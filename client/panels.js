// The room page's panels around the board: status and result lines, seats, offers, buttons and
// the share box. Each takes the state on the board and a view of this connection:
// {sides, received (performance.now() when the state arrived), welcomed, room, myTurn, online}.

import { recordUrl } from "./api.js";
import { $, clock, h, show } from "./dom.js";
import { has, t } from "./i18n.js";
import { lastMovePits } from "./board.js";
import { choiceWords, lastMoveSummary, resultText } from "./words.js";
import { ratingMark, ratingOf } from "./seatratings.js";

export const sideName = (side) => t(`side.${side}`);
// A game aborted before anyone moved: nothing to replay, analyse, download or play again.
export const nothingPlayed = (s) => s.outcome?.adjudication === "aborted" && !s.plies;
const seated = (v) => v.sides.length > 0;

function opponentSeat(s, v) {
  if (v.sides.length !== 1) return null;
  return s.seats[1 - v.sides[0]];
}

// How much longer before the absent opponent's seat may be handed to the computer (ms), or null.
export function handoverWait(s, v) {
  const opp = opponentSeat(s, v);
  if (!opp || s.mode !== "friend" || opp.present || opp.holder === "computer" || opp.handover_ms == null) return null;
  return Math.max(0, opp.handover_ms - (performance.now() - v.received));
}

// The connection banner: shown at once when the link is lost, hidden when it is back.
export function renderBanner(status, delay) {
  const banner = $("#conn");
  if (status === "open") {
    show(banner, false);
  } else if (status === "reconnecting") {
    banner.textContent = delay > 1000 ? t("room.reconnectIn", { s: Math.round(delay / 1000) }) : t("room.reconnecting");
    show(banner, true);
  } else if (status === "connecting") {
    banner.textContent = t("room.connecting");
    show(banner, true);
  }
}

// The room is gone (expired, or never was): say so where the connection's status shows, and
// leave the controls that still work (a new game, the record) on the page.
export function renderGone(app) {
  app.dataset.conn = "gone";
  $("#conn").textContent = t("room.noRoom");
  $("#conn").classList.add("gone");
  show($("#conn"), true);
  show($("#controls"), true);
}

export function renderStatus(s, v) {
  let status = "";
  if (!s.outcome && s.to_move !== null) {
    const holder = s.seats[s.to_move]?.holder;
    if (holder === "computer") status = t("turn.computer");
    else if (v.sides.includes(s.to_move) && v.sides.length === 1) status = t("turn.you");
    else if (v.sides.length === 1) status = t("turn.opponent");
    else status = t("turn.side", { side: sideName(s.to_move) });
  }
  if (!seated(v) && v.welcomed) status = `${t("room.watching")} ${status}`;
  // While the link is down nothing can be sent: say so instead of "Your turn".
  if (!v.online && !s.outcome) status = t("turn.offline");
  $("#status").textContent = status;
  $("#last").textContent = s.last ? lastMoveSummary(s.last, sideName) : "";
  const result = resultText(s, v.sides, sideName);
  $("#result").textContent = result || "";
  show($("#result"), Boolean(result));
}

export function renderOffer(s, v) {
  const o = s.offer;
  const box = $("#offer");
  if (!o || s.mode === "local" || !seated(v)) {
    show(box, false);
    return;
  }
  const mine = v.sides.includes(o.by);
  $("#offer-text").textContent = t(`offer.${mine ? "waiting" : "incoming"}.${o.kind}`);
  show($("#accept"), !mine);
  show($("#decline"), !mine);
  box.dataset.kind = o.kind;
  show(box, true);
}

// A seat as players say it: the player's name ("Eshe", "Amani (you)"), a plain word for a
// nameless player, the computer or nobody. An identified player's name links to their page,
// followed by their rating in this game (fetched once per player, seatratings.js), shown "?"
// while provisional.
function seatWho(s, seat, v) {
  if (seat.holder === "empty") return [t("seat.empty")];
  const mine = v.sides.includes(seat.side) && seat.holder !== "computer";
  let role = null;
  if (seat.holder === "computer") {
    const level = t(`level.${seat.level}`);
    role = seat.owned ? t("seat.computerFor", { level }) : t("seat.computer", { level });
  } else if (mine) role = t("seat.you");
  const who = seat.name ? (role ? t("seat.named", { name: seat.name, who: role }) : seat.name) : role || t("seat.anonymous");
  if (!seat.player) return [who];
  const link = { href: `/p/${encodeURIComponent(seat.player)}`, class: "seat-player", id: `seat-player-${seat.side}` };
  const r = ratingOf(s.game, seat.player, v.redraw, s.archive || s.game_no); // again once it ends
  return [h("a", link, who), ...(r ? [" ", ratingMark(r.rating, r.provisional)] : [])];
}

// The others' seats the computer held (for an absent player) in `prev` and a person holds in
// `next`: the server sends no message of its own for a reclaim, only the seats in the state.
export function reclaimedSeats(prev, next, sides) {
  return next.seats
    .filter((seat) => prev.seats[seat.side]?.holder === "computer" && seat.holder === "person")
    .map((seat) => seat.side)
    .filter((side) => !sides.includes(side));
}

export function renderSeats(s, v) {
  const wait = handoverWait(s, v);
  const watchers = s.watchers || 0;
  const watching = watchers
    ? [h("li", { class: "watchers", dataset: { watchers } }, h("span", { "aria-hidden": "true" }, "👁 "), t("seat.watchers", { n: watchers }))]
    : [];
  $("#seats").replaceChildren(
    ...s.seats.map((seat) => {
      const extra = [];
      if (seat.holder === "person" && !seat.present) {
        extra.push(t("seat.absent", { t: clock(seat.absent_ms + (performance.now() - v.received)) }));
      }
      const opponent = v.sides.length === 1 && seat.side !== v.sides[0];
      if (opponent && seat.holder === "person" && wait !== null && wait > 0 && !s.outcome) {
        extra.push(t("seat.handoverIn", { t: clock(wait) }));
      }
      return h("li", { class: seat.present ? "present" : "absent", dataset: { side: seat.side } },
        h("span", { class: "presence", "aria-hidden": "true" }, seat.present ? "●" : "○"), " ",
        t("seat.line", { side: sideName(seat.side), who: "" }), ...seatWho(s, seat, v),
        extra.length ? ` — ${extra.join(", ")}` : "");
    }),
    ...watching,
  );
}

export function renderControls(s, v) {
  const over = Boolean(s.outcome);
  const friend = s.mode === "friend";
  const solo = s.mode === "computer" || s.mode === "local";
  const offerOpen = Boolean(s.offer);
  const byAgreement = over && ["resignation", "agreement"].includes(s.outcome.adjudication);
  // While the computer plays every seat this connection owns, its owner first takes a seat back:
  // until then the game's buttons are not theirs to use.
  const held = seated(v) && v.sides.every((side) => s.seats[side]?.holder === "computer");
  const sat = seated(v) && !held;
  show($("#undo"), sat && solo && s.plies > 0 && !byAgreement);
  show($("#resign"), sat && !over);
  show($("#draw"), sat && !over && (friend || s.mode === "local"));
  $("#draw").disabled = offerOpen;
  // A takeback is asked of a person: not of the computer playing for an absent opponent.
  const oppPerson = opponentSeat(s, v)?.holder === "person";
  show($("#takeback"), sat && friend && !over && s.plies > 0 && oppPerson);
  $("#takeback").disabled = offerOpen;
  show($("#rematch"), sat && over && !nothingPlayed(s));
  $("#rematch").disabled = offerOpen && s.offer.kind === "rematch" && v.sides.includes(s.offer.by);
  // A friend who went away: the button counts down. A friend who never came: it appears when
  // the window has passed (the host may then play the computer instead).
  const wait = handoverWait(s, v);
  const oppEmpty = opponentSeat(s, v)?.holder === "empty";
  // A rated game is never handed to the computer: its absent player's game is claimed, once
  // the wait has passed and the absent side is to move (server/PROTOCOL.md, "Fair play").
  show($("#handover"), sat && !over && !s.rated && wait !== null && (!oppEmpty || wait === 0));
  $("#handover").disabled = wait === null || wait > 0;
  const claimable = sat && !over && Boolean(s.rated) && wait !== null && !oppEmpty;
  for (const kind of ["win", "draw"]) {
    show($(`#claim-${kind}`), claimable);
    $(`#claim-${kind}`).disabled = !claimable || wait > 0 || v.myTurn;
  }
  show($("#reclaim"), v.sides.some((side) => s.seats[side]?.holder === "computer"));
  // Hints: computer and local rooms, on one's turn (server/PROTOCOL.md: the server answers
  // "hint" there), so the page need not fetch the protocol's schema to learn it.
  show($("#hint"), solo && v.myTurn);
  show($("#replay-btn"), over && !nothingPlayed(s));
  // The finished game's permanent page (the archive keeps it: /g/{id}).
  const page = $("#game-link");
  show(page, over && Boolean(s.archive));
  if (s.archive) page.href = `/g/${encodeURIComponent(s.archive)}`;
  const dl = $("#download");
  show(dl, s.plies > 0 || (over && !nothingPlayed(s)));
  dl.href = recordUrl(v.room);
  dl.download = `nyumba-${s.game}-${v.room}-${s.game_no}.json`;
  const confirm = $("#resign").dataset.confirm === "1";
  $("#resign").textContent = t(confirm ? "btn.confirmResign" : "btn.resign");
  // In a local room a draw needs nobody's answer, so it is confirmed like a resignation.
  const confirmDraw = $("#draw").dataset.confirm === "1";
  $("#draw").textContent = t(confirmDraw ? "btn.confirmDraw" : "btn.draw");
}

// The room's link stays available in friend rooms: first for the friend, then for anyone who
// would like to watch.
export function renderShare(s, v) {
  const opp = opponentSeat(s, v);
  const waiting = s.mode === "friend" && seated(v) && opp?.holder === "empty";
  const box = $("#share");
  show(box, s.mode === "friend" && v.welcomed);
  box.classList.toggle("compact", !waiting);
  $("#share-label").textContent = t(waiting ? "room.shareLabel" : "room.shareWatch");
  show($("#share-wait"), waiting);
  const url = location.origin + location.pathname;
  if ($("#share-url").value !== url) $("#share-url").value = url;
}

// Whether the game moves ratings: asked for until its first move, then fixed by the server
// (server/PROTOCOL.md, "Rated games"), with the reason when a rated game was refused.
export function renderRatedness(s) {
  const line = $("#ratedness");
  const asked = s.rated || s.unrated;
  show(line, Boolean(asked));
  if (!asked) return;
  const fixed = s.plies > 0 || Boolean(s.outcome);
  if (s.rated) line.textContent = t(fixed ? "rated.yes" : "rated.asked");
  else line.textContent = t("rated.no", { why: has(`rated.why.${s.unrated}`) ? t(`rated.why.${s.unrated}`) : s.unrated });
  line.dataset.rated = s.rated ? "1" : "0";
}

// The pits, pass buttons and move list the player may use now. Returns the armed pit (tap to
// select, tap to play) if it is still playable, else null.
export function renderPlayable(s, board, { playable, armed, hint, play }) {
  // A move whose pit is not on the board (a pass) gets a button instead.
  const onBoard = (l) => Boolean(l.pit) && board.cells.has(l.pit);
  const lit = new Set(playable ? s.legal.filter(onBoard).map((l) => l.pit) : []);
  if (!lit.has(armed)) armed = null;
  board.mark({ lit, ...lastMovePits(s.last), armed });
  const armedMove = armed && s.legal.find((l) => l.pit === armed);
  $("#tap-hint").textContent = armedMove ? t("tap.again", { move: armedMove.move }) : "";
  show($("#tap-hint"), Boolean(armedMove));
  for (const c of board.cells.values()) c.el.classList.toggle("hinted", c.name === hint);
  const passes = playable ? s.legal.filter((l) => !onBoard(l)) : [];
  $("#passes").replaceChildren(
    ...passes.map((l) =>
      h("button", { type: "button", class: "pass", dataset: { move: l.move }, onclick: () => play(l.move) },
        l.move === "pass" || !l.choice ? t("btn.pass") : choiceWords(l.choice)),
    ),
  );
  $("#move-buttons").replaceChildren(
    ...(playable ? s.legal : []).map((l) =>
      h("button", { type: "button", class: "secondary", dataset: { move: l.move }, onclick: () => play(l.move) }, l.move),
    ),
  );
  show($("#move-list"), playable);
  return armed;
}

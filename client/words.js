// Turning the server's words (choices, steps, outcomes) into sentences in the page's language.

import { known, lang, t } from "./i18n.js";

// "L" -> "↺ anticlockwise (L)", "R+" -> "↻ clockwise (R) · safari …"; unknown words pass through.
// L/R name the direction of a sowing in the mover's own ring (B5): clockwise and anticlockwise
// look the same on screen whichever way the board is turned, where "left" and "right" would not.
// A namua capture comes as "kichwa-L"/"kichwa-R" (the kichwa the captured seeds enter, B6): it
// is named by its pit (front pit 1 or 8 of the row the move starts in), with " +" for safari.
export function choiceWords(choice, pit = null) {
  if (!choice) return "";
  const kichwa = /^kichwa-([LR])(.*)$/.exec(choice.trim());
  if (kichwa && pit) {
    const words = [t(`choice.enter${kichwa[1]}`, { pit: `${pit[0]}${kichwa[1] === "L" ? 1 : 8}` })];
    const rest = kichwa[2].trim();
    if (rest) words.push(...rest.split(/\s+/).map((w) => (known(`choice.${w}`) ? t(`choice.${w}`) : w)));
    return words.join(" · ");
  }
  if (known(`choice.${choice}`)) return t(`choice.${choice}`);
  const words = [];
  let rest = choice.trim();
  const dir = /^([LR])(.*)$/.exec(rest);
  if (dir) {
    words.push(t(`choice.${dir[1]}`));
    rest = dir[2].trim();
  }
  for (const word of rest.split(/\s+/).filter(Boolean)) {
    words.push(known(`choice.${word}`) ? t(`choice.${word}`) : word);
  }
  return words.join(" · ");
}

// Labels for the moves that start at one pit. A move without "+" next to one with it (same
// direction) is the one that stops at the nyumba, so it says so.
export function choiceLabels(moves) {
  const texts = moves.map((l) => l.choice || "");
  return texts.map((c, i) => {
    const words = choiceWords(c, moves[i].pit);
    const safari = texts.includes(`${c}+`) || texts.includes(`${c} +`);
    if (!c.includes("+") && safari) return `${words} · ${t("choice.stop")}`;
    return words;
  });
}

// What happened in one ply, as short phrases: captures, NYAKUA, extra turn, tax, safari, … .
// Said from the steps the server sent; nothing is worked out from the rules.
export function plyFacts(last, sideName) {
  const facts = [];
  const steps = last.steps || [];
  const ended = steps.some((s) => s.kind === "end");
  const captured = steps.filter((s) => s.kind === "capture").reduce((n, s) => n + (s.seeds || 0), 0);
  if (captured) facts.push(t("last.captured", { n: captured }));
  if (steps.some((s) => s.kind === "tax")) facts.push(t("last.tax"));
  if (steps.some((s) => s.kind === "relay" && s.note === "safari")) facts.push(t("last.safari"));
  if (steps.some((s) => s.kind === "nyakua" || s.note === "nyakua")) facts.push(t("last.nyakua"));
  // A move that ended the game earns no further turn, whatever its last seed did.
  if (!ended && steps.some((s) => s.kind === "extra-turn")) facts.push(t("last.extra"));
  if (steps.some((s) => s.kind === "pass")) facts.push(t("last.pass"));
  if (steps.some((s) => s.kind === "stage" && s.note === "mtaji")) facts.push(t("last.stage"));
  if (steps.some((s) => s.note === "safety-stop" || s.note === "relay-limit")) facts.push(t("last.safetyStop"));
  if (steps.some((s) => s.kind === "grand-slam")) facts.push(t("last.grandSlam"));
  for (const s of steps.filter((s) => s.kind === "nyumba" && s.note === "lost")) {
    facts.push(t("last.nyumbaLost", { side: sideName(s.player ?? last.side) }));
  }
  const takasia = steps.find((s) => s.kind === "takasia");
  if (takasia) facts.push(t("last.takasia", { pit: takasia.pit }));
  return facts;
}

// A Bao move's laps in order: captures (×pit n), relays (→pit) and where it stopped (■pit).
export function plyLaps(last) {
  const out = [];
  for (const s of last.steps || []) {
    if (s.kind === "capture" && s.pit) out.push({ kind: "capture", text: `×${s.pit}`, n: s.seeds });
    else if (s.kind === "relay" && s.pit) out.push({ kind: s.note === "safari" ? "safari" : "relay", text: `→${s.pit}` });
    else if (s.kind === "stop" && s.pit) out.push({ kind: "stop", text: `■${s.pit}` });
  }
  return out;
}

export const listSep = () => (lang() === "ja" ? "、" : ", ");
const factSep = () => (lang() === "ja" ? "・" : " · ");

// "Last move: South c — captured 4 · extra turn"
export function lastMoveSummary(last, sideName) {
  const head = t("last.move", { side: sideName(last.side), move: last.move });
  const facts = plyFacts(last, sideName);
  return facts.length ? `${head} — ${facts.join(factSep())}` : head;
}

// The result in words, said to the reader: a player of either seat ("you", "your opponent"),
// or a spectator or both players on one device (the sides by name). Who resigned or ran out of
// time is the loser; who aborted or left is the state's `ended_by`; why an aborted game ended is
// its `reason` (server/PROTOCOL.md, `ended_by`).
export function resultText(s, sides, sideName) {
  const o = s.outcome;
  if (!o) return "";
  const me = sides.length === 1 ? sides[0] : null;
  const view = (side) => (me === null ? "side" : side === me ? "you" : "opp");
  const loser = o.winner === null || o.winner === undefined ? null : 1 - o.winner;
  const names = { side: loser === null ? "" : sideName(loser), winner: o.winner == null ? "" : sideName(o.winner) };
  const adj = o.adjudication;
  if (adj === "aborted") return abortedText(o, s, view, sideName);
  if (adj === "timeout" && loser !== null) return t(`end.timeout.${view(loser)}`, names);
  if (adj === "resignation" && loser !== null) return t(`end.resignation.${view(loser)}`, names);
  if (adj === "agreement") return t("reason.agreement");
  if (adj === "abandoned") {
    const left = loser ?? s.ended_by;
    if (left === null || left === undefined) return t("end.abandoned.draw");
    const kind = loser === null ? "drawn" : "won";
    return t(`end.abandoned.${kind}.${view(left)}`, { side: sideName(left), winner: names.winner });
  }
  const parts = [];
  if (o.winner === null || o.winner === undefined) {
    parts.push(t(adj === "safety-stop" ? "result.noWinner" : "result.draw"));
  } else if (me !== null) {
    parts.push(t(o.winner === me ? "result.you" : "result.youLose"));
  } else {
    parts.push(t("result.side", { side: names.winner }));
  }
  if (o.score) parts.push(t("result.score", { s: o.score[0], n: o.score[1] }));
  if (o.reason && known(`reason.${o.reason}`)) parts.push(t(`reason.${o.reason}`));
  else if (o.reason && o.reason !== adj) parts.push(t("reason.other", { reason: o.reason }));
  // An adjudication this page has no sentence for is named as the server sends it.
  if (adj && !known(`reason.${o.reason}`) && !known(`reason.${adj}`)) parts.push(t("adj.label", { adj }));
  return parts.join(lang() === "ja" ? "" : " "); // Japanese sentences follow each other unspaced
}

// An aborted game: no result, and why (server/rooms/fairplay.py ABORT_CAUSES).
function abortedText(o, s, view, sideName) {
  const by = s.ended_by;
  if (o.reason === "first-move" && !s.plies) return t("end.aborted.first-move.none");
  if (o.reason === "agreement") return t("end.aborted.agreement");
  const cause = `end.aborted.${o.reason}`;
  if (!known(`${cause}.side`) || by === null || by === undefined) return t("result.aborted");
  return t(`${cause}.${view(by)}`, { side: sideName(by) });
}

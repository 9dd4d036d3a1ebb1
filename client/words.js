// Turning the server's words (choices, steps, outcomes) into sentences in the page's language.

import { known, lang, t } from "./i18n.js";

// "L" -> "◀ left (L)", "R+" -> "right (R) ▶ · safari …"; unknown words pass through.
// L/R name the direction of a sowing; a namua capture comes as "kichwa-L"/"kichwa-R" (the
// kichwa the captured seeds enter, B6), with " +" for safari.
export function choiceWords(choice) {
  if (!choice) return "";
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
  return texts.map((c) => {
    const words = choiceWords(c);
    const safari = texts.includes(`${c}+`) || texts.includes(`${c} +`);
    if (!c.includes("+") && safari) return `${words} · ${t("choice.stop")}`;
    return words;
  });
}

// "Last move: South c — captured 4 · extra turn"
export function lastMoveSummary(last, sideName) {
  const parts = [t("last.move", { side: sideName(last.side), move: last.move })];
  const extras = [];
  const steps = last.steps || [];
  const captured = steps.filter((s) => s.kind === "capture").reduce((n, s) => n + (s.seeds || 0), 0);
  if (captured) extras.push(t("last.captured", { n: captured }));
  if (steps.some((s) => s.kind === "nyakua" || s.note === "nyakua")) extras.push(t("last.nyakua"));
  if (steps.some((s) => s.kind === "extra-turn")) extras.push(t("last.extra"));
  if (steps.some((s) => s.kind === "pass")) extras.push(t("last.pass"));
  if (steps.some((s) => s.kind === "stage" && s.note === "mtaji")) extras.push(t("last.stage"));
  if (steps.some((s) => s.note === "safety-stop" || s.note === "relay-limit")) extras.push(t("last.safetyStop"));
  if (steps.some((s) => s.kind === "grand-slam")) extras.push(t("last.grandSlam"));
  for (const s of steps.filter((s) => s.kind === "nyumba" && s.note === "lost")) {
    extras.push(t("last.nyumbaLost", { side: sideName(s.player ?? last.side) }));
  }
  const takasia = steps.find((s) => s.kind === "takasia");
  if (takasia) extras.push(t("last.takasia", { pit: takasia.pit }));
  return extras.length ? `${parts[0]} — ${extras.join(" · ")}` : parts[0];
}

// The result in words: who won (or that nobody did), the score, why, and any adjudication.
export function resultText(s, sides, sideName) {
  const o = s.outcome;
  if (!o) return "";
  const parts = [];
  if (o.winner === null || o.winner === undefined) {
    parts.push(t(o.adjudication === "safety-stop" ? "result.noWinner" : "result.draw"));
  } else if (sides.length === 1) {
    parts.push(t(o.winner === sides[0] ? "result.you" : "result.youLose"));
  } else {
    parts.push(t("result.side", { side: sideName(o.winner) }));
  }
  if (o.score) parts.push(t("result.score", { s: o.score[0], n: o.score[1] }));
  const reason = o.adjudication === "resignation" || o.reason === "resignation" ? "resignation" : o.reason;
  if (reason === "resignation") {
    parts.push(t("reason.resignation", { side: sideName(o.winner === null ? s.to_move ?? 0 : 1 - o.winner) }));
  } else if (reason && reason !== o.adjudication && known(`reason.${reason}`)) {
    parts.push(t(`reason.${reason}`));
  } else if (reason && reason !== o.adjudication) {
    parts.push(t("reason.other", { reason }));
  }
  if (o.adjudication) {
    const key = `adj.${o.adjudication}`;
    parts.push(t("adj.label", { adj: known(key) ? t(key) : o.adjudication }));
  }
  return parts.join(lang() === "ja" ? "" : " "); // Japanese sentences follow each other unspaced
}

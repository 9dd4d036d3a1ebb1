// Words in English and Japanese. The language defaults to the browser's and is kept per browser.
// Elements carry data-i18n="key" (text) or data-i18n-aria="key" (aria-label); applyI18n fills them.
// The words themselves are in strings-en.js and strings-ja.js.

import { EN } from "./strings-en.js";
import { JA } from "./strings-ja.js";

export const STRINGS = { en: EN, ja: JA };

const KEY = "nyumba:lang";
const listeners = [];

function initial() {
  const saved = safeGet(KEY);
  if (saved && STRINGS[saved]) return saved;
  return (navigator.language || "en").toLowerCase().startsWith("ja") ? "ja" : "en";
}

function safeGet(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

let current = initial();

export const LANGS = { en: "English", ja: "日本語" };

export function lang() {
  return current;
}

export function setLang(l) {
  if (!STRINGS[l] || l === current) return;
  current = l;
  try {
    localStorage.setItem(KEY, l);
  } catch {
    /* private mode: the choice lasts this page only */
  }
  document.documentElement.lang = l;
  applyI18n(document);
  for (const fn of listeners) fn(l);
}

export function onLangChange(fn) {
  listeners.push(fn);
}

// Whether any language has words for `key`.
export function known(key) {
  return key in STRINGS[current] || key in STRINGS.en;
}

// Whether the current language has its own words for `key`.
export function has(key) {
  return key in STRINGS[current];
}

// t("turn.side", {side: "South"}) -> "South to move"
export function t(key, vars = {}) {
  const text = STRINGS[current][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

// A phrase with a count, in the form the language uses for that number: tn("analysis.blunders",
// 1) -> "1 blunder" from the keys "analysis.blunders.one" and "analysis.blunders.other" (the
// plural categories of Intl.PluralRules; Japanese has only "other"). `n` may be text ("+1.5").
const pluralRules = {};
export function tn(key, n, vars = {}) {
  pluralRules[current] ??= new Intl.PluralRules(current);
  const form = pluralRules[current].select(Math.abs(Number(String(n).replace("+", ""))));
  return t(has(`${key}.${form}`) ? `${key}.${form}` : `${key}.other`, { n, ...vars });
}

export function applyI18n(root) {
  document.documentElement.lang = current;
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-aria]")) el.setAttribute("aria-label", t(el.dataset.i18nAria));
}

// A <select> that switches the language, for either page's header.
export function languagePicker(select) {
  select.replaceChildren(
    ...Object.entries(LANGS).map(([code, name]) => new Option(name, code, false, code === current)),
  );
  select.addEventListener("change", () => setLang(select.value));
  onLangChange((l) => (select.value = l));
}

// The "How to play" pages' words, in English and Japanese, written for players from the
// project's rules (shared/rules/*.md; docs/rules/ in the repository): each rule cited by its
// number. PAGES says which sections each game's page has, once for both languages; TEXT holds
// each section's heading, paragraphs and, where it has a diagram (DIAGRAM), the caption.
// tests/client/test_rules.py checks that both languages have the same sections and paragraphs.

import { RULES_EN } from "./rules-en.js";
import { RULES_JA } from "./rules-ja.js";

export const PAGES = {
  kalah: ["kalah-setup", "kalah-move", "kalah-capture", "kalah-end", "kalah-options", "tips"],
  oware: ["oware-setup", "oware-move", "oware-capture", "oware-feed", "oware-end", "tips"],
  "bao-kiswahili": [
    "bao-board", "bao-sowing", "bao-capture", "bao-relay", "bao-namua", "bao-nyumba",
    "bao-mtaji", "bao-takasia", "bao-end", "tips", "tips-bao",
  ],
  "bao-kujifunza": [
    "kujifunza-setup", "bao-board", "bao-sowing", "kujifunza-capture", "bao-relay", "bao-mtaji",
    "bao-takasia-option", "bao-end", "tips", "tips-bao",
  ],
  "bao-nakakamado-a": [
    "nakakamado-about", "bao-board", "bao-sowing", "bao-capture", "bao-relay", "bao-namua",
    "bao-nyumba", "nakakamado-nyakua", "bao-mtaji", "nakakamado-end", "tips", "tips-bao",
  ],
};

// The position drawn with a section (client/rules-diagrams.js).
export const DIAGRAM = {
  "kalah-setup": "kalah-start",
  "kalah-move": "kalah-extra",
  "kalah-capture": "kalah-capture",
  "oware-setup": "oware-start",
  "oware-capture": "oware-capture",
  "bao-board": "bao-start",
  "bao-capture": "bao-namua-capture",
  "bao-relay": "bao-relay",
  "bao-nyumba": "bao-safari",
  "kujifunza-setup": "kujifunza-start",
  "kujifunza-capture": "kujifunza-capture",
  "nakakamado-nyakua": "nakakamado-nyakua",
};

export const TEXT = { en: RULES_EN, ja: RULES_JA };

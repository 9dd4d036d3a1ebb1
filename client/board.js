// Drawing the boards. Each family has a layout: where every pit, store, tray and hand sits,
// given in South's view (South at the bottom); North's view turns it half a turn. Counts come
// from the server's `board`; nothing here knows a rule beyond where things are drawn.

import { h } from "./dom.js";
import { lang, t } from "./i18n.js";

const listSep = () => (lang() === "ja" ? "、" : ", ");

// Portrait phones get the board turned a quarter turn (BoardView's `portrait`).
export const portraitQuery = () => window.matchMedia("(orientation: portrait) and (max-width: 40rem)");

export function familyOf(game) {
  if (game.startsWith("bao")) return "bao";
  return game === "oware" ? "oware" : "kalah";
}

const SMALL = "abcdef";
const BIG = "ABCDEF";
const range8 = [1, 2, 3, 4, 5, 6, 7, 8];

// Cells: {name, kind: pit|store|tray|hand, owner, row, col, rows?, cols?}; rows/cols are 1-based.
const LAYOUTS = {
  // Two rows of six between the stores; each store at its owner's right (rule K1).
  kalah: {
    rows: 2,
    cols: 8,
    cells: [
      { name: "store1", kind: "store", owner: 1, row: 1, col: 1, rows: 2 },
      ...[...BIG].map((p, i) => ({ name: p, kind: "pit", owner: 1, row: 1, col: 7 - i })),
      ...[...SMALL].map((p, i) => ({ name: p, kind: "pit", owner: 0, row: 2, col: 2 + i })),
      { name: "store0", kind: "store", owner: 0, row: 1, col: 8, rows: 2 },
    ],
  },
  // The ring of twelve, sown counter-clockwise a→f→A→F; captured seeds go to trays off the ring.
  oware: {
    rows: 4,
    cols: 6,
    cells: [
      { name: "store1", kind: "tray", owner: 1, row: 1, col: 1, cols: 6 },
      ...[...BIG].map((p, i) => ({ name: p, kind: "pit", owner: 1, row: 2, col: 6 - i })),
      ...[...SMALL].map((p, i) => ({ name: p, kind: "pit", owner: 0, row: 3, col: 1 + i })),
      { name: "store0", kind: "tray", owner: 0, row: 4, col: 1, cols: 6 },
    ],
  },
  // Four rows of eight. Pits count from each owner's left: South's A1 is at South's left,
  // North's a1 at North's left (South's right). Back rows lie behind the front rows.
  bao: {
    rows: 6,
    cols: 8,
    cells: [
      { name: "hand1", kind: "hand", owner: 1, row: 1, col: 1, cols: 8 },
      ...range8.map((i) => ({ name: `b${i}`, kind: "pit", owner: 1, row: 2, col: 9 - i })),
      ...range8.map((i) => ({ name: `a${i}`, kind: "pit", owner: 1, row: 3, col: 9 - i })),
      ...range8.map((i) => ({ name: `A${i}`, kind: "pit", owner: 0, row: 4, col: i })),
      ...range8.map((i) => ({ name: `B${i}`, kind: "pit", owner: 0, row: 5, col: i })),
      { name: "hand0", kind: "hand", owner: 0, row: 6, col: 1, cols: 8 },
    ],
  },
};

const MAX_DOTS = 12;

// Every count on a server board, under the names steps use (pits, store0/1, hand0/1).
function countsOf(board) {
  const counts = { ...board.pits };
  const stores = board.stores ?? board.scores;
  if (stores) [counts.store0, counts.store1] = stores;
  if (board.hands) [counts.hand0, counts.hand1] = board.hands;
  return counts;
}

// Where the last move started (its first lift or hand placement) and where its last seed fell.
export function lastMovePits(last) {
  const steps = last?.steps || [];
  const first = steps.find((s) => s.pit && (s.kind === "lift" || s.kind === "place"));
  const sown = steps.filter((s) => s.kind === "sow" && s.pit);
  return { from: first?.pit ?? null, to: sown.length ? sown[sown.length - 1].pit : null };
}

export class BoardView {
  // onPick(pit) is called when a lit pit is chosen (click, Enter or Space).
  // portrait: turn the board a quarter turn (South's row runs down the left) to use a phone's height.
  // interactive: pits are buttons (the room's board); otherwise pictures with labels (rules
  // diagrams, replays, the analysis), which are neither controls nor tab stops.
  constructor(container, game, { onPick = () => {}, flipped = false, portrait = false, interactive = false } = {}) {
    this.game = game;
    this.portrait = portrait;
    this.interactive = interactive;
    this.owners = null; // words for each side's store/tray/hand (a player's name), or side names
    this.family = familyOf(game);
    this.layout = LAYOUTS[this.family];
    this.onPick = onPick;
    this.flipped = flipped;
    this.counts = {};
    this.board = null;
    this.marks = { lit: new Set(), from: null, to: null, armed: null };
    this.cells = new Map();
    this.stop = null; // the board's one tab stop (a pit), moved by the arrow keys
    this.info = h("p", { class: "board-info", "aria-live": "off" });
    this.grid = h("div", { class: `board board-${this.family}`, role: "group" });
    for (const cell of this.layout.cells) this.grid.append(this.makeCell(cell));
    if (interactive) this.grid.addEventListener("keydown", (e) => this.onKey(e));
    container.replaceChildren(this.info, this.grid);
    this.place();
  }

  makeCell(cell) {
    const button = cell.kind === "pit" && this.interactive;
    const el = button
      ? h("button", { type: "button", class: "pit", "aria-disabled": "true", tabindex: "-1" })
      : h("div", { class: `${cell.kind} side${cell.owner}`, role: "img" });
    el.dataset.pit = cell.name;
    el.dataset.owner = cell.owner;
    if (cell.kind === "pit") {
      el.classList.add("pit", `side${cell.owner}`);
      if (this.family === "bao") {
        const n = Number(cell.name.slice(1));
        if (cell.name[0] === "A" || cell.name[0] === "a") {
          el.classList.add("front");
          if (n === 1 || n === 8) el.classList.add("kichwa");
        }
      }
      if (button) {
        el.addEventListener("click", () => {
          if (this.marks.lit.has(cell.name)) this.onPick(cell.name);
        });
      }
    }
    const parts = {
      count: h("span", { class: "count", "aria-hidden": "true" }),
      dots: h("span", { class: "dots", "aria-hidden": "true" }),
      name: h("span", { class: "name", "aria-hidden": "true" }, cell.kind === "pit" ? cell.name : ""),
      mark: h("span", { class: "mark", "aria-hidden": "true" }),
    };
    // The name comes before the count in the text, apart ("a 4"), as the label says them
    // ("South pit a: 4"): what a voice-control user reads on the pit is part of its name. The
    // name is drawn under the count whatever the order (it is placed absolutely).
    el.append(parts.dots, parts.name, " ", parts.count, parts.mark);
    const home = this.family === "bao" && /^[Aa]5$/.test(cell.name); // where the nyumba is (B4)
    this.cells.set(cell.name, { ...cell, home, el, parts, at: [cell.row, cell.col] });
    return el;
  }

  // Grid positions for the current orientation: South's view, or North's (a half turn); on a
  // portrait screen a further quarter turn clockwise (the left end goes to the top), which keeps
  // the sowing's sense on screen.
  place() {
    // Rows and columns that hold nothing drawn (e.g. Bao's hands once they are empty for good)
    // are left out.
    const shown = [...this.cells.values()].filter((c) => !c.el.hidden);
    const span = (start, n) => Array.from({ length: n }, (_, i) => start + i);
    const rowsUsed = [...new Set(shown.flatMap((c) => span(c.row, c.rows || 1)))].sort((a, b) => a - b);
    const colsUsed = [...new Set(shown.flatMap((c) => span(c.col, c.cols || 1)))].sort((a, b) => a - b);
    const rows = rowsUsed.length;
    const cols = colsUsed.length;
    const turned = this.portrait;
    this.grid.style.setProperty("--cols", turned ? rows : cols);
    this.grid.style.setProperty("--rows", turned ? cols : rows);
    for (const c of shown) {
      let r = c.rows || 1;
      let w = c.cols || 1;
      const row0 = rowsUsed.indexOf(c.row) + 1;
      const col0 = colsUsed.indexOf(c.col) + 1;
      let row = this.flipped ? rows + 2 - row0 - r : row0;
      let col = this.flipped ? cols + 2 - col0 - w : col0;
      if (turned) [row, col, r, w] = [col, rows + 2 - row - r, w, r];
      c.el.style.gridRow = `${row} / span ${r}`;
      c.el.style.gridColumn = `${col} / span ${w}`;
      c.at = [row, col];
    }
    this.grid.classList.toggle("flipped", this.flipped);
    this.grid.classList.toggle("portrait", turned);
  }

  setFlipped(flipped) {
    this.flipped = flipped;
    this.place();
  }

  setPortrait(portrait) {
    if (portrait === this.portrait) return;
    this.portrait = portrait;
    this.place();
  }

  // Words for whose store/tray/hand each is (e.g. the players' names); null: the side names.
  setOwners(owners) {
    if (JSON.stringify(owners) === JSON.stringify(this.owners)) return;
    this.owners = owners;
    this.refreshLabels();
  }

  ownerName(side) {
    return this.owners?.[side] || t(`side.${side}`);
  }

  // Show a board as the server sent it.
  show(board) {
    this.board = board;
    const counts = countsOf(board);
    for (const name of this.cells.keys()) this.set(name, counts[name] ?? 0);
    this.showInfo();
    this.refreshLabels();
  }

  showInfo() {
    const b = this.board;
    if (this.family !== "bao" || !b) {
      this.info.hidden = true;
      return;
    }
    const parts = [];
    if (b.stage) parts.push(t("bao.stage", { stage: t(`stage.${b.stage}`) }));
    // Captured seeds not yet sown when the game ended (B13), said per side that has any.
    const pending = (b.pending ?? [0, 0])
      .map((n, side) => (n ? t("bao.pendingSide", { side: this.ownerName(side), n }) : ""))
      .filter(Boolean);
    if (pending.length) parts.push(t("bao.pending", { which: pending.join(listSep()) }));
    this.info.textContent = parts.join(" · ");
    this.grid.dataset.pending = (b.pending ?? [0, 0]).join(",");
    this.info.hidden = !parts.length;
    // A nyumba is drawn as one only while its owner has it (B15): once ownership is gone, or
    // where a game has none (J1), it is an ordinary pit. Hands are drawn while seeds can be in
    // them: in mtaji both are empty for the rest of the game (B17).
    const owned = b.nyumba ?? [false, false];
    const handsGone = b.stage === "mtaji" && !(b.hands?.[0] || b.hands?.[1]);
    let moved = false;
    for (const c of this.cells.values()) {
      if (c.home) c.el.classList.toggle("nyumba", Boolean(owned[c.owner]));
      c.el.classList.toggle("takasia", b.takasia === c.name);
      if (c.kind === "hand" && c.el.hidden !== handsGone) {
        c.el.hidden = handsGone;
        moved = true;
      }
    }
    if (moved) this.place();
  }

  // Names whose drawn count differs from `board` (after an animation there should be none).
  diff(board) {
    const want = countsOf(board);
    return [...this.cells.keys()].filter((name) => (want[name] ?? 0) !== this.get(name));
  }

  get(name) {
    return this.counts[name] ?? 0;
  }

  // Set a count, drawing it as a number and (for small counts) as seeds.
  set(name, n) {
    const c = this.cells.get(name);
    if (!c) return;
    this.counts[name] = n;
    c.parts.count.textContent = String(n);
    const dots = c.kind === "pit" && n <= MAX_DOTS ? n : 0;
    if (c.parts.dots.childElementCount !== dots) {
      c.parts.dots.replaceChildren(...Array.from({ length: dots }, () => h("i")));
      // Up to four seeds in a row, more in two rows (of up to six), so that the count keeps
      // clear of the pit's name even in a phone's 55 px Bao nyumba.
      c.parts.dots.style.setProperty("--per-row", String(Math.max(1, dots <= 4 ? dots : Math.ceil(dots / 2))));
      c.el.classList.toggle("two-rows", dots > 4);
    }
    c.el.classList.toggle("empty", n === 0);
    c.el.classList.toggle("heap", c.kind === "pit" && n > MAX_DOTS);
  }

  add(name, delta) {
    this.set(name, Math.max(0, this.get(name) + delta));
  }

  // A short highlight while animating.
  pulse(name, kind = "hit") {
    const c = this.cells.get(name);
    if (!c) return;
    c.el.classList.remove("hit", "taken");
    void c.el.offsetWidth; // restart the CSS animation
    c.el.classList.add(kind);
  }

  // lit: pits the player to move may choose; from/to: where the last move started and ended.
  // armed: a pit chosen once that plays when chosen again ("tap to select, tap to play").
  mark({ lit = new Set(), from = null, to = null, armed = null } = {}) {
    this.marks = { lit, from, to, armed };
    for (const c of this.cells.values()) {
      const isLit = lit.has(c.name);
      c.el.classList.toggle("lit", isLit);
      c.el.classList.toggle("armed", isLit && c.name === armed);
      const button = c.kind === "pit" && this.interactive;
      if (button) c.el.setAttribute("aria-pressed", isLit && c.name === armed ? "true" : "false");
      c.el.classList.toggle("last-from", c.name === from);
      c.el.classList.toggle("last-to", c.name === to && to !== from);
      if (button) c.el.setAttribute("aria-disabled", isLit ? "false" : "true");
      const here = [c.name === from ? "▲" : "", c.name === to ? "●" : ""].join("");
      c.parts.mark.textContent = here;
    }
    if (this.interactive) this.rove();
    this.refreshLabels();
  }

  // The pits the arrow keys move between, in reading order on screen: the playable ones, or
  // every pit while none is (to read the board pit by pit).
  keyPits() {
    const pits = [...this.cells.values()].filter((c) => c.kind === "pit" && !c.el.hidden);
    pits.sort((a, b) => a.at[0] - b.at[0] || a.at[1] - b.at[1]);
    const lit = pits.filter((c) => this.marks.lit.has(c.name));
    return lit.length ? lit : pits;
  }

  // One tab stop for the whole board (a roving tabindex): the pit the arrows last reached while
  // it is still among keyPits(), else the first of them.
  rove(to = null) {
    const pits = this.keyPits();
    const stop = to ?? (pits.includes(this.stop) ? this.stop : pits[0]);
    for (const c of this.cells.values()) if (c.kind === "pit") c.el.tabIndex = c === stop ? 0 : -1;
    this.stop = stop ?? null;
    return stop;
  }

  onKey(e) {
    const steps = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    if (!(e.key in steps) && e.key !== "Home" && e.key !== "End") return;
    const pits = this.keyPits();
    if (!pits.length) return;
    e.preventDefault();
    const here = pits.findIndex((c) => c.el === document.activeElement);
    let i;
    if (e.key === "Home") i = 0;
    else if (e.key === "End") i = pits.length - 1;
    else if (here < 0) i = 0;
    else i = (here + steps[e.key] + pits.length) % pits.length;
    this.rove(pits[i]).el.focus();
  }

  refreshLabels() {
    for (const c of this.cells.values()) {
      c.el.setAttribute("aria-label", this.label(c));
      if (c.kind !== "pit") c.parts.name.textContent = t(`${c.kind}.short`, { owner: this.ownerName(c.owner) });
    }
    this.grid.setAttribute("aria-label", t(`game.${this.game}`));
  }

  label(c) {
    const owner = c.kind === "pit" ? t(`side.${c.owner}`) : this.ownerName(c.owner);
    const n = this.get(c.name);
    if (c.kind === "store") return t("store.label", { owner, n });
    if (c.kind === "tray") return t("tray.label", { owner, n });
    if (c.kind === "hand") return t("hand.label", { owner, n });
    const words = [t("pit.label", { owner, pit: c.name, n })];
    const cl = c.el.classList;
    if (cl.contains("nyumba")) words.push(t("pit.nyumbaOwned"));
    if (cl.contains("kichwa")) words.push(t("pit.kichwa"));
    if (cl.contains("takasia")) words.push(t("pit.takasia"));
    if (this.marks.lit.has(c.name)) words.push(t(c.name === this.marks.armed ? "pit.armed" : "pit.playable"));
    if (c.name === this.marks.from) words.push(t("pit.lastFrom"));
    else if (c.name === this.marks.to) words.push(t("pit.last"));
    return words.join(listSep());
  }
}

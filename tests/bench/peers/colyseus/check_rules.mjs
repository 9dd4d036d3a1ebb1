// Replays games that nyumba's engine played (JSON on stdin, from `colyseus.py --check-rules`)
// with kalah.mjs and reports every disagreement: the peer room must do the same work per move.
// Each game: { seeds, moves: ["c", "F", ...], boards: [engine position text after each move],
// winner: 0 | 1 | null }. Exits 1 on any disagreement.

import { readFileSync } from "node:fs";

import { legal, NORTH_STORE, SOUTH_STORE, sow, start, winner } from "./kalah.mjs";

const SIDES = ["South", "North"];

function describe(board, toMove) {
  const row = (from) => board.slice(from, from + 6).join(" ");
  return `${row(0)} [${board[SOUTH_STORE]}] ${row(7)} [${board[NORTH_STORE]}] ${SIDES[toMove]}`;
}

const games = JSON.parse(readFileSync(0, "utf8"));
const problems = [];
let moves = 0;
for (const [g, game] of games.entries()) {
  const board = start(game.seeds);
  let toMove = 0;
  for (const [i, text] of game.moves.entries()) {
    const player = text === text.toLowerCase() ? 0 : 1;
    const pit = text.toLowerCase().charCodeAt(0) - 97;
    if (player !== toMove || !legal(board, toMove).includes(pit)) {
      problems.push(`game ${g} move ${i + 1} ${text}: not legal in ${describe(board, toMove)}`);
      break;
    }
    const { next, over } = sow(board, toMove, pit);
    toMove = next;
    moves += 1;
    // The engine names no side to move once the game is over; compare the board alone then.
    const [got, want] = over
      ? [describe(board, 0).replace(/ South$/, ""), game.boards[i].replace(/ (South|North)$/, "")]
      : [describe(board, toMove), game.boards[i]];
    if (got !== want || over !== (i === game.moves.length - 1)) {
      problems.push(`game ${g} move ${i + 1} ${text}: ${got} (over: ${over}), engine: ${want}`);
      break;
    }
  }
  const w = winner(board);
  if ((w === 2 ? null : w) !== game.winner) problems.push(`game ${g}: winner ${w}, engine ${game.winner}`);
}
console.log(`${games.length} games, ${moves} moves replayed, ${problems.length} disagreements`);
for (const p of problems.slice(0, 10)) console.log("  " + p);
process.exit(problems.length ? 1 : 0);

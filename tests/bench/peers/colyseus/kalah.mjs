// Kalah's rules (docs/rules/kalah.md K1-K9, default options), written again for the peer room:
// the comparison needs a Colyseus room that does the same work per move as nyumba's engine,
// and Colyseus cannot call Python. Both the room (server.mjs) and the load generator
// (loadgen.mjs, to choose legal moves) use it.
//
// The board is 14 numbers: South's pits a-f at 0-5, South's store at 6, North's pits A-F at
// 7-12, North's store at 13 (K1, K3). Sowing counter-clockwise is index + 1.

export const PITS = 6;
export const SOUTH_STORE = 6;
export const NORTH_STORE = 13;

export function start(seeds = 4) {
  // K2: every pit the same, stores empty.
  const board = new Array(14).fill(seeds);
  board[SOUTH_STORE] = 0;
  board[NORTH_STORE] = 0;
  return board;
}

export function storeOf(player) {
  return player === 0 ? SOUTH_STORE : NORTH_STORE;
}

// The board index of a player's pit 0-5 (a-f / A-F, from the owner's left).
export function pitIndex(player, pit) {
  return player * 7 + pit;
}

export function legal(board, player) {
  const out = [];
  for (let pit = 0; pit < PITS; pit++) {
    if (board[pitIndex(player, pit)] > 0) out.push(pit);
  }
  return out;
}

function sideEmpty(board, player) {
  for (let pit = 0; pit < PITS; pit++) {
    if (board[pitIndex(player, pit)] > 0) return false;
  }
  return true;
}

// Sow `player`'s pit (0-5) in place; the caller has checked it is legal.
// Returns { next: whose turn, over: boolean }.
export function sow(board, player, pit) {
  const own = storeOf(player);
  const skip = storeOf(1 - player);
  let at = pitIndex(player, pit);
  let seeds = board[at];
  board[at] = 0;
  // K4: one seed a place, counter-clockwise, the opponent's store passed over; 13 or more
  // seeds go all the way round and the pit they came from gets one too.
  while (seeds > 0) {
    at = (at + 1) % 14;
    if (at === skip) continue;
    board[at] += 1;
    seeds -= 1;
  }
  let next = 1 - player;
  if (at === own) {
    next = player; // K5: last seed in your own store, move again
  } else if (at >= pitIndex(player, 0) && at < own && board[at] === 1) {
    // K6: last seed in an own pit that was empty; the pit straight across (12 - at)
    // must hold seeds. K7: the turn passes either way.
    const across = 12 - at;
    if (board[across] > 0) {
      board[own] += board[across] + 1;
      board[across] = 0;
      board[at] = 0;
    }
  }
  // K8: after every move, a side with six empty pits ends the game; what is left goes to
  // the store of the side it is on.
  if (sideEmpty(board, 0) || sideEmpty(board, 1)) {
    for (const p of [0, 1]) {
      for (let i = 0; i < PITS; i++) {
        board[storeOf(p)] += board[pitIndex(p, i)];
        board[pitIndex(p, i)] = 0;
      }
    }
    return { next, over: true };
  }
  return { next, over: false };
}

// K9: 0 South, 1 North, 2 a draw.
export function winner(board) {
  const [s, n] = [board[SOUTH_STORE], board[NORTH_STORE]];
  return s > n ? 0 : n > s ? 1 : 2;
}

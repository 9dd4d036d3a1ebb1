// A `moved` message (server/PROTOCOL.md, "Moves, lighter") applied to the state it follows:
// the page joins with states "moves" and is sent, for each move, only what the move changed.
// Nothing here knows a rule: the server says which pits changed, whose turn it is and what is
// legal; this only unpacks its compact forms into the whole state the rest of the page draws.

// [kind, pit, seeds, to, player, note] with trailing empty values left out, player null when it is
// the side that moved (`mover`) and -1 when the step has none -> a step object with no empty
// fields, as a state's last.steps has them.
function expandStep(row, mover) {
  const step = { kind: row[0] };
  const names = ["kind", "pit", "seeds", "to", "player", "note"];
  for (let i = 1; i < names.length; i++) {
    let value = row[i];
    if (names[i] === "player") value = value === null || value === undefined ? mover : value === -1 ? null : value;
    if (value === null || value === undefined || (names[i] === "seeds" && value === 0)) continue;
    step[names[i]] = value;
  }
  return step;
}

function expandLegal(item) {
  if (typeof item === "string") return { move: item, pit: item, choice: "" };
  return { move: item[0], pit: item[1], choice: item[2] };
}

function mergeBoard(board, changes) {
  const out = { ...board };
  for (const [key, value] of Object.entries(changes)) {
    const old = out[key];
    const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
    out[key] = isObject(value) && isObject(old) ? { ...old, ...value } : value;
  }
  return out;
}

// A person's absence counts on while no state comes (PROTOCOL.md, `seats`): a state made from a
// `moved` carries the seats as they were `elapsedMs` later than the state they came in.
function agedSeat(seat, elapsedMs) {
  if (seat.present || seat.handover_ms === null || seat.handover_ms === undefined) return seat;
  return {
    ...seat,
    absent_ms: seat.absent_ms + elapsedMs,
    handover_ms: Math.max(0, seat.handover_ms - elapsedMs),
  };
}

// Whether `m` applies to `prev` (else the page has missed something and joins again).
export function follows(prev, m) {
  return Boolean(prev) && prev.to_move !== null && m.version === prev.version + 1;
}

// The whole state after the move `m`, from `prev` (the state it follows, received `elapsedMs` ago).
export function applyMoved(prev, m, elapsedMs = 0) {
  return {
    ...prev,
    t: "state",
    version: m.version,
    board: mergeBoard(prev.board, m.board),
    to_move: m.to_move ?? null,
    legal: (m.legal ?? []).map(expandLegal),
    last: {
      move: m.move,
      side: prev.to_move,
      steps: m.steps.map((row) => expandStep(row, prev.to_move)),
      id: m.id ?? null,
    },
    outcome: m.outcome ?? null,
    adjudication: m.adjudication ?? null,
    archive: m.archive ?? null,
    clock: m.clock ?? prev.clock,
    offer: null,
    plies: prev.plies + 1,
    seats: prev.seats.map((seat) => agedSeat(seat, Math.max(0, Math.round(elapsedMs)))),
    resync: false,
  };
}

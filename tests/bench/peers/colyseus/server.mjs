// A minimal Colyseus Kalah server: the peer nyumba's per-move cost is compared with
// (tests/bench/peers/README.md). Kept as Colyseus's own documentation would have it: the
// default ws transport, state in a Schema, `patchRate = null` and one `broadcastPatch()` per
// move, so a move costs what a turn-based Colyseus room costs and nothing else.
//
//   node server.mjs --port 2567 [--redis redis://127.0.0.1:6379/0]
//
// With --redis the rooms still live in this process's memory, but matchmaking and presence go
// through Redis (RedisPresence + RedisDriver): Colyseus's way to run several processes.
// Prints "listening <port>" once it accepts connections.

import { Room, Server } from "@colyseus/core";
import { schema, t } from "@colyseus/schema";
import { WebSocketTransport } from "@colyseus/ws-transport";

import { legal, start, sow, winner } from "./kalah.mjs";

// The 14 board numbers and whose turn (0 South, 1 North); `result` is -1 while the game runs,
// then 0 South won, 1 North won, 2 a draw (K9).
const KalahState = schema(
  {
    board: t.array("uint8"),
    toMove: t.uint8().default(0),
    result: t.int8().default(-1),
  },
  "KalahState",
);

class KalahRoom extends Room {
  maxClients = 2;
  patchRate = null; // no patch timer: a turn-based room sends a patch when a move happens

  onCreate() {
    this.state = new KalahState();
    this.state.board.push(...start());
    // With no patch timer nothing would flush the changes made here, and the first move's
    // patch would carry the 14 pits again on top of the full state the seats joined with (the
    // seats then decode 21 pits). A patch with no client in the room only drops them.
    this.broadcastPatch();
    this.seats = new Map(); // sessionId -> 0 (South, the first to join) or 1 (North)
    this.onMessage("move", (client, pit) => this.move(client, pit));
  }

  onJoin(client) {
    this.seats.set(client.sessionId, this.seats.size === 0 ? 0 : 1);
  }

  move(client, pit) {
    const st = this.state;
    const seat = this.seats.get(client.sessionId);
    // Bad input gets a code and a sentence and changes nothing.
    if (st.result !== -1) return this.refuse(client, "game-over", "the game is over");
    if (seat !== st.toMove) return this.refuse(client, "not-your-turn", "it is not your turn");
    if (!Number.isInteger(pit) || !legal(st.board, seat).includes(pit)) {
      return this.refuse(client, "illegal-move", `pit ${pit} is not one of your non-empty pits`);
    }
    // The rules work on a plain array (kalah.mjs, shared with the load generator); the
    // numbers are written back into the Schema, which records only the ones that changed.
    const board = st.board.toArray();
    const { next, over } = sow(board, seat, pit);
    for (let i = 0; i < 14; i++) st.board[i] = board[i];
    st.toMove = next;
    if (over) st.result = winner(board);
    this.broadcastPatch();
  }

  refuse(client, code, message) {
    client.send("error", { code, message });
  }
}

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
}

const port = Number(arg("--port", "2567"));
const redis = arg("--redis", "");
const options = { transport: new WebSocketTransport(), greet: false };
if (redis) {
  const { RedisPresence } = await import("@colyseus/redis-presence");
  const { RedisDriver } = await import("@colyseus/redis-driver");
  options.presence = new RedisPresence(redis);
  options.driver = new RedisDriver(redis);
}
const server = new Server(options);
server.define("kalah", KalahRoom);
await server.listen(port, "127.0.0.1");
console.log(`listening ${port}`);

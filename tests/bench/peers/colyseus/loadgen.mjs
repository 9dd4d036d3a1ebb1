// The load generator for the Colyseus Kalah room: tests/bench/load.py's schedule, with
// Colyseus's own client (@colyseus/sdk), in a process of its own. Run by ../colyseus.py:
//
//   node loadgen.mjs --url http://127.0.0.1:2567 --rooms 200 --rate 0 --seconds 20
//                    --server-pid PID [--store-pid PID] --clk-tck 100
//
// N rooms x 2 sockets, each room one game between its two seats, choosing random legal moves.
// --rate 0: closed loop, each room's mover sends its next move as soon as it has seen the
// previous state. --rate R: each room moves R times a second on a schedule, every room first
// played to a random point of a game (0-29 moves) so games end, and new rooms open, at a steady
// rate. A room whose game ends is left and a new one opened, as load.py does. "Seen a state" is
// Colyseus's onStateChange: with patchRate = null the room sends one patch per move, so a seat's
// version is the number of patches it has decoded since the full state it joined with.
//
// The measured window starts once every room is open (and staggered) and ends with the clock;
// over it the generator reads the server's (and the store's) CPU from /proc/<pid>/stat and the
// bytes the server wrote from /proc/<pid>/io `wchar`, and counts the bytes its own sockets
// received. It prints one JSON line with the figures; colyseus.py prints them as load.py does.

import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

import "./ws-client.mjs";
import { Client } from "@colyseus/sdk";

import { legal } from "./kalah.mjs";

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
}

const URL_ = arg("--url", "http://127.0.0.1:2567");
const ROOMS = Number(arg("--rooms", "200"));
const RATE = Number(arg("--rate", "0"));
const SECONDS = Number(arg("--seconds", "10"));
const SERVER_PID = Number(arg("--server-pid", "0"));
const STORE_PID = Number(arg("--store-pid", "0"));
const CLK_TCK = Number(arg("--clk-tck", "100"));

const now = () => performance.now(); // ms

// A small seeded generator (mulberry32): the same games from run to run, as load.py's Random(1).
function rng32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function cpuS(pid) {
  if (!pid) return 0;
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime + stime
}

function wchar(pid) {
  const m = readFileSync(`/proc/${pid}/io`, "utf8").match(/^wchar: (\d+)$/m);
  return Number(m[1]);
}

function rssKb(pid) {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+)/m);
  return Number(m[1]);
}

const received = { counting: false, bytes: 0 };

// One seat's socket: the newest state it has seen and promises waiting for versions.
class Seat {
  constructor(room) {
    this.room = room;
    this.version = -1;
    this.state = null;
    this.waiters = new Map(); // version -> resolve
    room.onStateChange((state) => {
      this.version += 1;
      this.state = state;
      for (const [v, resolve] of this.waiters) {
        if (v <= this.version) {
          this.waiters.delete(v);
          resolve();
        }
      }
    });
    const socket = room.connection.transport.ws?._socket; // the `ws` package's net.Socket
    socket?.on("data", (chunk) => {
      if (received.counting) received.bytes += chunk.length;
    });
  }

  waitVersion(v) {
    if (this.version >= v) return Promise.resolve();
    return new Promise((resolve) => this.waiters.set(v, resolve));
  }
}

function within(promise, ms) {
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const client = new Client(URL_);

async function openRoom() {
  for (let attempt = 0; ; attempt++) {
    try {
      // Each seat listens as soon as it has joined: its full state follows the join.
      const south = new Seat(await client.create("kalah"));
      const seats = [south, new Seat(await client.joinById(south.room.roomId))];
      await within(Promise.all(seats.map((s) => s.waitVersion(0))), 60000);
      return seats;
    } catch (err) {
      if (attempt === 2) throw err;
    }
  }
}

async function closeRoom(seats) {
  await Promise.all(seats.map((s) => s.room.leave(true).catch(() => {})));
}

function newest(seats) {
  return seats[0].version >= seats[1].version ? seats[0] : seats[1];
}

let timeouts = 0;

async function playRoom(seats, until, rate, rtts, counter, rand, limit = Infinity) {
  const period = rate ? 1000 / rate : 0;
  let nextAt = now() + (period ? rand() * period : 0);
  let n = 0;
  while (now() < until && n < limit) {
    const st = newest(seats);
    if (st.state.result !== -1) return;
    if (period) {
      const delay = nextAt - now();
      if (delay > 0) await sleep(delay);
      nextAt += period;
    }
    const version = st.version;
    const mover = seats[st.state.toMove];
    await mover.waitVersion(version);
    const moves = legal(mover.state.board, st.state.toMove);
    const pit = moves[Math.floor(rand() * moves.length)];
    n += 1;
    const t0 = now();
    mover.room.send("move", pit);
    if ((await within(mover.waitVersion(version + 1), 10000)) === "timeout") {
      console.error("timeout waiting for a state");
      timeouts += 1;
      return;
    }
    rtts.push([now() - t0, t0]);
    counter.moves += 1;
  }
}

async function runGames() {
  let opened = [];
  for (let batch = 0; batch < ROOMS; batch += 50) {
    const size = Math.min(ROOMS, batch + 50) - batch;
    opened = opened.concat(await Promise.all(Array.from({ length: size }, () => openRoom())));
  }
  if (RATE) {
    // Every room starts somewhere in its game (load.py's stagger).
    const stagger = async (i, seats) => {
      const r = rng32(i + 1);
      const limit = Math.floor(r() * 30);
      await playRoom(seats, now() + 300000, 0, [], { moves: 0 }, r, limit);
      if (seats[0].state.result === -1 && seats[1].state.result === -1) return seats;
      await closeRoom(seats);
      return openRoom();
    };
    for (let batch = 0; batch < ROOMS; batch += 200) {
      const end = Math.min(ROOMS, batch + 200);
      const done = await Promise.all(opened.slice(batch, end).map((s, k) => stagger(batch + k, s)));
      opened.splice(batch, done.length, ...done);
    }
  }
  const rtts = [];
  const counter = { moves: 0 };
  const rng = rng32(1);
  const marks = snapshot();
  const t0 = now();
  const until = t0 + SECONDS * 1000;
  const keepPlaying = async (seats) => {
    for (;;) {
      await playRoom(seats, until, RATE, rtts, counter, rng32(Math.floor(rng() * 2 ** 32)));
      if (now() >= until) return seats;
      await closeRoom(seats);
      seats = await openRoom();
    }
  };
  const stillOpen = await Promise.all(opened.map((seats) => keepPlaying(seats)));
  const elapsed = (now() - t0) / 1000;
  const figures = stopClock(marks);
  await Promise.all(stillOpen.map(closeRoom));
  return { ...figures, moves: counter.moves, elapsed, rtts };
}

function snapshot() {
  received.bytes = 0;
  received.counting = true;
  return {
    server: cpuS(SERVER_PID),
    store: cpuS(STORE_PID),
    wchar: wchar(SERVER_PID),
    own: process.cpuUsage(),
  };
}

function stopClock(marks) {
  received.counting = false;
  const own = process.cpuUsage(marks.own);
  return {
    server_cpu_s: cpuS(SERVER_PID) - marks.server,
    store_cpu_s: cpuS(STORE_PID) - marks.store,
    server_wchar: wchar(SERVER_PID) - marks.wchar,
    client_received: received.bytes,
    generator_cpu_s: (own.user + own.system) / 1e6,
    server_rss_kb: rssKb(SERVER_PID),
  };
}

function pct(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

const result = await runGames();
const rtts = result.rtts.map(([rtt]) => rtt).sort((a, b) => a - b);
delete result.rtts;
console.log(
  JSON.stringify({
    ...result,
    timeouts,
    p50: pct(rtts, 50),
    p95: pct(rtts, 95),
    p99: pct(rtts, 99),
    max: pct(rtts, 100),
  }),
);
process.exit(0);

// The room's WebSocket: join, notice a dead link within seconds, and reconnect with backoff.
//
// The connection sends {t:"join", room, token, version} each time it opens, with the seat token
// kept for this room (so a reload or a dropped line gets the same seat back) and the last version
// the page saw. The server answers with welcome + the current state, which resynchronises the board.
//
// A link can die without closing (dead Wi-Fi, a stalled proxy): nothing arrives and a close
// handshake would wait for a peer that is gone. So the page pings every PING_MS, counts any
// message as a sign of life, and when nothing has arrived for DEAD_MS it drops the socket at once
// (it does not wait for the close to finish) and says so; the browser's `offline` event does the
// same without waiting. A socket that opens but never welcomes within DEAD_MS is dropped too.

import { settings, tokens } from "./api.js";
import { applyMoved, follows } from "./moved.js";

const PING_MS = 3_000;
const DEAD_MS = 7_000; // with PING_MS: a dead link is noticed 7-10 s after it died
const CHECK_MS = 1_000;
const MAX_DELAY_MS = 8_000;
// An acked move's state normally follows its ack within milliseconds. If it has not come in this
// long, the server's fan-out lost it (a store restart): join again, which answers with the state.
// The page joins with acks "state" (server/PROTOCOL.md): a move is answered by the state it made
// (its last.id is the move's id), one frame fewer per move; a move with no answer in this long is
// treated the same way.
const ACKED_STATE_MS = 2_000;

export class Connection {
  // onMessage(msg) for every server message; onStatus(status, detail) with status one of
  // "connecting", "open", "reconnecting" (detail: ms until the next try), "stopped".
  constructor(room, { onMessage, onStatus }) {
    this.room = room;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.version = null;
    this.ws = null;
    this.welcomed = false; // this socket has had its welcome
    this.joined = false; // … and the state that follows it: the page shows the room as it is
    this.failures = 0;
    this.stopped = false;
    this.retryTimer = null;
    this.watchTimer = null;
    this.heard = 0; // performance.now() of the last message (or of opening)
    this.pinged = 0;
    this.pingNo = 0;
    this.awaited = null; // the version an ack named whose state has not arrived yet
    this.awaitTimer = null;
    this.moveSent = null; // the id of a move sent and not answered yet
    this.moveTimer = null;
    this.state = null; // the newest state, whole: what the next `moved` is applied to
    this.stateAt = 0; // performance.now() when it arrived
    this.rejoining = false; // joined again for a whole state (a `moved` did not follow)
    window.addEventListener("online", () => this.retryNow());
    window.addEventListener("offline", () => this.drop("offline"));
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.retryNow();
    });
  }

  start() {
    this.stopped = false;
    this.open();
  }

  // Stop for good (the room is gone).
  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.watchTimer);
    const ws = this.ws;
    this.ws = null;
    ws?.close(1000);
    this.onStatus("stopped");
  }

  // Open and joined: intents sent now reach the server, and the page shows the room's state as
  // the server sent it on joining (not the state from before the link dropped).
  get isOpen() {
    return this.joined && this.ws?.readyState === WebSocket.OPEN;
  }

  send(message) {
    if (this.ws?.readyState !== WebSocket.OPEN) return false;
    // A clocked game credits a move its network lag, within bounds (server/PROTOCOL.md, "Clocks").
    if (message.t === "move" && this.lag) message = { ...message, lag: this.lag };
    this.ws.send(JSON.stringify(message));
    if (message.t === "move" && message.id) this.awaitAnswer(message.id);
    return true;
  }

  // Wait for the answer to a move (null: stop waiting): its state, or an ack or error naming it.
  awaitAnswer(id) {
    clearTimeout(this.moveTimer);
    this.moveSent = id;
    if (id === null) return;
    this.moveTimer = setTimeout(() => {
      this.moveSent = null;
      if (this.isOpen) this.join();
    }, ACKED_STATE_MS);
  }

  open() {
    clearTimeout(this.retryTimer);
    this.onStatus(this.failures ? "reconnecting" : "connecting", 0);
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    // The room in the URL lets a proxy send all of a room's sockets to one node (deploy/proxy/
    // nginx.conf, "room affinity"); the join below is what the server goes by.
    const ws = new WebSocket(`${scheme}//${location.host}/ws?room=${encodeURIComponent(this.room)}`);
    this.ws = ws;
    this.welcomed = false;
    this.joined = false;
    this.heard = performance.now();
    this.pinged = this.heard;
    this.watch();
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return;
      this.heard = performance.now();
      this.join();
    });
    ws.addEventListener("message", (event) => {
      if (this.ws !== ws) return;
      this.heard = performance.now();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.t === "pong") {
        // Half the round trip of the latest ping: the lag a move reports.
        if (message.n === this.pingNo && this.pingAt) this.lag = Math.min(5000, Math.round((performance.now() - this.pingAt) / 2));
        return;
      }
      if (message.t === "moved") {
        // A move, as what it changed (joined with states "moves"): the page gets the whole
        // state it makes. One that does not follow the state held means something was missed:
        // join again, which answers with the whole current state.
        if (!follows(this.state, message)) {
          if (!this.rejoining) {
            this.rejoining = true;
            this.join();
          }
          return;
        }
        message = applyMoved(this.state, message, performance.now() - this.stateAt);
      }
      if (message.t === "welcome") {
        this.welcomed = true;
        // The join's own state follows at once; if it does not come, join again.
        if (!this.joined) this.awaitState(-1);
      }
      if (message.t === "state") {
        this.rejoining = false;
        this.state = message;
        this.stateAt = performance.now();
        this.version = message.version;
        if (this.awaited !== null && message.version >= this.awaited) this.awaitState(null);
        if (this.moveSent !== null && message.last?.id === this.moveSent) this.awaitAnswer(null);
      }
      if ((message.t === "ack" || message.t === "error") && message.id === this.moveSent) {
        this.awaitAnswer(null); // an ack's state is awaited below
      }
      if (message.t === "ack" && message.version >= 0 && !(this.version >= message.version)) {
        this.awaitState(message.version);
      }
      this.onMessage(message);
      // "open" only once the state that follows the welcome is drawn: between the two, the page
      // still holds the state from before a drop, and a move made on it would be refused.
      if (message.t === "state" && this.welcomed && !this.joined) {
        this.joined = true;
        this.failures = 0;
        this.onStatus("open");
      }
    });
    // "error" is always followed by "close"; reconnecting is decided there.
    ws.addEventListener("close", () => {
      if (this.ws !== ws) return; // already dropped
      this.lost();
    });
  }

  // Give up on the current socket now: tell the page at once and try again. The old socket's
  // close handshake may never finish on a dead link, so it is not waited for.
  drop(why) {
    const ws = this.ws;
    if (!ws || this.stopped) return;
    this.ws = null;
    try {
      ws.close(4000, why);
    } catch {
      /* already closing */
    }
    this.lost();
  }

  // Wait for the state of an acked version (-1: any state; null: stop waiting); rejoin if it does
  // not come.
  awaitState(version) {
    clearTimeout(this.awaitTimer);
    this.awaited = version;
    if (version === null) return;
    this.awaitTimer = setTimeout(() => {
      this.awaited = null;
      if (this.ws?.readyState === WebSocket.OPEN) this.join();
    }, ACKED_STATE_MS);
  }

  lost() {
    this.rejoining = false;
    this.awaitState(null);
    this.awaitAnswer(null);
    this.ws = null;
    this.welcomed = false;
    this.joined = false;
    clearInterval(this.watchTimer);
    if (this.stopped) return;
    this.scheduleRetry();
  }

  // Join (or join again, e.g. after the name changed): the seat token, the last version seen,
  // and the display name if there is one.
  join() {
    const name = settings.name() || undefined;
    return this.send({
      t: "join",
      room: this.room,
      token: tokens.get(this.room),
      version: this.version,
      name,
      acks: "state",
      states: "moves",
    });
  }

  scheduleRetry() {
    this.failures += 1;
    // 0.5 s, 1 s, 2 s, … up to 8 s, with jitter so a restarted server is not hit all at once.
    const base = Math.min(MAX_DELAY_MS, 500 * 2 ** (this.failures - 1));
    const delay = Math.round(base * (0.5 + Math.random() / 2));
    this.onStatus("reconnecting", delay);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(), delay);
  }

  retryNow() {
    if (this.stopped || this.ws) return;
    this.open();
  }

  // Ping while open; drop the socket when nothing has been heard for DEAD_MS (a socket still
  // connecting counts from when it was opened).
  watch() {
    clearInterval(this.watchTimer);
    let tick = performance.now();
    this.watchTimer = setInterval(() => {
      const ws = this.ws;
      const now = performance.now();
      // A late tick means this page's timers were held back (a background tab, a sleeping
      // laptop), not that the link went quiet: ping now and give the answer DEAD_MS again.
      if (now - tick > 3 * CHECK_MS) {
        this.heard = Math.max(this.heard, now - CHECK_MS);
        this.pinged = 0;
      }
      tick = now;
      if (!ws) return;
      if (now - this.heard > DEAD_MS) {
        this.drop("no answer");
        return;
      }
      if (ws.readyState === WebSocket.OPEN && now - this.pinged >= PING_MS) {
        this.pinged = now;
        this.pingAt = performance.now();
        ws.send(JSON.stringify({ t: "ping", n: ++this.pingNo }));
      }
    }, CHECK_MS);
  }
}

// The room's WebSocket: join, keep alive, and reconnect with backoff after any drop.
//
// The connection sends {t:"join", room, token, version} each time it opens, with the seat token
// kept for this room (so a reload or a dropped line gets the same seat back) and the last version
// the page saw. The server answers with welcome + the current state, which resynchronises the board.

import { settings, tokens } from "./api.js";

const PING_MS = 20_000;
const PONG_WAIT_MS = 10_000;
const MAX_DELAY_MS = 10_000;

export class Connection {
  // onMessage(msg) for every server message; onStatus(status, detail) with status one of
  // "connecting", "open", "reconnecting" (detail: ms until the next try), "stopped".
  constructor(room, { onMessage, onStatus }) {
    this.room = room;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.version = null;
    this.ws = null;
    this.failures = 0;
    this.stopped = false;
    this.retryTimer = null;
    this.pingTimer = null;
    this.pongTimer = null;
    this.pingNo = 0;
    window.addEventListener("online", () => this.retryNow());
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
    this.clearPing();
    this.ws?.close(1000);
    this.onStatus("stopped");
  }

  get isOpen() {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  send(message) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  open() {
    clearTimeout(this.retryTimer);
    this.onStatus(this.failures ? "reconnecting" : "connecting", 0);
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/ws`);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.join();
      this.startPing();
    });
    ws.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.t === "pong") {
        clearTimeout(this.pongTimer);
        return;
      }
      if (message.t === "welcome") {
        this.failures = 0;
        this.onStatus("open");
      }
      if (message.t === "state") this.version = message.version;
      this.onMessage(message);
    });
    // "error" is always followed by "close"; reconnecting is decided there.
    ws.addEventListener("close", () => {
      if (this.ws !== ws) return;
      this.clearPing();
      this.ws = null;
      if (this.stopped) return;
      this.scheduleRetry();
    });
  }

  // Join (or join again, e.g. after the name changed): the seat token, the last version seen,
  // and the display name if there is one.
  join() {
    const name = settings.name() || undefined;
    return this.send({ t: "join", room: this.room, token: tokens.get(this.room), version: this.version, name });
  }

  scheduleRetry() {
    this.failures += 1;
    // 0.5 s, 1 s, 2 s, … up to 10 s, with jitter so a restarted server is not hit all at once.
    const base = Math.min(MAX_DELAY_MS, 500 * 2 ** (this.failures - 1));
    const delay = Math.round(base * (0.5 + Math.random() / 2));
    this.onStatus("reconnecting", delay);
    this.retryTimer = setTimeout(() => this.open(), delay);
  }

  retryNow() {
    if (this.stopped || this.ws) return;
    this.open();
  }

  startPing() {
    this.clearPing();
    this.pingTimer = setInterval(() => {
      if (!this.isOpen) return;
      this.ws.send(JSON.stringify({ t: "ping", n: ++this.pingNo }));
      // A silent line (a sleeping laptop, a dead proxy) does not always close by itself.
      clearTimeout(this.pongTimer);
      this.pongTimer = setTimeout(() => this.ws?.close(4000), PONG_WAIT_MS);
    }, PING_MS);
  }

  clearPing() {
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
  }
}

// What this page tells its server about itself, unless the player turned it off (the switch in
// the room's settings and on the "what we record" page, privacy.html; off is remembered in this
// browser). Only what the server cannot see for itself, as the Kalah site's own list has it: a
// friend's link that could not connect, a socket that kept failing, and the kind of device in
// brackets. The games themselves the server counts (server/rooms/tally.py). Each report is one
// POST /api/reports, to this site only; every value is from a closed list the server checks
// (server/web/api.py, PageReport), so nothing free-form — no user agent, no id — is ever sent.

import { settings } from "./api.js";

const UNREACHABLE_AFTER = 3; // failed tries of a friend's link before it counts as unreachable
const FAILING_AFTER = 4; // failed tries in a row of any room's socket
const DEVICE_SENT = "nyumba:device-reported"; // per tab (sessionStorage): once a visit

export function sendReport(report) {
  if (!settings.reports()) return false;
  fetch("/api/reports", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(report),
    keepalive: true, // a report sent as the page closes still goes
  }).catch(() => {});
  return true;
}

// The device in brackets, read from what the browser says of itself.
export function deviceReport(nav = navigator) {
  const ua = nav.userAgent || "";
  const memory = nav.deviceMemory; // GB, rounded by the browser (Chromium only)
  const cores = nav.hardwareConcurrency;
  return {
    kind: "device",
    phone: nav.userAgentData?.mobile ?? /Mobi|iPhone/.test(ua),
    memory: !memory ? "unknown" : memory < 1 ? "<1" : memory >= 8 ? "8+" : String(2 ** Math.floor(Math.log2(memory))),
    cores: !cores ? "unknown" : cores <= 2 ? "1-2" : cores <= 4 ? "3-4" : cores <= 8 ? "5-8" : "9+",
    browser: family(ua, [
      ["edge", /Edg(e|A|iOS)?\//],
      ["opera", /OPR\/|Opera/],
      ["samsung", /SamsungBrowser/],
      ["firefox", /Firefox|FxiOS/],
      ["chrome", /Chrome|Chromium|CriOS/],
      ["safari", /Safari/],
    ]),
    os: family(ua, [
      ["android", /Android/],
      ["ios", /iPhone|iPad|iPod/],
      ["chromeos", /CrOS/],
      ["windows", /Windows/],
      ["macos", /Mac OS X|Macintosh/],
      ["linux", /Linux/],
    ]),
  };
}

function family(ua, patterns) {
  return patterns.find(([, re]) => re.test(ua))?.[0] ?? "other";
}

// The room page's reports, each at most once a page. `friendLink`: the page was opened from a
// friend's link (it holds no seat token for the room yet).
export class RoomReports {
  constructor({ friendLink }) {
    this.friendLink = friendLink;
    this.opened = false;
    this.sent = new Set();
  }

  once(report) {
    const kind = report.kind;
    if (!this.sent.has(kind) && sendReport(report)) this.sent.add(kind);
  }

  // The connection's status (net.js) and its failed tries in a row.
  status(status, failures) {
    if (status === "open") {
      this.opened = true;
      this.device();
    } else if (status === "reconnecting") {
      if (this.friendLink && !this.opened && failures >= UNREACHABLE_AFTER) {
        this.once({ kind: "friend-link", reason: "unreachable" });
      }
      if (failures >= FAILING_AFTER) this.once({ kind: "socket-failing" });
    }
  }

  // The server refused the join: a friend's link to a room that is gone or full.
  refused(code) {
    if (this.friendLink && !this.opened && (code === "no-room" || code === "room-full")) {
      this.once({ kind: "friend-link", reason: code });
    }
  }

  device() {
    try {
      if (sessionStorage.getItem(DEVICE_SENT)) return;
      if (sendReport(deviceReport())) sessionStorage.setItem(DEVICE_SENT, "1");
    } catch {
      /* storage refused: no device report rather than one at every connection */
    }
  }
}

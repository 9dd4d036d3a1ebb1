// The HTTP side of the server, the seat tokens and the per-browser settings.

async function asJson(response) {
  const text = await response.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!response.ok) {
    const message = body?.message || `${response.status} ${response.statusText}`;
    const error = new Error(message);
    error.code = body?.code || String(response.status);
    throw error;
  }
  return body;
}

export async function getGames() {
  return asJson(await fetch("/api/games", { headers: { Accept: "application/json" } }));
}

// {game, options, mode, side, level} -> {room, url, token, sides}
export async function createRoom(request) {
  return asJson(
    await fetch("/api/rooms", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(request),
    }),
  );
}

export function recordUrl(room) {
  return `/api/rooms/${encodeURIComponent(room)}/record`;
}

export async function getRecord(room) {
  return asJson(await fetch(recordUrl(room), { headers: { Accept: "application/json" } }));
}

// A record (parsed JSON or its text) -> {game, options, states: [...], outcome, adjudication}
export async function replay(record) {
  return asJson(
    await fetch("/api/replay", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: typeof record === "string" ? record : JSON.stringify(record),
    }),
  );
}

function get(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function put(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    /* storage refused (private mode): the seat lasts as long as the page */
  }
}

export const tokens = {
  get: (room) => get(`nyumba:token:${room}`),
  set: (room, token) => put(`nyumba:token:${room}`, token),
  forget: (room) => put(`nyumba:token:${room}`, null),
};

// A display name as the server accepts it: 1–24 characters, no control characters or <>.
export function cleanName(text) {
  return [...(text || "").replace(/[\u0000-\u001f\u007f<>]/g, "").trim()].slice(0, 24).join("");
}

export const settings = {
  name: () => cleanName(get("nyumba:name")),
  setName: (v) => put("nyumba:name", cleanName(v) || null),
  speed: () => get("nyumba:speed") || "normal", // normal | fast | off
  setSpeed: (v) => put("nyumba:speed", v),
  sound: () => get("nyumba:sound") === "1",
  setSound: (on) => put("nyumba:sound", on ? "1" : "0"),
  // "Tap to select, tap again to play": on by default where the pointer is a finger.
  tapConfirm: () => {
    const v = get("nyumba:tap");
    return v === null ? window.matchMedia("(pointer: coarse)").matches : v === "1";
  },
  setTapConfirm: (on) => put("nyumba:tap", on ? "1" : "0"),
  // The page's reports to the server (reports.js): on unless the player turned them off.
  reports: () => get("nyumba:reports") !== "0",
  setReports: (on) => put("nyumba:reports", on ? "1" : "0"),
};

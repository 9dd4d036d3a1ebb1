// The player this browser is (server/web/players.py): made on the first visit, named as the
// seats are, carried to another device with a passkey, and deleted on request. The session
// lives in an HttpOnly cookie the page never sees; the page only asks the server.

import { $, h, show } from "./dom.js";
import { known, t } from "./i18n.js";
import { cleanName, settings } from "./api.js";

async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? { Accept: "application/json" } : { "Content-Type": "application/json", Accept: "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const error = new Error(data?.message || `${response.status}`);
    error.code = data?.code || String(response.status);
    throw error;
  }
  return data;
}

// The player, or null when this browser has none; throws when the archive does not answer.
export async function me() {
  const answer = await call("GET", "/api/me");
  return answer.player ? answer : null;
}

// Why this browser has no player, when the server said so: "rate-limited" while its address
// (a school's network, say) has made as many new players as it may this minute.
let refusal = null;

// One name per player: the player's own (the archive's) once it has one, else the one typed on
// this device, which then becomes the player's. The copy in this browser (settings.name()) is
// what the lobby's seeks and the rooms' joins carry, so it follows the player's.
function adopt(player) {
  if (player?.name) settings.setName(player.name);
  return player;
}

// Be someone before joining a room or the lobby, so the seat and the seek are the player's (POST
// makes a player only if this browser has none); never holds the page up long, and never stops
// play: without a player the seats are simply not linked.
export async function ensurePlayer(name) {
  const work = (async () => {
    const player = await call("POST", "/api/me", {});
    if (player.name || !name) return adopt(player);
    try {
      return await call("PATCH", "/api/me", { name });
    } catch {
      return player; // a name the server refuses: the player stays nameless
    }
  })();
  const late = new Promise((resolve) => setTimeout(() => resolve(null), 2500));
  const failed = (err) => {
    refusal = err.code;
    return null;
  };
  return Promise.race([work.catch(failed), late]);
}

// The player's name, typed (the server may refuse it: bad-name); then this browser's too.
export async function rename(name) {
  const player = await call("PATCH", "/api/me", { name: cleanName(name) || null });
  settings.setName(player.name || null);
  return player;
}

export const deleteMe = () => call("DELETE", "/api/me");
export const signOut = () => call("POST", "/api/me/signout", {});

// WebAuthn's binary fields travel as base64url text.
const fromB64 = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4)), (c) => c.charCodeAt(0)).buffer;
const toB64 = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const ids = (list) => (list || []).map((c) => ({ ...c, id: fromB64(c.id) }));

function credentialJSON(cred) {
  if (typeof cred.toJSON === "function") return cred.toJSON();
  const r = cred.response;
  const response = { clientDataJSON: toB64(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toB64(r.attestationObject);
    response.transports = r.getTransports?.() || [];
  } else {
    response.authenticatorData = toB64(r.authenticatorData);
    response.signature = toB64(r.signature);
    if (r.userHandle) response.userHandle = toB64(r.userHandle);
  }
  return { id: cred.id, rawId: toB64(cred.rawId), type: cred.type, response, clientExtensionResults: cred.getClientExtensionResults?.() || {} };
}

export async function addPasskey() {
  const { challenge, options: o } = await call("POST", "/api/passkeys/register/options", {});
  const publicKey = { ...o, challenge: fromB64(o.challenge), user: { ...o.user, id: fromB64(o.user.id) }, excludeCredentials: ids(o.excludeCredentials) };
  const cred = await navigator.credentials.create({ publicKey });
  return call("POST", "/api/passkeys/register", { challenge, credential: credentialJSON(cred) });
}

export async function signIn() {
  const { challenge, options: o } = await call("POST", "/api/passkeys/signin/options", {});
  const publicKey = { ...o, challenge: fromB64(o.challenge), allowCredentials: ids(o.allowCredentials) };
  const cred = await navigator.credentials.get({ publicKey });
  return call("POST", "/api/passkeys/signin", { challenge, credential: credentialJSON(cred) });
}

// Why a passkey did not work, in the player's words: the browser's refusal (a DOMException's
// name: NotAllowedError when cancelled or timed out, SecurityError when this address may not
// use passkeys, InvalidStateError when this device already holds one for the player, …) or the
// server's problem code. Anything else keeps its own message.
export function passkeyTrouble(err) {
  // a DOMException's own `code` is a legacy number: its name says what happened
  const key = `passkey.${err instanceof DOMException ? err.name : err.code}`;
  if (!known(key)) return ["me.failed", { msg: err.message }];
  // wrong-address: the server's sentence names the address to open; the words are ours
  const url = /https?:\/\/[^\s,;]+\/?/.exec(err.message || "")?.[0] || "";
  return [key, { url, here: location.host }];
}

// The "You" box: who this browser plays as, passkeys, sign-out, deletion. `player`: who it is, if
// the page knows (else asked: null too, as it may have been late). `name`: the name input, which shows the player's name.
// `onPlayer(player)`: this browser became another player (signed in or out, deleted): its
// sockets should open again, as a socket carries the cookie it opened with. Returns
// `shown(player)`, to draw the player again when the page renamed them.
export async function wireMe(box, { player: given, name, onPlayer = () => {} } = {}) {
  // No player is no alarm (a first visit, a player just deleted): only a failed ask is.
  let down = false;
  let player = given || (await me().catch(() => {
    down = true;
    return null;
  }));
  const note = (key, vars) => {
    const p = $(".me-note", box);
    p.textContent = key ? t(key, vars) : "";
    show(p, Boolean(key));
  };
  const draw = () => {
    box.dataset.player = player?.player || "";
    const line = $(".me-line", box);
    if (!player) line.replaceChildren(t(refusal === "rate-limited" ? "me.later" : down ? "me.none" : "me.noPlayer"));
    else {
      const who = player.name || t("me.anonymous");
      line.replaceChildren(t("me.playingAs", { name: who }), " ",
        h("a", { href: `/p/${encodeURIComponent(player.player)}`, class: "me-games" }, t("me.yourGames")));
    }
    $(".me-keys", box).textContent = player ? t("me.passkeys", { n: player.passkeys }) : "";
    show($(".passkey-add", box), Boolean(player) && Boolean(window.PublicKeyCredential));
    show($(".passkey-signin", box), Boolean(window.PublicKeyCredential));
    // Signing out of a player no passkey can bring back would lose it: offered with a passkey.
    show($(".me-signout", box), Boolean(player?.passkeys));
    show($(".me-delete", box), Boolean(player));
  };
  // Another player now: their name is the one this browser shows and sends.
  const became = (next) => {
    player = next;
    settings.setName(player?.name || null);
    if (name) name.value = settings.name();
    onPlayer(player);
  };
  const attempt = async (fn, ok, trouble = (err) => ["me.failed", { msg: err.message }]) => {
    try {
      const answer = await fn();
      if (answer) player = answer;
      note(ok);
    } catch (err) {
      note(...trouble(err));
    }
    draw();
  };
  $(".passkey-add", box).addEventListener("click", () => attempt(addPasskey, "me.added", passkeyTrouble));
  $(".passkey-signin", box).addEventListener("click", () =>
    attempt(async () => became(await signIn()), "me.signedIn", passkeyTrouble));
  $(".me-signout", box).addEventListener("click", () =>
    attempt(async () => {
      await signOut();
      became(await ensurePlayer()); // the cookie is gone: a new, nameless player plays here
    }, "me.signedOut"));
  $(".me-delete", box).addEventListener("click", async (e) => {
    const b = e.currentTarget;
    if (b.dataset.confirm !== "1") {
      b.dataset.confirm = "1";
      b.textContent = t("me.confirmDelete");
      setTimeout(() => {
        delete b.dataset.confirm;
        b.textContent = t("me.delete");
      }, 4000);
      return;
    }
    delete b.dataset.confirm;
    b.textContent = t("me.delete");
    await attempt(async () => {
      await deleteMe();
      down = false;
      became(null);
    }, "me.deleted");
  });
  draw();
  show(box, true);
  return (next) => {
    player = next;
    draw();
  };
}

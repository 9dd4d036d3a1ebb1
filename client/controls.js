// The room page's buttons and settings: each click becomes an intent for the server or a
// setting kept in this browser. Resigning, and a draw in a local room (which needs nobody's
// answer), are confirmed by a second click within 4 s.

import { unlockAudio } from "./anim.js";
import { settings } from "./api.js";
import { $, show } from "./dom.js";
import { t } from "./i18n.js";
import { rename } from "./identity.js";

// send(message) -> bool, intentId() -> string, state() -> the state on show, render(),
// join() (again, e.g. after the name changed).
export function wireControls({ send, intentId, state, render, join }) {
  $("#undo").addEventListener("click", () => send({ t: "undo", version: state().version, id: intentId() }));
  $("#resign").addEventListener("click", (e) => {
    const b = e.currentTarget;
    if (b.dataset.confirm === "1") {
      delete b.dataset.confirm;
      send({ t: "resign", id: intentId() });
    } else {
      b.dataset.confirm = "1";
      setTimeout(() => {
        delete b.dataset.confirm;
        render();
      }, 4000);
    }
    render();
  });
  $("#draw").addEventListener("click", (e) => {
    // A local room's draw ends the game at once: ask first, as for resigning.
    const b = e.currentTarget;
    if (state()?.mode !== "local" || b.dataset.confirm === "1") {
      delete b.dataset.confirm;
      send({ t: "offer", kind: "draw", id: intentId() });
    } else {
      b.dataset.confirm = "1";
      setTimeout(() => {
        delete b.dataset.confirm;
        render();
      }, 4000);
    }
    render();
  });
  $("#takeback").addEventListener("click", () => send({ t: "offer", kind: "takeback", id: intentId() }));
  $("#rematch").addEventListener("click", () => send({ t: "offer", kind: "rematch", id: intentId() }));
  $("#accept").addEventListener("click", () =>
    send({ t: "reply", kind: state().offer.kind, accept: true, id: intentId() }),
  );
  $("#decline").addEventListener("click", () =>
    send({ t: "reply", kind: state().offer.kind, accept: false, id: intentId() }),
  );
  $("#handover").addEventListener("click", () => send({ t: "hand_over", id: intentId() }));
  for (const kind of ["win", "draw"]) {
    $(`#claim-${kind}`).addEventListener("click", () => send({ t: "claim", kind, id: intentId() }));
  }
  $("#reclaim").addEventListener("click", () => send({ t: "reclaim", id: intentId() }));
  $("#hint").addEventListener("click", () => send({ t: "hint", id: intentId() }));
  $("#abort").addEventListener("click", () => send({ t: "abort", id: intentId() })); // clock.js shows it
  $("#copy").addEventListener("click", async () => {
    const input = $("#share-url");
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      input.select();
    }
    $("#copy").textContent = t("room.copied");
    setTimeout(() => ($("#copy").textContent = t("room.copy")), 2000);
  });
  if (navigator.share) {
    show($("#share-btn"), true);
    $("#share-btn").addEventListener("click", () =>
      navigator.share({ title: document.title, url: $("#share-url").value }).catch(() => {}),
    );
  }

  const speed = $("#speed");
  speed.value = settings.speed();
  speed.addEventListener("change", () => {
    settings.setSpeed(speed.value);
  });
  const name = $("#name");
  name.value = settings.name();
  name.addEventListener("change", async () => {
    // One name per player: the seat's, and the player's everywhere else (if this browser has one).
    await rename(name.value).catch((err) => err.code === "no-player" && settings.setName(name.value));
    name.value = settings.name();
    if (settings.name()) join();
  });
  const tap = $("#tap-confirm");
  tap.checked = settings.tapConfirm();
  tap.addEventListener("change", () => {
    settings.setTapConfirm(tap.checked);
    render();
  });
  const sound = $("#sound");
  sound.checked = settings.sound();
  sound.addEventListener("change", () => settings.setSound(sound.checked));
  const reports = $("#reports"); // reports.js: off stops every report this page would send
  reports.checked = settings.reports();
  reports.addEventListener("change", () => settings.setReports(reports.checked));
  for (const kind of ["pointerdown", "keydown"]) {
    document.addEventListener(kind, () => settings.sound() && unlockAudio(), { passive: true });
  }

}

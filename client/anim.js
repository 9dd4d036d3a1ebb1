// Sowing, replayed from the server's steps: counts change one seed at a time on the board view,
// starting from the board before the move. The server's board after the move is drawn at the end
// whatever happens here, so an animation can only ever be cosmetic.

const STEP_MS = { normal: 220, fast: 35 };
const TOTAL_MS = { normal: 4000, fast: 600 }; // long Bao relays are sped up to fit

let audio = null;

// Browsers start audio only from a user's gesture: the page calls this on clicks and keys.
export function unlockAudio() {
  try {
    audio ??= new AudioContext();
    if (audio.state === "suspended") audio.resume();
  } catch {
    audio = null;
  }
}

function tone(freq, ms) {
  try {
    if (!audio || audio.state !== "running") return;
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.06, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + ms / 1000);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + ms / 1000);
  } catch {
    /* no WebAudio: stay silent */
  }
}

export function beep(kind = "sow") {
  if (kind === "capture") tone(330, 120);
  else tone(880, 40);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Apply one step to the view's counts. Unknown kinds only highlight their pit.
export function applyStep(view, step) {
  const pit = step.pit;
  switch (step.kind) {
    case "lift":
      view.add(pit, -(step.seeds || view.get(pit)));
      view.pulse(pit);
      return "lift";
    case "sow":
      view.add(pit ?? step.to, 1);
      view.pulse(pit ?? step.to);
      return "sow";
    case "place":
      view.add(pit, 1);
      if (step.player !== undefined && step.player !== null) view.add(`hand${step.player}`, -1);
      view.pulse(pit);
      return "sow";
    case "capture":
      view.add(pit, -(step.seeds || view.get(pit)));
      view.pulse(pit, "taken");
      return "capture";
    case "store":
      view.add(step.to, step.seeds || 0);
      view.pulse(step.to);
      return "store";
    case "end":
      // The game ended: seeds left in `pit` go to `to` (K8, O10).
      if (pit && step.to && step.seeds) {
        view.add(pit, -step.seeds);
        view.add(step.to, step.seeds);
        view.pulse(step.to);
      }
      return "end";
    default:
      if (pit) view.pulse(pit);
      return step.kind;
  }
}

// Play `steps` on `view`. `token.cancelled = true` stops it early (a newer state arrived).
export async function animate(view, steps, { speed = "normal", sound = false, token = {} } = {}) {
  if (speed === "off" || !steps?.length) return;
  const delay = Math.max(4, Math.min(STEP_MS[speed] ?? STEP_MS.normal, (TOTAL_MS[speed] ?? 4000) / steps.length));
  for (const step of steps) {
    if (token.cancelled) return;
    const what = applyStep(view, step);
    if (sound && (what === "sow" || what === "capture")) beep(what);
    await sleep(delay);
  }
}

// Whether ``next`` is ``prev`` and one move more in the same game: that move can be animated
// (anything else, a join's or a resync's state, is drawn as it is).
export function animatable(prev, next) {
  return (
    prev &&
    next.last &&
    next.game_no === prev.game_no &&
    next.plies === prev.plies + 1 &&
    next.version > prev.version
  );
}

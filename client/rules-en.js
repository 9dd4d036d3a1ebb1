// The "How to play" pages in English (see rules-text.js; rules-ja.js has the same sections).

export const RULES_EN = {
  kalah: {
    intro: "Kalah is a two-row mancala: sow seeds around the board, land in your store for another turn, and capture across an empty pit. Most seeds in the store wins.",
  },
  oware: {
    intro: "Oware (the Abapa rules) is played on a ring of twelve pits. You capture in your opponent's row when your last seed makes 2 or 3; whoever captures more than half the seeds wins.",
  },
  "bao-kiswahili": {
    intro: "Bao la Kiswahili, from Zanzibar and the East African coast, is played on four rows of eight. Each player owns two rows, sows only in them, and captures from the opponent's front row. Empty your opponent's front row (or leave them without a move) to win.",
  },
  "bao-kujifunza": {
    intro: "Bao la Kujifunza is the learners' Bao: the same board, sowing and captures as Bao la Kiswahili, but every pit starts with two seeds, nobody holds seeds in hand and there is no nyumba. A good first Bao.",
  },
  "bao-nakakamado-a": {
    intro: "Bao Nakakamado (NYAKUA proposal A) follows Bao la Kiswahili's opening with seeds in hand, without takasia, and adds NYAKUA: a move that captures twice or more in the opening drops one seed from each hand into the pit where it ended.",
  },
  "kalah-setup": {
    h: "The board",
    p: [
      "Two rows of six pits and two stores. South (moves first) has the bottom row a–f and the store at the right; North has the top row A–F and the store at the left, each lettered from its owner's left (K1, K3).",
      "Every pit starts with the same number of seeds, 4 unless the room chose 3, 5 or 6; the stores start empty (K2).",
    ],
    c: "The start with 4 seeds. Your own pits are the row nearest you.",
  },
  "kalah-move": {
    h: "A move",
    p: [
      "Choose one of your non-empty pits. All its seeds are lifted and sown one by one counter-clockwise: your next pits, your store, then your opponent's pits. Your opponent's store is skipped; with 13 or more seeds you go all the way round and sow into the pit you started from too (K4).",
      "If the last seed lands in your own store you move again, as often as it happens (K5).",
    ],
    c: "South played c: its four seeds went to d, e, f and the store, so South moves again. ▲ marks where a move started and ● where its last seed fell.",
  },
  "kalah-capture": {
    h: "Capturing",
    p: [
      "If your last seed lands in an empty pit of yours and the pit facing it has seeds, you take those seeds and your last seed into your store (K6). A capture ends your turn (K7).",
      "If the facing pit is empty, nothing happens and the seed stays — unless the room has the option below.",
    ],
    c: "North played D: its one seed fell in the empty E, facing South's b with 7 seeds; those 7 and the seed went to North's store.",
  },
  "kalah-end": {
    h: "The end",
    p: [
      "The game ends as soon as either side's six pits are all empty, even after a move that earned another turn. Each player then puts the seeds left in their own pits into their store (K8).",
      "The most seeds in the store wins; equal is a draw. The game is played to the end even when one side already has more than half (K9). Resigning and agreeing a draw also end it (K10).",
    ],
  },
  "kalah-options": {
    h: "Options",
    p: [
      "Seeds per pit (K2): 3 for a short game or for children, 4 as usual, 5 or 6 for a longer one. The usual choice is marked * on the start page.",
      "Last seed to the store even opposite an empty pit (K6): when your last seed lands in your own empty pit it goes to your store even if the facing pit is empty. It is the rule of the published solution of Kalah (Irving, Donkers and Uiterwijk, 2000); off by default.",
    ],
  },
  "oware-setup": {
    h: "The board",
    p: [
      "Twelve pits in a ring, six per player, four seeds in each (48 in all). South has the bottom row a–f, North the top row A–F. Captured seeds go to each player's tray beside the board and are never sown again (O1, O2).",
    ],
    c: "The start: four seeds in every pit; the trays are empty.",
  },
  "oware-move": {
    h: "A move",
    p: [
      "Choose one of your non-empty pits, lift all its seeds and sow them one by one counter-clockwise into the following pits (O3). With 12 or more seeds you go round the ring and skip the pit you started from each time (O4).",
      "There are no extra turns: after every move it is the other player's turn (O5).",
    ],
  },
  "oware-capture": {
    h: "Capturing",
    p: [
      "If your last seed lands in one of your opponent's pits and makes it exactly 2 or 3, you capture those seeds. Then look at the pit before it: if it is also your opponent's and holds 2 or 3, capture it too, and so on back along the row (O6).",
      "Grand slam: if a capture would take every seed on your opponent's side, nothing is captured at all, but the move stands (O7).",
    ],
    c: "South played c: its last seed made D a 2, and C just before it held 2 as well, so South captured both (4 seeds).",
  },
  "oware-feed": {
    h: "Feeding",
    p: [
      "If all your opponent's pits are empty, you must play a move that gives them seeds, if you have one. Only when no move reaches their side may you play one that stays on yours (O8). Pits you may not play are simply not lit.",
    ],
  },
  "oware-end": {
    h: "The end",
    p: [
      "More than 24 captured seeds wins at once; 24 each is a draw (O9).",
      "If the player to move has no seeds to play, the game ends and each player takes the seeds on their own side (O10). If a position comes back (the same pits, scores and player to move since the last capture), the game ends the same way, as a repetition (O11). Resigning and an agreed draw also end the game (O12).",
    ],
  },
  "bao-board": {
    h: "The board",
    p: [
      "Four rows of eight. Each player owns the two rows on their side: the front row, facing the opponent, and the back row; 64 seeds in all (B1). Pits are numbered 1–8 from their owner's left: South's front row is A1–A8 and back row B1–B8, North's are a1–a8 and b1–b8 (B2). Your front pit i faces the opponent's front pit 9−i (B3).",
      "Front pit 5 is the nyumba, the house (drawn square while its owner has it); front pits 1 and 8 are the kichwa, the ends where captured seeds come in (B4).",
    ],
    c: "The start of Bao la Kiswahili: 6 in the nyumba and 2 in each of the next two pits, and 22 seeds in each hand (K1).",
  },
  "bao-sowing": {
    h: "Sowing and directions",
    p: [
      "You only ever sow in your own 16 pits, round your two rows as a ring (B5). Clockwise (↻, written R) runs along your front row toward pit 8 and back along your back row; anticlockwise (↺, L) the other way. The choices on screen say ↻ or ↺ so they read the same whichever way the board is turned.",
      "A lap: lift the seeds and sow one per pit from the next pit on (B7). Then only the pit where the last seed fell counts: if it was empty, the move ends there; otherwise it may capture, stop, or relay (B8).",
    ],
  },
  "bao-capture": {
    h: "Capturing",
    p: [
      "A capture happens when your lap ends in your own front pit that was not empty and faces an opponent's front pit with seeds: you take all those seeds and sow them into your own rows from a kichwa (B10). From pits 1–2 they come in at the left kichwa going ↻, from pits 7–8 at the right kichwa going ↺; from 3–6 they keep your direction. In the opening you choose which kichwa — the game offers both.",
      "Captures are compulsory: when you can capture, only capturing moves are lit (B11). Only front rows are captured; back rows and hands are safe (B12). A move that did not start with a capture never captures later (B9).",
    ],
    c: "North placed a seed in a5 (▲), captured the single seed of A4, and sowed it in from the right kichwa a8 (●).",
  },
  "bao-relay": {
    h: "Relays",
    p: [
      "If the last seed of a lap falls in a pit that was not empty and nothing else applies, lift that whole pit and sow on in the same direction: a relay (B8). One move can relay many times and capture several times on the way; the history lists each lap under the move (×A3 a capture, →a8 a relay, ■a2 where it ended).",
    ],
    c: "North's a6R: captured at A3, relayed from a8 and from a6, and stopped in the empty a2.",
  },
  "bao-namua": {
    h: "The opening: seeds in hand (namua)",
    p: [
      "While you hold seeds in hand, every move begins by putting one of them into one of your occupied front pits (B16). If that pit faces an occupied opponent pit it is a capture: the seeds there stay put and only the captured seeds are sown in from a kichwa. Otherwise lift the whole pit and sow it either way.",
      "Which pits you may start from without a capture is limited (K2): not your owned nyumba holding 6 or more, and single seeds only while you own the nyumba or have nothing bigger. Tax: when the owned nyumba with 6 or more is your only occupied front pit, you put the hand seed in and sow just 2 seeds from it (K3); the history says “tax”.",
    ],
  },
  "bao-nyumba": {
    h: "The nyumba and safari",
    p: [
      "You own your nyumba from the start until it is emptied in any way, or until you choose safari; it never comes back (B15). With 6 or more seeds an owned nyumba works: a lap without capture that ends there stops the move; a capturing lap that ends there captures if it can; otherwise you choose to stop there or to go on — safari — lifting it and sowing on, which gives the nyumba up.",
      "The choices show it: “stop at the nyumba” or “safari”, and moves with safari carry a + (B6).",
    ],
    c: "South's A8R+: after capturing at a1 the move reached South's nyumba A5 and went on through it (safari); A5 is no longer South's nyumba.",
  },
  "bao-mtaji": {
    h: "The second stage (mtaji)",
    p: [
      "When both hands are empty, moves start from the board (B17). A capture starts from any of your pits holding 2–15 seeds, in a direction whose first lap ends in your occupied front pit facing an occupied opponent pit. If you have no capture, you play a takasa: from a front pit with 2 or more if you have one, otherwise from a back pit with 2 or more. Pits with 0 or 1 never start a move.",
      "If your only occupied front pit is a kichwa, you may not sow it outward into your back row (B18).",
    ],
  },
  "bao-takasia": {
    h: "Takasia",
    p: [
      "In the second stage, after a takasa, if the opponent has no capture and there is exactly one of their front pits you could capture next, that pit is takasia'd: drawn crossed out, it may not start their next move, and a lap of theirs ending there stops (K5). It lasts one move, and it never blocks a single seed, their only occupied front pit, their only pit with 2 or more, or their owned nyumba.",
      "In mtaji the nyumba has no special function, and both players lose it at the first capture of that stage (K4). A move that would relay for ever is not allowed; a player left only with such moves has lost (K6, B20). Option: the room may turn takasia off.",
    ],
  },
  "bao-takasia-option": {
    h: "Takasia (option)",
    p: [
      "Off by default in this game (J2). With the option on, after a takasa in which the opponent has no capture and exactly one of their front pits could be captured next, that pit is crossed out for their next move (as in Bao la Kiswahili, K5). A move that would relay for ever is not allowed (J3).",
    ],
  },
  "bao-end": {
    h: "The end",
    p: [
      "The moment your opponent's front row is empty you win, even in the middle of your move; seeds you captured but had not sown yet are shown as “captured, not yet sown” (B13).",
      "After a move: if your own front row is empty you lose; if the player to move has no legal move, they lose (B14). There are no draws by the rules; a draw is only by agreement.",
    ],
  },
  "kujifunza-setup": {
    h: "How it differs",
    p: [
      "Every one of the 32 pits starts with 2 seeds; nobody has seeds in hand and there is no nyumba, so the game is in the second stage (mtaji) from the first move (J1). Everything else — sowing, relays, captures, the end — is as in Bao la Kiswahili.",
    ],
    c: "The start: two seeds in every pit, no hands.",
  },
  "kujifunza-capture": {
    h: "Capturing",
    p: [
      "A capture happens when the first lap of your move ends in your own front pit that was not empty and faces an opponent's front pit with seeds: you take all those seeds and sow them from a kichwa — pits 1–2 from the left kichwa going ↻, 7–8 from the right one going ↺, 3–6 keeping your direction (B10, B17). When you can capture, you must (B11). Only front rows are captured (B12).",
    ],
    c: "South's first move B1R: its lap ended in A2, facing a7; those 2 seeds came in at A1, and the move relayed from A2 and captured again at a3.",
  },
  "nakakamado-about": {
    h: "How it differs",
    p: [
      "The rules of the trial rulebook nyakua-a-trial-001: the opening of Bao la Kiswahili (N1, N2) without takasia. Tax works whenever the owned nyumba is your only occupied front pit, whatever it holds (N3). In the second stage the nyumba is an ordinary pit (N4).",
    ],
  },
  "nakakamado-nyakua": {
    h: "NYAKUA",
    p: [
      "After an opening move that made 2 or more captures, if you still hold a seed and your opponent holds 2 or more, one seed from each hand goes into the pit where your move ended — NYAKUA! Nothing more happens from it: no capture, no sowing (N5). At most once a move, never in the second stage. The history marks such moves NYAKUA.",
    ],
    c: "North's a6R captured four times and ended in b1; a seed from each hand then went into b1 (3 seeds there now).",
  },
  "nakakamado-end": {
    h: "The end",
    p: [
      "As in Bao la Kiswahili: your opponent's front row empty wins for you at once; your own front row empty, or no legal move, loses (B13, B14).",
      "Safety stop: a move still relaying after 512 laps is cut off and the game ends with no winner (N8).",
    ],
  },
  tips: {
    h: "Reading the screen",
    p: [
      "Pits you may play have a dashed outline. ▲ marks where the last move started and ● where its last seed fell. With “tap to select, tap again to play” (on for touch screens, in Settings) the first tap raises the pit and the second plays it.",
      "Moves played lists every move by its number (move 4 is the fourth move made, by either side); choose one to look at the position after it, then “Back to the live game”. Hint (against the computer and on one device) marks a suggested pit with ?.",
      "By keyboard, the board is one stop for Tab: the arrow keys move between the pits you may play (Home and End go to the first and the last) and Enter plays the pit.",
    ],
  },
  "tips-bao": {
    h: "Bao on screen",
    p: [
      "The square pit with a double edge is an owned nyumba; a crossed-out pit is takasia'd. When a pit has several moves, a choice box opens: ↻ or ↺, which kichwa the captured seeds enter, stop or safari. The line above the board shows the stage and any seeds captured but not yet sown.",
    ],
  },
};

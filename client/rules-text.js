// The "How to play" pages' words, in English and Japanese, written for players from the
// project's rules (shared/rules/*.md; docs/rules/ in the repository): each rule cited by its
// number. PAGES says which sections each game's page has, once for both languages; TEXT holds
// each section's heading, paragraphs and, where it has a diagram (DIAGRAM), the caption.
// tests/client/test_rules.py checks that both languages have the same sections and paragraphs.

export const PAGES = {
  kalah: ["kalah-setup", "kalah-move", "kalah-capture", "kalah-end", "kalah-options", "tips"],
  oware: ["oware-setup", "oware-move", "oware-capture", "oware-feed", "oware-end", "tips"],
  "bao-kiswahili": [
    "bao-board", "bao-sowing", "bao-capture", "bao-relay", "bao-namua", "bao-nyumba",
    "bao-mtaji", "bao-takasia", "bao-end", "tips", "tips-bao",
  ],
  "bao-kujifunza": [
    "kujifunza-setup", "bao-board", "bao-sowing", "kujifunza-capture", "bao-relay", "bao-mtaji",
    "bao-takasia-option", "bao-end", "tips", "tips-bao",
  ],
  "bao-nakakamado-a": [
    "nakakamado-about", "bao-board", "bao-sowing", "bao-capture", "bao-relay", "bao-namua",
    "bao-nyumba", "nakakamado-nyakua", "bao-mtaji", "nakakamado-end", "tips", "tips-bao",
  ],
};

// The position drawn with a section (client/rules-diagrams.js).
export const DIAGRAM = {
  "kalah-setup": "kalah-start",
  "kalah-move": "kalah-extra",
  "kalah-capture": "kalah-capture",
  "oware-setup": "oware-start",
  "oware-capture": "oware-capture",
  "bao-board": "bao-start",
  "bao-capture": "bao-namua-capture",
  "bao-relay": "bao-relay",
  "bao-nyumba": "bao-safari",
  "kujifunza-setup": "kujifunza-start",
  "kujifunza-capture": "kujifunza-capture",
  "nakakamado-nyakua": "nakakamado-nyakua",
};

export const TEXT = {
  en: {
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
        "Moves played lists every move; choose one to look at the position after it, then “Back to the live game”. Hint (against the computer and on one device) marks a suggested pit with ?.",
      ],
    },
    "tips-bao": {
      h: "Bao on screen",
      p: [
        "The square pit with a double edge is an owned nyumba; a crossed-out pit is takasia'd. When a pit has several moves, a choice box opens: ↻ or ↺, which kichwa the captured seeds enter, stop or safari. The line above the board shows the stage and any seeds captured but not yet sown.",
      ],
    },
  },
  ja: {
    kalah: {
      intro: "カラハは2列のマンカラです。種をまいて一周させ、最後の種が自分のストアに入ればもう一手、空いた穴で止まれば向かいの種を取れます。ストアの種が多い方が勝ちです。",
    },
    oware: {
      intro: "オワレ（アバパ規則）は12個の穴が輪になった盤で遊びます。最後の種で相手の穴を2個か3個にすると取れます。種の半分より多く取った方が勝ちです。",
    },
    "bao-kiswahili": {
      intro: "バオ・ラ・キスワヒリはザンジバルと東アフリカ沿岸のバオで、4列×8の盤で遊びます。各自が自分の2列だけにまき、相手の前列から取ります。相手の前列を空にする（または相手が指せなくなる）と勝ちです。",
    },
    "bao-kujifunza": {
      intro: "バオ・ラ・クジフンザは初心者向けのバオです。盤・まき方・取り方はバオ・ラ・キスワヒリと同じですが、全部の穴に2個ずつ入れて始め、持ち種もニュンバもありません。最初のバオにどうぞ。",
    },
    "bao-nakakamado-a": {
      intro: "バオ・ナカカマド（NYAKUA 案A）は、持ち種のある序盤をバオ・ラ・キスワヒリと同じに遊び、タカシアはなく、NYAKUA を加えます。序盤に2回以上取った手では、両者の持ち種から1個ずつが手の終わった穴に入ります。",
    },
    "kalah-setup": {
      h: "盤",
      p: [
        "6個の穴が2列と、ストアが2つあります。南（先手）は下の列 a–f と右のストア、北は上の列 A–F と左のストアで、どちらも持ち主から見て左から文字が付いています（K1、K3）。",
        "最初はどの穴にも同じ数の種を入れます。ふつうは4個、部屋の設定で3・5・6個にもできます。ストアは空です（K2）。",
      ],
      c: "4個で始めたところ。自分に近い列が自分の穴です。",
    },
    "kalah-move": {
      h: "一手",
      p: [
        "種のある自分の穴を1つ選びます。その種を全部取り、反時計回りに1個ずつまきます。自分の次の穴、自分のストア、相手の穴の順で、相手のストアは飛ばします。13個以上なら一周して、取った穴にもまきます（K4）。",
        "最後の種が自分のストアに入ったら、もう一度指します。何回続いてもかまいません（K5）。",
      ],
      c: "南が c を指し、4個が d・e・f・ストアに入ったので、南がもう一度指します。▲ は手の始まり、● は最後の種が入った所です。",
    },
    "kalah-capture": {
      h: "取る",
      p: [
        "最後の種が自分の空の穴に入り、向かいの穴に種があれば、その種と最後の種を自分のストアに入れます（K6）。取ったら手番は相手に移ります（K7）。",
        "向かいが空なら何も起こらず、種はそこに残ります（下のオプションがある部屋を除く）。",
      ],
      c: "北が D を指し、1個が空の E に入りました。向かいの南の b の7個とその1個が北のストアに入りました。",
    },
    "kalah-end": {
      h: "終わり",
      p: [
        "どちらかの6つの穴がすべて空になったら、その時点で終わります（もう一手を得た手の後でも）。各自、自分の穴に残った種を自分のストアに入れます（K8）。",
        "ストアの種が多い方が勝ち、同じなら引き分けです。半分を超えても最後まで続けます（K9）。投了と合意の引き分けでも終わります（K10）。",
      ],
    },
    "kalah-options": {
      h: "オプション",
      p: [
        "1つの穴の種の数（K2）：短い対局や子ども向けには3、ふつうは4、長く遊ぶなら5か6。始める画面ではふつうの設定に * が付いています。",
        "向かいが空でも最後の種をストアへ（K6）：最後の種が自分の空の穴に入ったとき、向かいが空でもストアに入れます。カラハの解析（Irving・Donkers・Uiterwijk、2000年）で使われた規則で、ふつうはなしです。",
      ],
    },
    "oware-setup": {
      h: "盤",
      p: [
        "12個の穴が輪になっていて、各自6個、どの穴にも4個ずつ（全部で48個）入れて始めます。南は下の列 a–f、北は上の列 A–F です。取った種は盤の横の自分の皿に置き、二度とまきません（O1、O2）。",
      ],
      c: "最初の局面：どの穴にも4個、皿は空です。",
    },
    "oware-move": {
      h: "一手",
      p: [
        "種のある自分の穴を1つ選び、全部取って反時計回りに次の穴から1個ずつまきます（O3）。12個以上なら一周し、取った穴は毎回飛ばします（O4）。",
        "もう一手はありません。毎回相手の番になります（O5）。",
      ],
    },
    "oware-capture": {
      h: "取る",
      p: [
        "最後の種が相手の穴に入り、そこがちょうど2個か3個になったら取ります。その1つ前の穴も相手の穴で2個か3個なら続けて取り、さらに前へと続けます（O6）。",
        "グランドスラム：相手の側の種を全部取ってしまう場合は、何も取りません。その手自体は有効です（O7）。",
      ],
      c: "南が c を指し、最後の種で D が2個になり、その前の C も2個だったので、両方（4個）を取りました。",
    },
    "oware-feed": {
      h: "種を渡す",
      p: [
        "相手の穴が全部空なら、相手の側に種が届く手があれば、その手を指さなければなりません。届く手がないときだけ、自分の側だけの手を指せます（O8）。指せない穴は光りません。",
      ],
    },
    "oware-end": {
      h: "終わり",
      p: [
        "25個以上取ったらその場で勝ちです。24個ずつなら引き分けです（O9）。",
        "手番の人にまける種がなければ終わり、各自が自分の側の種を取ります（O10）。最後に取ってから同じ局面（穴・得点・手番が同じ）に戻ったら、繰り返しとして同じように終わります（O11）。投了と合意の引き分けでも終わります（O12）。",
      ],
    },
    "bao-board": {
      h: "盤",
      p: [
        "4列×8の盤です。各自が自分の側の2列、相手に面した前列と後ろの後列を持ちます。種は全部で64個です（B1）。穴は持ち主から見て左から1–8で、南の前列は A1–A8、後列は B1–B8、北は a1–a8 と b1–b8 です（B2）。自分の前列の i 番は相手の前列の 9−i 番と向かい合います（B3）。",
        "前列の5番はニュンバ（家、持ち主が所有している間は四角で描きます）、前列の1番と8番はキチュワ（取った種が入ってくる端）です（B4）。",
      ],
      c: "バオ・ラ・キスワヒリの最初：ニュンバに6個、その隣の2つに2個ずつ、持ち種は各22個です（K1）。",
    },
    "bao-sowing": {
      h: "まき方と向き",
      p: [
        "種は自分の16個の穴にだけ、2列を輪にしてまきます（B5）。時計回り（↻、R）は前列を8番の方へ進み後列を戻ります。反時計回り（↺、L）はその逆です。画面の選択肢は ↻・↺ で示すので、盤の向きに関係なく同じに読めます。",
        "1周（ラップ）：種を取り、次の穴から1個ずつまきます（B7）。見るのは最後の種が入った穴だけです。そこが空だったら手は終わり、そうでなければ取る・止まる・中継のどれかです（B8）。",
      ],
    },
    "bao-capture": {
      h: "取る",
      p: [
        "ラップが空でない自分の前列の穴で終わり、向かいの相手の前列の穴に種があれば、それを全部取り、キチュワから自分の列にまき入れます（B10）。1・2番からなら左のキチュワから ↻、7・8番からなら右のキチュワから ↺、3–6番なら今の向きのままです。序盤はどちらのキチュワから入れるかを選べます。",
        "取れるときは必ず取ります。取る手だけが光ります（B11）。取られるのは前列だけで、後列と持ち種は安全です（B12）。取る手で始まらなかった手は、途中でも取りません（B9）。",
      ],
      c: "北が a5 に1個置き（▲）、A4 の1個を取って、右のキチュワ a8 からまき入れました（●）。",
    },
    "bao-relay": {
      h: "中継",
      p: [
        "ラップの最後の種が空でない穴に入り、ほかに何もなければ、その穴の種を全部取って同じ向きにまき続けます。これが中継です（B8）。1手で何度も中継し、途中で何度も取ることがあります。棋譜では手の下に各ラップを並べます（×A3 は取った所、→a8 は中継、■a2 は終わった所）。",
      ],
      c: "北の a6R：A3 で取り、a8 と a6 から中継して、空の a2 で止まりました。",
    },
    "bao-namua": {
      h: "序盤：持ち種（ナムア）",
      p: [
        "持ち種がある間は、毎手まず持ち種1個を種のある自分の前列の穴に置きます（B16）。その穴の向かいに種があれば取る手です。置いた穴の種はそのままで、取った種だけをキチュワからまきます。そうでなければ、その穴の種を全部取ってどちら向きにでもまきます。",
        "取らない手で始められる穴には制限があります（K2）：6個以上の所有中のニュンバからは始められず、1個の穴はニュンバを所有している間か、ほかに2個以上の穴がないときだけです。税：6個以上の所有中のニュンバが前列で唯一種のある穴なら、持ち種を入れてそこから2個だけまきます（K3）。棋譜には「税」と出ます。",
      ],
    },
    "bao-nyumba": {
      h: "ニュンバとサファリ",
      p: [
        "ニュンバは最初から所有していて、何かで空になるか、サファリを選ぶと所有でなくなり、二度と戻りません（B15）。6個以上の所有中のニュンバは働きます：取らないラップがそこで終われば手は止まり、取るラップがそこで終われば取れるなら取り、それ以外は止まるか先へ進む（サファリ：種を取ってまき続け、ニュンバを手放す）かを選びます。",
        "選択肢には「ニュンバで止まる」「サファリ」と出て、サファリの手には + が付きます（B6）。",
      ],
      c: "南の A8R+：a1 で取った後、手が南のニュンバ A5 に達し、そのまま越えて続けました（サファリ）。A5 はもう南のニュンバではありません。",
    },
    "bao-mtaji": {
      h: "第二段階（ムタジ）",
      p: [
        "両者の持ち種がなくなったら、盤上の穴から指します（B17）。取る手は、2–15個ある自分のどの穴からでも、最初のラップが種のある自分の前列の穴で終わり、その向かいに種があるときです。取る手がなければタカサ（取らない手）を指します。2個以上の前列の穴があればそこから、なければ2個以上の後列の穴から。0個か1個の穴からは指せません。",
        "前列で種のある穴がキチュワだけなら、それを外向きに後列へまくことはできません（B18）。",
      ],
    },
    "bao-takasia": {
      h: "タカシア",
      p: [
        "第二段階でタカサを指した後、相手に取る手がなく、次に取れそうな相手の前列の穴がちょうど1つなら、その穴はタカシアになります。×印で描かれ、相手の次の手はそこから始められず、相手のラップがそこで終わると止まります（K5）。1手の間だけで、1個の穴、相手の唯一の種のある前列の穴、唯一の2個以上の穴、所有中のニュンバはタカシアになりません。",
        "ムタジではニュンバに特別な働きはなく、この段階で最初に取られた時に両者とも所有でなくなります（K4）。永遠に中継する手は指せず、そういう手しかない人は負けです（K6、B20）。部屋の設定でタカシアをなしにできます。",
      ],
    },
    "bao-takasia-option": {
      h: "タカシア（オプション）",
      p: [
        "このゲームではふつうはなしです（J2）。ありにすると、タカサの後で相手に取る手がなく、次に取れそうな相手の前列の穴がちょうど1つなら、その穴は相手の次の手の間 ×印になります（バオ・ラ・キスワヒリの K5 と同じ）。永遠に中継する手は指せません（J3）。",
      ],
    },
    "bao-end": {
      h: "終わり",
      p: [
        "相手の前列が空になった瞬間に勝ちです。手の途中でもかまいません。取ってまだまいていない種は「取ったがまだまいていない種」として表示されます（B13）。",
        "手の後で自分の前列が空なら負け、手番の人に指せる手がなければその人の負けです（B14）。規則による引き分けはなく、引き分けは合意だけです。",
      ],
    },
    "kujifunza-setup": {
      h: "違うところ",
      p: [
        "32個の穴すべてに2個ずつ入れて始めます。持ち種もニュンバもないので、最初の手から第二段階（ムタジ）です（J1）。まき方・中継・取り方・終わりはバオ・ラ・キスワヒリと同じです。",
      ],
      c: "最初：どの穴にも2個、持ち種はありません。",
    },
    "kujifunza-capture": {
      h: "取る",
      p: [
        "手の最初のラップが空でない自分の前列の穴で終わり、向かいの相手の前列の穴に種があれば、それを全部取ってキチュワからまきます。1・2番からなら左のキチュワから ↻、7・8番からなら右から ↺、3–6番なら今の向きのままです（B10、B17）。取れるときは必ず取ります（B11）。取られるのは前列だけです（B12）。",
      ],
      c: "南の最初の手 B1R：ラップが a7 と向かい合う A2 で終わり、その2個を A1 から入れ、A2 から中継して a3 でもう一度取りました。",
    },
    "nakakamado-about": {
      h: "違うところ",
      p: [
        "試行ルールブック nyakua-a-trial-001 の規則です。序盤はバオ・ラ・キスワヒリと同じ（N1、N2）で、タカシアはありません。税は、所有中のニュンバが前列で唯一種のある穴なら、種の数に関係なくできます（N3）。第二段階ではニュンバはふつうの穴です（N4）。",
      ],
    },
    "nakakamado-nyakua": {
      h: "NYAKUA",
      p: [
        "序盤の手で2回以上取り、自分の持ち種がまだ1個以上、相手が2個以上あるとき、両者の持ち種から1個ずつを手の終わった穴に入れます。これが NYAKUA です。そこから取ったりまいたりはしません（N5）。1手に1回まで、第二段階ではありません。棋譜には NYAKUA と印が付きます。",
      ],
      c: "北の a6R は4回取って b1 で終わったので、両者の持ち種から1個ずつが b1 に入りました（今は3個）。",
    },
    "nakakamado-end": {
      h: "終わり",
      p: [
        "バオ・ラ・キスワヒリと同じく、相手の前列が空になればその場で勝ち、自分の前列が空になるか指せる手がなければ負けです（B13、B14）。",
        "安全停止：512回中継してもまだ続く手は打ち切られ、勝者なしで終わります（N8）。",
      ],
    },
    tips: {
      h: "画面の見方",
      p: [
        "指せる穴には点線の枠が付きます。▲ は直前の手が始まった所、● は最後の種が入った所です。「1回目で選び、2回目で指す」（タッチ画面ではあり、設定で変更可）では、1回目で穴が持ち上がり、2回目で指します。",
        "「棋譜」には指した手がすべて並びます。手を選ぶとその後の局面が見られ、「現在の対局に戻る」で戻ります。ヒント（コンピュータ対戦とこの端末で二人）は、勧める穴に ? を付けます。",
      ],
    },
    "tips-bao": {
      h: "バオの画面",
      p: [
        "二重の縁の四角い穴は所有中のニュンバ、×印の穴はタカシアです。1つの穴に複数の手があるときは選択肢が開きます：↻ か ↺、取った種を入れるキチュワ、止まるかサファリか。盤の上の行には段階と、取ったがまだまいていない種が出ます。",
      ],
    },
  },
};

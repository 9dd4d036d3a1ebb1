"""Game records (``engine/records/``, ``engine/RECORDS.md``): both formats written, loaded back
by replaying, and refused with a message naming the first bad ply or field.

Fixtures in ``tests/engine/data``: ``nakakamado_hand.json`` was written by hand from the
rulebook's fields (N9) and worked out from the rules; ``nakakamado_app_*.json`` were saved by
the trial app's own record function (engine ``nyakua-a-trial-001``, random moves);
``nakakamado_safety_stop.json`` is a random game of ours that ends in a safety stop (N8),
which the trial app's replay accepts too.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

import engine
from engine import IllegalMove, Outcome, records
from engine.records import BadRecord, Record

DATA = Path(__file__).parent / "data"
N = engine.load("bao-nakakamado-a")
K = engine.load("bao-kiswahili")
HAND_MOVES = ("A6R", "a6R", "A8L", "a7L", "A6L", "a8R")
# The trial app's key order (its record function), which dumps keeps.
APP_ORDER = [
    "format",
    "version",
    "baseRules",
    "baseRulesVersion",
    "variantRule",
    "rulesVersion",
    "publicAdopted",
    "boardRowsPerPlayer",
    "sowingPath",
    "initialHand",
    "totalKete",
    "nyakuaProtectLast",
    "nyakuaFixedPitBulk",
    "nyakuaNextTurnThree",
    "nyakuaReservedProtected",
    "nyakuaEndPitAdd",
    "mode",
    "history",
    "final",
    "adjudication",
    "outcome",
]


def fixture(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def random_moves(game: Any, rng: random.Random, limit: int = 10_000) -> list[Any]:
    state, moves = game.start(), []
    while game.legal_moves(state) and len(moves) < limit:
        move = rng.choice(game.legal_moves(state))
        moves.append(move)
        state = game.play(state, move)
    return moves


def sorted_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)


# -- the generic format ---------------------------------------------------------------------------


def test_the_generic_format_as_documented():
    game = engine.load("kalah")
    data = records.dump(game, ["c", "f"], players=("Amina", "Baraka"), mode="friend")
    after_c = game.play(game.start(), game.parse(game.start(), "c"))  # ends in the store
    assert data == {
        "format": "nyumba-record",
        "version": 1,
        "game": "kalah",
        "options": {"empty_capture": False, "seeds": 4},
        "players": ["Amina", "Baraka"],
        "mode": "friend",
        "computer": None,
        "moves": [
            {"move": "c", "side": 0, "result": game.describe(after_c)},
            {"move": "f", "side": 0, "result": data["final"]},
        ],
        "final": game.describe(game.play(after_c, game.parse(after_c, "f"))),
        "outcome": None,
        "adjudication": "ongoing",
    }
    assert records.load(data) == Record(
        "nyumba-record",
        "kalah",
        {"empty_capture": False, "seeds": 4},
        ("c", "f"),
        ("Amina", "Baraka"),
        "friend",
        None,
        None,
        "ongoing",
    )


@pytest.mark.parametrize(
    "name, options",
    [
        ("kalah", {}),
        ("kalah", {"seeds": 6, "empty_capture": True}),
        ("oware", {}),
        ("bao-kiswahili", {}),
        ("bao-kujifunza", {"takasia": True}),
        ("bao-nakakamado-a", {}),
    ],
)
def test_random_games_of_every_profile_round_trip(name, options):
    game = engine.load(name, **options)
    rng = random.Random(name)
    for n in range(6):
        moves = random_moves(game, rng, limit=400 if n == 5 else 10_000)
        data = records.dump(game, moves, players=("a", None), mode="local", format="nyumba-record")
        text = records.text(data)
        record = records.load(text)
        assert record.moves == tuple(game.notation(m) for m in moves)
        assert record.options == game.options and record.players == ("a", None)
        assert record.outcome == (game.outcome(game.play(*_last(game, moves))) if moves else None)
        assert records.text(records.redump(record)) == text
        plies = records.replay(record)
        assert [p.move for p in plies] == list(record.moves)
        for ply, move in zip(plies, moves):
            assert ply.after == game.play(ply.before, move)
            assert ply.steps == game.steps(ply.before, move)
            assert ply.side == game.to_move(ply.before)
        assert all(a.after == b.before for a, b in zip(plies, plies[1:]))


def _last(game: Any, moves: list[Any]) -> tuple[Any, Any]:
    state = game.start()
    for move in moves[:-1]:
        state = game.play(state, move)
    return state, moves[-1]


def test_an_adjudicated_ending_is_kept_in_both_formats():
    moves = list(HAND_MOVES)
    generic = records.dump(K, moves, outcome=engine.resigned(0))
    assert generic["outcome"] == {
        "winner": 1,
        "reason": "resignation",
        "adjudication": "resignation",
    }
    assert generic["adjudication"] == "resignation"
    assert records.load(generic).outcome == engine.resigned(0)
    trial = records.dump(N, moves, outcome=engine.agreed_draw(), players=("Aiko", "Ben"))
    # The board's game is unfinished: the app's own fields say so, nyumba's field says more.
    assert (trial["adjudication"], trial["outcome"]) == (
        "ongoing",
        {"winner": None, "adjudication": "ongoing"},
    )
    assert trial["nyumba"] == {
        "players": ["Aiko", "Ben"],
        "outcome": {"winner": None, "reason": "agreement", "adjudication": "agreement"},
    }
    record = records.load(records.text(trial))
    assert (record.outcome, record.adjudication, record.players) == (
        engine.agreed_draw(),
        "agreement",
        ("Aiko", "Ben"),
    )
    assert records.redump(record) == trial
    with pytest.raises(ValueError, match="names no adjudication"):
        records.dump(K, moves, outcome=Outcome(0, "front-empty"))
    finished = random_moves(K, random.Random(2))
    with pytest.raises(ValueError, match="the rules ended the game"):
        records.dump(K, finished, outcome=engine.resigned(0))
    assert records.dump(K, finished, outcome=K.outcome(K.play(*_last(K, finished))))


def test_dump_refuses_illegal_moves_and_bad_arguments_naming_the_ply():
    with pytest.raises(IllegalMove, match="ply 3: A1L is not legal"):
        records.dump(K, ["A6R", "a6R", "A1L"])
    with pytest.raises(engine.BadNotation, match="ply 2"):
        records.dump(K, ["A6R", "zz"])
    with pytest.raises(ValueError, match="mode"):
        records.dump(K, [], mode="online")
    with pytest.raises(ValueError, match="players"):
        records.dump(K, [], players=("a", "b", "c"))
    with pytest.raises(ValueError, match="no record format"):
        records.dump(K, [], format="bao-nakakamado-nyakua-a-trial")


# -- the trial app's format (N9) ------------------------------------------------------------------


def test_N9_a_record_written_by_hand_loads_and_dumps_again_equal_after_key_ordering():
    text = fixture("nakakamado_hand.json")
    record = records.load(text)
    assert record == Record(
        "bao-nakakamado-nyakua-a-trial",
        "bao-nakakamado-a",
        {},
        HAND_MOVES,
        None,
        "local",
        None,
        None,
        "ongoing",
    )
    again = records.dumps(N, HAND_MOVES)
    assert sorted_json(json.loads(again)) == sorted_json(json.loads(text))
    assert list(json.loads(again)) == APP_ORDER  # and in the app's own order
    assert again == records.text(records.redump(record))


@pytest.mark.parametrize(
    "name",
    ["nakakamado_app_nyakua.json", "nakakamado_app_no_move.json", "nakakamado_safety_stop.json"],
)
def test_N9_files_of_the_trial_app_load_and_dump_again_byte_for_byte(name):
    text = fixture(name)
    record = records.load(text)
    assert records.text(records.redump(record)) == text
    data = json.loads(text)
    assert len(record.moves) == len(data["history"])
    if data["mode"] == "computer":
        assert record.computer == {"id": "nyakua-a-simple-001", "learnedModel": False}


def test_N9_every_field_of_a_finished_game():
    data = json.loads(fixture("nakakamado_app_nyakua.json"))
    record = records.load(data)
    assert record.mode == "computer" and record.adjudication == "normal"
    assert record.outcome == Outcome(data["final"]["winner"], "front-empty")
    assert data["outcome"] == {"winner": data["final"]["winner"], "adjudication": "normal"}
    assert [e["stolen"] for e in data["history"]].count(1) == 4  # four NYAKUA in this game
    ends = [e["endpoint"] for e in data["history"] if e["stolen"]]
    assert {"player": 1, "row": 1, "index": 1} in ends  # one of them into a back pit
    # A win by an empty front row leaves the app's turn, player and stage where they were.
    plies = records.replay(record)
    last = plies[-1]
    assert data["final"]["player"] == last.side and data["final"]["turn"] == len(plies)
    assert data["final"]["phase"] == ("namua" if any(last.before.hands) else "mtaji")
    no_move = json.loads(fixture("nakakamado_app_no_move.json"))
    assert records.load(no_move).outcome.reason == "no-move"
    assert no_move["final"]["turn"] == len(no_move["history"]) + 1
    assert no_move["final"]["player"] == 1 - no_move["final"]["winner"]


def test_N8_N9_a_safety_stop_record():
    data = json.loads(fixture("nakakamado_safety_stop.json"))
    record = records.load(data)
    assert record.outcome == Outcome(None, "relay-limit", adjudication="safety-stop")
    assert record.adjudication == data["adjudication"] == "safety-stop"
    assert data["outcome"] == {"winner": None, "adjudication": "safety-stop"}
    mover = data["history"][-1]["player"]
    assert (data["final"]["winner"], data["final"]["reason"]) == (1 - mover, "relay-limit")
    assert (data["final"]["player"], data["final"]["turn"]) == (mover, len(data["history"]))
    assert records.summary_line(record) == (
        "bao-nakakamado-a, 80 plies, no winner (safety-stop, relay-limit)"
    )
    last = records.replay(record)[-1]
    assert N.summary(last.before, N.parse(last.before, last.move)).laps == 512


def test_N2_a_trial_app_file_where_the_rules_part_is_refused_with_the_reason():
    with pytest.raises(
        BadRecord,
        match=r"^ply 15 \(South\): .* \(A7R\) is not legal in .*; "
        r"at ply 11 South's namua start lift \(A5R\) emptied "
        r"an owned nyumba.*N2",
    ):
        records.load(fixture("nakakamado_app_n2.json"))


def test_N9_moves_are_written_as_the_app_writes_them():
    data = json.loads(fixture("nakakamado_hand.json"))
    moves = [e["move"] for e in data["history"]]
    assert moves[5] == {
        "type": "capture",
        "phase": "namua",
        "row": 0,
        "index": 7,
        "direction": "left",
        "side": "right",
        "houseChoice": "stop",
    }
    bad = copy.deepcopy(data)
    bad["history"][4]["move"]["houseChoice"] = "stop"  # A6L is listed once: no choice word
    with pytest.raises(BadRecord, match=r"ply 5 \(South\): .* is A6L, which the app writes"):
        records.load(bad)
    bad = copy.deepcopy(data)
    bad["history"][5]["move"]["houseChoice"] = "use"
    with pytest.raises(BadRecord, match=r"^final \(after ply 6\): pits\[1\]\[0\]\[0\] \(a1\)"):
        records.load(bad)  # a8R+ is legal, summed up as a8R, but leaves another board
    bad = copy.deepcopy(data)
    bad["history"][0]["move"]["row"] = False
    with pytest.raises(BadRecord, match="row 0-1"):
        records.load(bad)


# -- bad records ----------------------------------------------------------------------------------


def trial() -> dict[str, Any]:
    return json.loads(fixture("nakakamado_hand.json"))


def generic() -> dict[str, Any]:
    return records.dump(K, HAND_MOVES)


def changed(data: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(data)
    target = out
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


BAD = [
    # (name, record, the message it must give)
    (
        "wrong format",
        lambda: changed(trial(), ("format",), "bao-nakakamado-prototype"),
        r'^format "bao-nakakamado-prototype" is not a record format nyumba reads',
    ),
    (
        "wrong format (generic)",
        lambda: changed(generic(), ("format",), "nyumba"),
        r'^format "nyumba" is not a record format',
    ),
    (
        "wrong version",
        lambda: changed(trial(), ("version",), 7),
        r"^bao-nakakamado-nyakua-a-trial version 7 is not supported \(nyumba reads version 1\)",
    ),
    (
        "wrong version (generic)",
        lambda: changed(generic(), ("version",), 2),
        r"^nyumba-record version 2 is not supported",
    ),
    ("version true", lambda: changed(generic(), ("version",), True), r"version true"),
    (
        "a changed fixed field",
        lambda: changed(trial(), ("nyakuaNextTurnThree",), True),
        r"^nyakuaNextTurnThree is true, the trial format has false",
    ),
    (
        "a missing fixed field",
        lambda: changed(trial(), ("nyakuaEndPitAdd",), KeyError),
        r"^missing field 'nyakuaEndPitAdd'",
    ),
    (
        "an illegal move",
        lambda: changed(trial(), ("history", 2, "move", "index"), 0),
        r"^ply 3 \(South\): .*\(A1L\) is not legal in .* S namua hands=21,21",
    ),
    (
        "an illegal move (generic)",
        lambda: changed(generic(), ("moves", 3, "move"), "a1L"),
        r"^ply 4 \(North\): a1L is not legal in",
    ),
    (
        "not a move (generic)",
        lambda: changed(generic(), ("moves", 0, "move"), "A9"),
        r"^ply 1 \(South\): 'A9' is not a Bao move",
    ),
    (
        "a wrong player",
        lambda: changed(trial(), ("history", 1, "player"), 0),
        r"^ply 2: player 0, but North \(1\) is to move",
    ),
    (
        "a tampered summary",
        lambda: changed(trial(), ("history", 4, "captures"), 2),
        r"^ply 5 \(South\) A6L: captures is 2, the replay gives 1",
    ),
    (
        "a tampered endpoint",
        lambda: changed(trial(), ("history", 0, "endpoint"), {"player": 0, "row": 1, "index": 7}),
        r"^ply 1 \(South\) A6R: endpoint is .*, the replay gives null",
    ),
    (
        "a summary as text",
        lambda: changed(trial(), ("history", 0, "placed"), "1"),
        r'^ply 1 \(South\) A6R: placed is "1", the replay gives 1',
    ),
    (
        "a tampered result (generic)",
        lambda: changed(generic(), ("moves", 1, "result"), "x"),
        r"^ply 2 \(North\) a6R: the result 'x' differs from the replay's",
    ),
    (
        "a tampered final board",
        lambda: changed(trial(), ("final", "pits", 0, 0, 4), 7),
        r"^final \(after ply 6\): pits\[0\]\[0\]\[4\] \(A5\) is 7, the replay gives 6$",
    ),
    (
        "a tampered final hand",
        lambda: changed(trial(), ("final", "reserve"), [18, 20]),
        r"^final \(after ply 6\): reserve is \[18, 20\], the replay gives \[19, 19\]",
    ),
    (
        "a tampered final turn",
        lambda: changed(trial(), ("final", "turn"), 6),
        r"^final \(after ply 6\): turn is 6, the replay gives 7",
    ),
    (
        "a tampered final position (generic)",
        lambda: changed(generic(), ("final",), generic()["final"].replace("19,19", "19,18")),
        r"^final position \(after ply 6\)",
    ),
    (
        "a wrong adjudication",
        lambda: changed(trial(), ("adjudication",), "normal"),
        r'^adjudication is "normal", the replay gives "ongoing"',
    ),
    (
        "a wrong outcome",
        lambda: changed(trial(), ("outcome", "winner"), 0),
        r"^outcome is .*, the replay gives",
    ),
    (
        "an outcome that is no adjudication",
        lambda: changed(generic(), ("outcome",), {"winner": 0, "reason": "front-empty"}),
        r"an outcome must be an adjudication",
    ),
    (
        "a missing field",
        lambda: changed(trial(), ("history",), KeyError),
        r"^not a valid bao-nakakamado-nyakua-a-trial record: Object missing required field "
        r"`history`",
    ),
    (
        "an unknown field",
        lambda: changed(generic(), ("moves", 0, "comment"), "nice"),
        r"^not a valid nyumba-record record: Object contains unknown field `comment` - at "
        r"`\$.moves\[0\]`",
    ),
    (
        "an unknown game",
        lambda: changed(generic(), ("game",), "chess"),
        r"^game: unknown game 'chess'",
    ),
    (
        "a bad option",
        lambda: changed(generic(), ("options",), {"takasia": 1}),
        r"^game: bao-kiswahili option takasia=1",
    ),
    ("a bad mode", lambda: changed(trial(), ("mode",), "online"), r'^mode "online"'),
    (
        "a move after the end",
        lambda: (
            records.dump(K, random_moves(K, random.Random(3)))
            | {"moves": records.dump(K, random_moves(K, random.Random(3)))["moves"] * 2}
        ),
        r"^ply \d+: the game was already over after ply \d+",
    ),
]


@pytest.mark.parametrize("name, make, message", BAD, ids=[b[0] for b in BAD])
def test_bad_records_are_refused_with_a_clear_message(name, make, message):
    data = make()
    for form in (data, json.dumps(data), json.dumps(data).encode()):
        with pytest.raises(BadRecord, match=message):
            records.load(form)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "^not JSON: Input data was truncated"),
        (fixture("nakakamado_hand.json")[:500], "^not JSON: Input data was truncated"),
        (records.dumps(K, HAND_MOVES)[:-40], "^not JSON: Input data was truncated"),
        ("{'format': 1}", "^not JSON: "),
        ("[1, 2]", "^a record is a JSON object"),
        ("null", "^a record is a JSON object"),
        ('{"format": ["nyumba-record"], "version": 1}', '^format \\["nyumba-record"\\] is not'),
        (b"\xff\xfe", "^not JSON"),
    ],
)
def test_what_is_not_a_record_object_is_refused(text, message):
    with pytest.raises(BadRecord, match=message):
        records.load(text)


def test_bad_records_are_value_errors():
    assert issubclass(BadRecord, ValueError)


# -- replaying, summaries -----------------------------------------------------------------------


def test_replay_view_is_what_a_replaying_client_draws():
    game = engine.load("kalah", seeds=3)
    moves = random_moves(game, random.Random(5))
    view = records.replay_view(records.dumps(game, moves))
    state = game.start()
    assert view["states"][0] == {
        "position": game.describe(state),
        "board": game.board(state),
        "to_move": 0,
        "last": None,
    }
    for entry, move in zip(view["states"][1:], moves):
        side = game.to_move(state)
        steps = msgspec.to_builtins(game.steps(state, move))
        state = game.play(state, move)
        assert entry == {
            "position": game.describe(state),
            "board": game.board(state),
            "to_move": None if game.outcome(state) else game.to_move(state),
            "last": {"move": game.notation(move), "side": side, "steps": steps},
        }
    assert view["outcome"] == msgspec.to_builtins(game.outcome(state))
    assert view["adjudication"] is None and view["game"] == "kalah"
    assert view["options"] == {"seeds": 3, "empty_capture": False}
    json.dumps(view)  # all plain JSON
    with pytest.raises(BadRecord):
        records.replay_view("{}")


def test_summary_lines():
    line = records.summary_line
    assert line(records.load(fixture("nakakamado_hand.json"))) == (
        "bao-nakakamado-a, 6 plies, not finished"
    )
    assert line(records.load(records.dump(K, ["A6R"], outcome=engine.resigned(1)))) == (
        "bao-kiswahili, 1 ply, South wins (resignation)"
    )
    assert line(records.load(records.dump(K, [], outcome=engine.agreed_draw()))) == (
        "bao-kiswahili, 0 plies, drawn (agreement)"
    )
    data = json.loads(fixture("nakakamado_app_nyakua.json"))
    winner = ("South", "North")[data["final"]["winner"]]
    assert line(records.load(data)) == (
        f"bao-nakakamado-a, {len(data['history'])} plies, {winner} wins (front-empty)"
    )


def test_computer_and_mode():
    data = records.dump(N, HAND_MOVES[:2], mode="computer", computer="advanced")
    assert data["computer"] == {"id": "nyumba-advanced", "learnedModel": False}
    assert list(data)[16:18] == ["mode", "computer"]
    assert records.load(data).computer == data["computer"]
    generic = records.dump(K, [], mode="computer", computer={"id": "x", "level": "beginner"})
    assert records.load(generic).computer == {"id": "x", "level": "beginner"}


def test_mangled_records_never_crash_the_loader():
    """Any value anywhere: the record loads (the change did not matter) or is refused."""
    rng = random.Random(9)
    values = [
        None,
        True,
        False,
        0,
        1,
        -1,
        7,
        2.5,
        "",
        "x",
        "left",
        "use",
        [],
        {},
        [0, 1],
        {"type": "pass"},
        [[1]],
        "A6R",
    ]
    sources = [json.loads(fixture("nakakamado_hand.json")), records.dump(K, HAND_MOVES)]

    def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        out = [prefix] if prefix else []
        children = (
            value.items()
            if isinstance(value, dict)
            else enumerate(value)
            if isinstance(value, list)
            else ()
        )
        for key, child in children:
            out += paths(child, (*prefix, key))
        return out

    for source in sources:
        every = paths(source)
        for _ in range(400):
            data = changed(source, rng.choice(every), rng.choice(values + [KeyError]))
            try:
                records.load(data)
            except BadRecord:
                pass


def test_the_schema_takes_every_record_dump_writes_and_refuses_what_load_refuses_unplayed():
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(records.schema())
    rng = random.Random(8)
    for profile in engine.profiles():
        game = engine.load(profile.name)
        for fmt in {records.FORMAT, records.format_of(profile.name)}:
            for n in range(3):
                moves = random_moves(game, rng, limit=30 if n else 10_000)
                data = records.dump(game, moves, players=("a", None), mode="friend", format=fmt)
                validator.validate(json.loads(records.text(data)))
    good = records.dump(K, list(HAND_MOVES))
    for change in (
        {"version": 2},
        {"format": "nyumba-recording"},
        {"game": "chess"},
        {"mode": "online"},
        {"players": ["a"]},
        {"extra": 1},
        {"moves": [{"move": "c", "side": 2, "result": ""}]},
    ):
        bad = {**good, **change}
        assert not validator.is_valid(bad), change
        with pytest.raises(BadRecord):
            records.load(bad)

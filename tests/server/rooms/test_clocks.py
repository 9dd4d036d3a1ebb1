"""Game clocks as pure decisions: charging, lag credit, the flag, the abort, the rematch."""

from __future__ import annotations

from server.rooms import clock as C
from server.rooms import judge as J
from server.rooms import protocol as P
from server.rooms import room as R
from server.rooms import view as V
from server.rooms.timing import Flag, flag_at


def _local(initial: int = 5000, inc: int = 1000, abort: int = 30_000) -> R.Room:
    room, _, _ = R.create(
        "r1", "oware", {}, "local", "south", "beginner", 1000, clock=C.Control(initial, inc),
        abort_ms=abort,
    )  # fmt: skip
    return room


def _ctx(now: int) -> R.Context:
    return R.Context(sides=[0, 1], who="x", now_ms=now)


def _move(room: R.Room, now: int, lag: int | None = None, n: int = 0) -> J.Change:
    move = R.Position(room).choices[0].move
    intent = P.Move(
        room=room.id, version=room.version, move=move, id=f"m{room.version}-{n}", lag=lag
    )
    return J.judge(room, intent, _ctx(now))


def _clock(room: R.Room, now: int) -> C.Clock:
    clock = V.state_message(room, {}, now, 1000).clock
    assert clock is not None
    return clock


def test_no_clock_runs_until_both_sides_have_moved_then_the_side_to_move_is_charged() -> None:
    room = _local()
    assert _clock(room, 9000) == C.Clock(5000, 1000, [5000, 5000], None, 22000)
    room = _move(room, 2000).room  # South's first move: no charge
    assert _clock(room, 2500).remaining == [5000, 5000] and _clock(room, 2500).running is None
    room = _move(room, 3000).room  # North's first move: now South's clock runs
    assert _clock(room, 3000) == C.Clock(5000, 1000, [5000, 5000], 0, None)
    assert _clock(room, 4500).remaining == [3500, 5000]
    room = _move(room, 5000).room  # South spent 2 s, gets 1 s back
    assert _clock(room, 5000) == C.Clock(5000, 1000, [4000, 5000], 1, None)
    assert flag_at(room) == 10000 + C.LAG_MOVE_MS  # North's zero, and the grace


def test_lag_credit_is_bounded_per_move_and_by_the_quota() -> None:
    room = _move(_move(_local(), 2000).room, 3000).room
    room = _move(room, 5000, lag=5000).room  # claims 5 s of lag: credited 0.5 s at most
    assert _clock(room, 5000).remaining[0] == 5000 - 2000 + 500 + 1000
    assert room.clock is not None and room.clock.quota[0] == 1000 - 500 + C.QUOTA_GAIN_MS


def test_a_flag_after_zero_and_the_grace_ends_the_game_on_time_and_a_late_move_finds_it_over():
    room = _move(_move(_local(), 2000).room, 3000).room  # South's clock runs from 3000: 5 s
    assert flag_at(room) == 8000 + 500  # zero, and the most lag credit a move could get
    early = J.judge(room, Flag(room.id), _ctx(8499))
    assert early.room is room  # not yet: a move may still come within its credit
    flagged = J.judge(room, Flag(room.id), _ctx(8500)).room
    assert flagged.outcome is not None and flagged.outcome.adjudication == "timeout"
    assert flagged.outcome.winner == 1
    state = V.state_message(flagged, {}, 8600, 1000)
    assert state.adjudication == "timeout" and state.clock is not None
    assert state.clock.remaining == [0, 5000] and state.clock.running is None
    late = _move(room, 8200)  # past zero, claiming no lag: it does not count
    assert isinstance(late.reply, P.Error) and late.reply.code == "game-over"
    assert late.room.outcome is not None and late.room.outcome.adjudication == "timeout"


def test_a_move_within_its_reported_lag_after_the_deadline_still_counts() -> None:
    room = _move(_move(_local(), 2000).room, 3000).room
    done = _move(room, 8200, lag=300)
    assert isinstance(done.reply, P.Ack)
    assert done.room.clock is not None and done.room.clock.remaining[0] == 100 + 1000


def test_a_move_and_the_flag_agree_on_the_grace_bounded_by_the_quota() -> None:
    room = _move(_move(_local(), 2000).room, 3000).room  # South's zero: 8000
    counted = _move(room, 8300, lag=500)  # 300 ms after zero, 500 claimed
    assert isinstance(counted.reply, P.Ack) and counted.room.outcome is None
    assert J.judge(room, Flag(room.id), _ctx(8300)).room is room  # the flag agrees
    past = _move(room, 8500, lag=800)  # past the grace: a claim beyond it is not credited
    assert isinstance(past.reply, P.Error) and past.reply.code == "game-over"
    # The other side's intent within the grace does not end the game either: South resigns.
    resigned = J.judge(room, P.Resign(room=room.id, id="r"), R.Context(sides=[1], now_ms=8100))
    assert resigned.room.outcome is not None and resigned.room.outcome.reason != "timeout"
    # The grace is the quota when it is lower than LAG_MOVE_MS: claims of 500 ms a move
    # spend it (1000, 600, 200: each move gains 100 back).
    for _ in range(4):  # South and North each move twice, claiming 500 ms each time
        room = _move(room, room.clock.since_ms + 600, lag=500).room
    assert room.clock is not None and room.clock.quota[0] == 200 and room.clock.running == 0
    zero = room.clock.since_ms + room.clock.remaining[0]
    assert flag_at(room) == zero + 200
    assert isinstance(_move(room, zero + 150, lag=500).reply, P.Ack)
    assert J.judge(room, Flag(room.id), _ctx(zero + 199)).room is room
    assert J.judge(room, Flag(room.id), _ctx(zero + 200)).room.outcome is not None


def test_a_game_without_first_moves_is_aborted_after_the_window_or_on_request() -> None:
    room = _local(abort=10_000)
    assert flag_at(room) == 11_000  # the first moves' window has no grace
    gone = J.judge(room, Flag(room.id), _ctx(11_001)).room
    assert gone.outcome is not None and gone.outcome.adjudication == "aborted"
    assert gone.outcome.reason == "first-move" and gone.ended_by == 0  # why, and whose move
    assert gone.outcome.winner is None and gone.waiting == []  # no result, nothing archived
    asked = J.judge(room, P.Abort(room=room.id, id="ab"), _ctx(2000))
    assert isinstance(asked.reply, P.Ack)
    assert asked.room.outcome is not None and asked.room.outcome.adjudication == "aborted"
    assert asked.room.outcome.reason == "abort"
    started = _move(_move(room, 2000).room, 3000).room
    refused = J.judge(started, P.Abort(room=room.id, id="ab2"), _ctx(3500))
    assert isinstance(refused.reply, P.Error) and refused.reply.code == "not-allowed"


def test_a_rematch_keeps_the_control_and_starts_afresh() -> None:
    room = _move(_move(_local(), 2000).room, 3000).room
    over = J.judge(room, P.Resign(room=room.id, id="r"), _ctx(4000)).room
    assert over.clock is not None and over.clock.remaining == [4000, 5000]
    again = J.judge(over, P.Offer(room=room.id, kind="rematch", id="o"), _ctx(9000)).room
    assert _clock(again, 9500) == C.Clock(5000, 1000, [5000, 5000], None, 29500)


def test_a_room_without_a_clock_shows_none() -> None:
    room, _, _ = R.create("r2", "kalah", {}, "local", "south", "beginner", 1000)
    assert V.state_message(room, {}, 1000, 1000).clock is None and flag_at(room) is None


def test_the_computer_thinks_within_its_clock() -> None:
    from server.rooms.timing import within_clock

    room = _move(_move(_local(initial=60_000), 2000).room, 3000).room  # South's clock runs
    assert within_clock(room, 0, "expert") == "advanced"  # a 10 s cap is over a tenth of 60 s
    assert within_clock(room, 0, "intermediate") == "intermediate"
    assert within_clock(room, 1, "expert") == "expert"  # North's clock does not run
    short = _move(_move(_local(initial=3000), 2000).room, 3000).room
    assert within_clock(short, 0, "advanced") == "beginner"
    untimed, _, _ = R.create("r3", "oware", {}, "local", "south", "beginner", 1000)
    assert within_clock(untimed, 0, "expert") == "expert"

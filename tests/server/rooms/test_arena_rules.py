"""The arena's rules as values (server/rooms/arena.py): points, streaks and berserk as lichess's
arena counts them, the standings order, the status, the operator's schedule and the messages.
Every expectation is worked out by hand from the rule, not by calling the code twice."""

from __future__ import annotations

import msgspec
import pytest

from server.rooms import arena as A
from server.rooms.clock import Control


def play(results: list[tuple[A.Result, bool]]) -> list[int]:
    """The sheet of a run of games, each scored from the streak the one before left."""
    streak, sheet = 0, []
    for result, berserked in results:
        points, streak = A.score(streak, result, berserked)
        sheet.append(points)
    return sheet


def test_a_win_is_two_points_a_draw_one_a_loss_none() -> None:
    assert A.score(0, "win", False) == (2, 1)
    assert A.score(0, "draw", False) == (1, 0)
    assert A.score(0, "loss", False) == (0, 0)


def test_one_win_before_is_not_a_streak() -> None:
    assert A.score(1, "win", False) == (2, 2)
    assert A.score(1, "draw", False) == (1, 0)


def test_after_two_wins_in_a_row_a_win_is_doubled_and_the_streak_goes_on() -> None:
    assert A.score(2, "win", False) == (4, 3)
    assert A.score(7, "win", False) == (4, 8)


def test_on_fire_a_draw_is_doubled_and_ends_the_streak() -> None:
    assert A.score(2, "draw", False) == (2, 0)


def test_a_loss_ends_the_streak_and_earns_nothing_even_on_fire() -> None:
    assert A.score(3, "loss", False) == (0, 0)
    assert A.score(3, "loss", True) == (0, 0)


def test_a_berserked_win_earns_one_more_that_is_never_doubled() -> None:
    assert A.score(0, "win", True) == (3, 1)
    assert A.score(2, "win", True) == (5, 3)  # 2 doubled = 4, then +1 (not +2)


def test_a_berserked_draw_earns_nothing_extra() -> None:
    assert A.score(0, "draw", True) == (1, 0)
    assert A.score(2, "draw", True) == (2, 0)


def test_doubled_marks_a_game_on_fire_that_earned_points() -> None:
    assert A.doubled(2, "win") and A.doubled(5, "win") and A.doubled(2, "draw")
    assert not A.doubled(2, "loss")  # nothing to double
    assert not A.doubled(1, "win") and not A.doubled(0, "draw")


def test_a_run_of_games_sheet_by_hand() -> None:
    # W W W D W W L W(berserk): 2 2 (fire) 4, draw on fire 2 (ends), 2 2 (fire), loss 0, 2+1.
    run: list[tuple[A.Result, bool]] = [
        ("win", False), ("win", False), ("win", False), ("draw", False),
        ("win", False), ("win", False), ("loss", False), ("win", True),
    ]  # fmt: skip
    assert play(run) == [2, 2, 4, 2, 2, 2, 0, 3]


def test_standings_order_points_then_who_reached_them_first_then_id() -> None:
    created = 1_000_000
    people = {  # player: (points, ms of their last change of points)
        "zoe": (6, created + 5000),
        "amy": (6, created + 9000),
        "bob": (6, created + 5000),
        "cat": (9, created + 60_000),
        "dan": (0, created + 10),
    }
    ordered = sorted(people, key=lambda p: (A.order_key(*people[p], created), p))
    assert ordered == ["cat", "bob", "zoe", "amy", "dan"]
    # A change before the creation (a clock step) counts as at it, and the key stays exact.
    assert A.order_key(3, created - 5, created) == A.order_key(3, created, created)
    assert A.order_key(1500, created + 300 * 60_000, created) == -1500 * 10**10 + 18_000_000


def spec(**changes: object) -> A.ArenaSpec:
    base = A.ArenaSpec(
        "a1", "Test", "kalah", {}, Control(180_000, 2000), True, False, 10_000, 20_000, 5000
    )
    return msgspec.structs.replace(base, **changes)


def test_status_upcoming_running_ending_finished() -> None:
    s = spec()
    assert [A.status(s, t, False) for t in (9_999, 10_000, 19_999, 20_000)] == [
        "upcoming", "running", "running", "ending",
    ]  # fmt: skip
    assert A.status(s, 15_000, True) == "finished"


def test_the_schedule_entries_and_their_options() -> None:
    hourly, daily = A.parse_schedule(
        " kalah 3+2 hourly 30m;  bao-kiswahili:variant=1 10+5 daily@19:00 1h casual berserk ;"
    )
    assert hourly == A.ScheduleEntry(
        "kalah 3+2 hourly 30m", "kalah", {}, Control(180_000, 2000), "hourly", 0, 1_800_000
    )
    assert daily.game == "bao-kiswahili" and daily.options == {"variant": 1}
    assert daily.clock == Control(600_000, 5000) and daily.every == "daily"
    assert daily.at_ms == 19 * 3_600_000 and daily.duration_ms == 3_600_000
    assert (daily.rated, daily.berserk) == (False, True)
    assert A.parse_schedule("oware ½+0 daily@00:00 1h30m")[0].clock == Control(30_000, 0)
    assert A.parse_schedule("") == []


@pytest.mark.parametrize(
    "text, words",
    [
        ("kalah 3+2 hourly", "needs a game, a clock"),
        ("Kalah! 3+2 hourly 30m", "'Kalah!' is not a game's name"),
        ("kalah 3:2 hourly 30m", "'3:2' is not a clock"),
        ("kalah 500+2 hourly 30m", "out of range"),
        ("kalah 3+2 weekly 30m", "'weekly' is neither 'hourly' nor 'daily@HH:MM'"),
        ("kalah 3+2 daily@24:00 30m", "'daily@24:00' is neither"),
        ("kalah 3+2 hourly 30", "'30' is not a duration"),
        ("kalah 3+2 hourly 0m", "'0m' is not a duration"),
        ("kalah 3+2 hourly 2h", "cannot last longer than its period"),
        ("kalah 3+2 hourly 30m fast", "'fast' is not 'rated', 'casual' or 'berserk'"),
        ("kalah:seeds 3+2 hourly 30m", "the option 'seeds' is not name=value"),
    ],
)
def test_a_bad_schedule_entry_is_a_sentence_naming_it(text: str, words: str) -> None:
    with pytest.raises(A.ScheduleError) as caught:
        A.parse_schedule(f"oware 5+0 hourly 30m; {text}")
    assert str(caught.value).startswith(f"NYUMBA_ARENAS entry {text!r}: ")
    assert words in str(caught.value)


def test_next_start_is_the_first_occurrence_at_or_after_now() -> None:
    hourly, daily = A.parse_schedule("kalah 3+2 hourly 30m; oware 5+0 daily@19:30 1h")
    day = 20_000 * 86_400_000  # a midnight UTC
    assert A.next_start(hourly, day) == day
    assert A.next_start(hourly, day + 1) == day + 3_600_000
    assert A.next_start(daily, day) == day + 19 * 3_600_000 + 30 * 60_000
    assert A.next_start(daily, day + 20 * 3_600_000) == day + 86_400_000 + 70_200_000


def test_a_scheduled_arena_has_one_id_per_entry_and_start_on_every_node() -> None:
    (entry,) = A.parse_schedule("kalah 3+2 hourly 30m")
    (spaced,) = A.parse_schedule("kalah  3+2   hourly 30m")
    first = A.scheduled_id(entry, 3_600_000)
    assert first == A.scheduled_id(spaced, 3_600_000)
    assert first != A.scheduled_id(entry, 7_200_000)
    assert len(first) == 11 and len(A.arena_id()) == 11 and A.arena_id() != A.arena_id()
    made = A.scheduled_spec(entry, 3_600_000, 1000)
    assert (made.id, made.ends_ms, made.by, made.schedule) == (first, 5_400_000, None, entry.text)


def test_the_arena_messages_decode_strictly() -> None:
    decode = msgspec.json.Decoder(A.ArenaWatch | A.ArenaJoin | A.ArenaPause).decode
    assert decode(b'{"t":"arena-join","arena":"abc"}') == A.ArenaJoin("abc")
    assert decode(b'{"t":"arena","arena":"abc","on":false}') == A.ArenaWatch("abc", False)
    for bad in (
        b'{"t":"arena-pause","arena":"a b"}',
        b'{"t":"arena-join","arena":"abc","x":1}',
        b'{"t":"arena-join","arena":"' + b"a" * 17 + b'"}',
    ):
        with pytest.raises(msgspec.ValidationError):
            decode(bad)
    assert A.ArenaRefused("arena-over").message == A.ERRORS["arena-over"]

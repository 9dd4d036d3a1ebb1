"""origin(): what a client shows to tell moves from one pit apart (B6, B10)."""

import engine


def test_B6_namua_capture_names_the_entry_kichwa_not_a_direction():
    game = engine.load("bao-kiswahili")
    state = game.play(game.start(), game.parse(game.start(), "A7L"))  # V02's first move
    capture = game.parse(state, "a5R")
    assert game.origin(capture, state) == ("a5", "kichwa-R")
    # Without the position the letter is all there is.
    assert game.origin(capture) == ("a5", "R")


def test_B6_takasa_and_mtaji_moves_keep_their_direction():
    game = engine.load("bao-kiswahili")
    state = game.start()
    for move in game.legal_moves(state):  # the opening has no capture: all takasa
        pit, choice = game.origin(move, state)
        assert pit == move.pit and choice == game.notation(move)[len(move.pit) :]
    kuj = engine.load("bao-kujifunza")  # mtaji from the first move
    s = kuj.start()
    for move in kuj.legal_moves(s):
        assert kuj.origin(move, s)[1] in ("L", "R", "L+", "R+")

"""The display-name rule (server/rooms/names.py) case by case; test_ws_guard.py sends names through a
real server."""

from __future__ import annotations

import pytest

from server.rooms import names


@pytest.mark.parametrize(
    "name, why",
    [
        ("Ann\ufe0f", "U+FE0F"),  # a variation selector on a letter changes nothing visible
        ("A\u200dB", "U+200D"),  # a joiner between letters
        ("e\u0301\u0301", "twice in a row"),  # one mark drawn over itself
        ("A \u0301", "with no letter before it"),  # a mark on a space
        ("\u3164", "U+3164"),  # a Hangul filler: a letter that shows nothing
        ("Ju\u2800ma", "U+2800"),  # a blank braille cell
        ("Ju\ue000ma", "U+E000"),  # private use
        ("Ju\U0010ffffma", "U+10FFFF"),  # not a character
        ("A\u2029B", "U+2029"),  # a paragraph separator
        ("<b>Amani", "< or >"),
        ("😀", "a letter or a digit"),
        ("--", "a letter or a digit"),
        ("Ｃｏｍｐｕｔｅｒ", "computer's"),  # full width
        ("Cοmρuτer", "computer's"),  # Greek omicron, rho and tau
        ("𝐂𝐨𝐦𝐩𝐮𝐭𝐞𝐫", "computer's"),  # mathematical bold
        ("C.o.m.p.u.t.e.r", "computer's"),
        ("Cómputer", "computer's"),
        ("ᴄᴏᴍᴘᴜᴛᴇʀ", "computer's"),  # small capitals
        ("KOMPYUTA", "computer's"),
        ("ｺﾝﾋﾟｭｰﾀ", "computer's"),  # half-width katakana
        ("NYUMBA yangu", "house's"),
    ],
)
def test_a_name_that_hides_or_impersonates_is_refused_with_a_sentence(name, why):
    problem = names.problem(name)
    assert problem is not None and why in problem, (name, problem)


@pytest.mark.parametrize(
    "name", ["Commuter", "Compute", "Serena", "The computer's friend", "Amani"]
)
def test_names_near_a_reserved_one_are_kept(name):
    assert names.problem(name) is None


def test_every_reserved_name_is_refused_in_capitals_and_small_letters():
    for word in names.RESERVED:
        for form in (word, word.upper(), word.lower()):
            assert names.reserved(form), form

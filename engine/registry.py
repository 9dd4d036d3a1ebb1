"""The named profiles and their options.

A profile is data: its title, its *family* (``kalah``, ``oware`` or ``bao``: the rules
machinery it is played with, which also keys the computer player's budgets and a client's board
layout), the *module* under ``engine/`` that builds its game, and its options with defaults and
allowed values. ``load`` checks options here, once, so a
family's constructor receives only valid values.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

import msgspec

from engine.core import BadOptions, Game


class Option(msgspec.Struct, frozen=True):
    name: str
    default: Any
    choices: tuple[Any, ...]
    title: str


class Profile(msgspec.Struct, frozen=True):
    name: str
    title: str
    family: str  # "kalah", "oware" or "bao"
    module: str  # module under engine/ whose make() builds the game
    options: tuple[Option, ...] = ()


_PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            "kalah",
            "Kalah",
            "kalah",
            "kalah",
            (
                Option("seeds", 4, (3, 4, 5, 6), "Seeds per pit at the start (K2)"),
                Option(
                    "empty_capture",
                    False,
                    (False, True),
                    "Last seed goes to the store even opposite an empty pit (K6)",
                ),
            ),
        ),
        Profile("oware", "Oware (Abapa)", "oware", "oware"),
        Profile(
            "bao-kiswahili",
            "Bao la Kiswahili",
            "bao",
            "bao",
            (Option("takasia", True, (False, True), "Takasia blocks a threatened pit (K5)"),),
        ),
        Profile(
            "bao-kujifunza",
            "Bao la Kujifunza",
            "bao",
            "bao",
            (Option("takasia", False, (False, True), "Takasia blocks a threatened pit (J2, K5)"),),
        ),
        # N1: no takasia, so no option; its module is the Bao core with the N rules.
        Profile("bao-nakakamado-a", "Bao Nakakamado (NYAKUA proposal A)", "bao", "bao_nakakamado"),
    )
}


def register(profile: Profile) -> None:
    """Add a profile (used by families that land later, and by tests)."""
    _PROFILES[profile.name] = profile


def find(name: str) -> Profile:
    """The profile called ``name``; BadOptions if there is none."""
    spec = _PROFILES.get(name)
    if spec is None:
        raise BadOptions(f"unknown game {name!r}; known: {', '.join(_PROFILES)}")
    return spec


def profiles() -> tuple[Profile, ...]:
    """Every known profile, in a stable order."""
    return tuple(_PROFILES.values())


def load(profile: str, **options: Any) -> Game:
    """The game for ``profile`` with ``options`` (defaults for those omitted).

    Raises BadOptions for an unknown profile, an unknown option or a value
    outside the option's choices.
    """
    spec = find(profile)
    known = {o.name: o for o in spec.options}
    for name, value in options.items():
        opt = known.get(name)
        if opt is None:
            raise BadOptions(f"{profile} has no option {name!r}")
        # bool is an int: keep True from passing for 1 and 1 for True
        if not any(type(value) is type(c) and value == c for c in opt.choices):
            raise BadOptions(f"{profile} option {name}={value!r} is not one of {list(opt.choices)}")
    values = {o.name: options.get(o.name, o.default) for o in spec.options}
    return _make(profile, tuple(sorted(values.items())))


@cache
def _make(profile: str, items: tuple[tuple[str, Any], ...]) -> Game:
    spec = _PROFILES[profile]
    module = importlib.import_module(f"engine.{spec.module}")
    game: Game = module.make(profile, dict(items))
    return game

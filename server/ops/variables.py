"""The settings as variables: what the README table, ``nyumba serve --help`` and the error
lines say about each field of ``server.ops.config.Settings``, read from its annotation, and the
conversion of one variable's text with ``msgspec.convert`` against it."""

from __future__ import annotations

import os
import typing
from pathlib import Path
from typing import Any, Literal

import msgspec
from msgspec import Meta

import engine
from server.ops import dburl
from server.ops.config import BadSetting, Settings, cores
from server.ops.urls import seed_urls
from server.rooms.arena import ScheduleError, parse_schedule


class Variable(msgspec.Struct, frozen=True):
    field: str
    env: str
    help: str
    allowed: str
    default: str
    type: Any
    internal: bool = False


def variables(internal: bool = True) -> list[Variable]:
    """Every setting: its field, environment variable, help, what is allowed, default.
    ``internal=False``: only those people set (the README table and ``--help``)."""
    hints = typing.get_type_hints(Settings, include_extras=True)
    out = []
    for f in msgspec.structs.fields(Settings):
        annotated = hints[f.name]
        meta = next(m for m in annotated.__metadata__ if isinstance(m, Meta))
        extra = meta.extra or {}
        default = f.default if f.default is not msgspec.NODEFAULT else f.default_factory()
        out.append(
            Variable(
                field=f.name,
                env=extra["env"],
                help=extra["help"],
                allowed=extra.get("allowed") or _describe(annotated.__origin__, meta),
                default=_show(default),
                type=annotated,
                internal=bool(extra.get("internal")),
            )
        )
    return [v for v in out if internal or not v.internal]


def _describe(tp: Any, meta: Meta) -> str:
    if tp is int:
        return f"an integer from {meta.ge} to {meta.le}"
    if tp is bool:
        return "true or false (1 or 0)"
    if typing.get_origin(tp) is Literal:
        return "one of " + ", ".join(typing.get_args(tp))
    if meta.pattern:
        return f"text matching {meta.pattern}"
    return "non-empty text"


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, tuple):
        return ",".join(value) or "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Path):
        return "./" + str(value) if not value.is_absolute() else str(value)
    return str(value)


def convert(var: Variable, source: str, raw: Any) -> Any:
    base = var.type.__origin__
    if base is Path:
        text = str(raw)
        if not text.strip():
            raise BadSetting(f"{source}={raw!r} is not allowed: {var.allowed}")
        return Path(text).expanduser().resolve()  # absolute: children may run elsewhere
    if var.field == "workers" and str(raw).strip().lower() == "auto":
        return cores()
    if var.field == "allowed_origins":
        raw = tuple(o.strip().rstrip("/") for o in str(raw).split(",") if o.strip())
        bad = [o for o in raw if "://" not in o]
        if bad:
            raise BadSetting(f"{source}={bad[0]!r} is not allowed: {var.allowed}")
        return raw
    if isinstance(raw, str) and base is bool:
        raw = {"yes": "true", "on": "true", "no": "false", "off": "false"}.get(raw.lower(), raw)
        raw = raw.lower()
    try:
        value = msgspec.convert(raw, var.type, strict=False)
    except msgspec.ValidationError:
        raise BadSetting(f"{source}={raw!r} is not allowed: {var.allowed}") from None
    if var.field == "database_url":
        try:
            dburl.parse(value)
        except dburl.BadDatabaseURL as exc:
            raise BadSetting(f"{source}={raw!r} is not allowed: {exc}") from None
    if var.field == "arenas":
        try:
            for entry in parse_schedule(value):  # each entry's game, clock, when and duration
                engine.load(entry.game, **entry.options)
        except (ScheduleError, engine.BadOptions) as exc:
            raise BadSetting(f"{source}={raw!r} is not allowed: {exc}") from None
    if var.field == "redis_url":
        try:
            seed_urls(value)  # a list of a Cluster's seeds: each item a host:port
        except ValueError as exc:
            raise BadSetting(f"{source}={raw!r} is not allowed: {exc}") from None
    return value


def from_env(
    env: typing.Mapping[str, str] | None = None, **flags: str | int | Path | None
) -> Settings:
    """Settings from ``env`` (default: the process's), with ``flags`` (field name ->
    value, ``None`` for not given) winning. Raises ``BadSetting``."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    for var in variables():
        raw: Any = env.get(var.env) or None
        source = var.env
        flag = flags.get(var.field)
        if flag is not None:
            raw, source = flag, "--" + var.field.replace("_", "-")
        if raw is not None:
            values[var.field] = convert(var, source, raw)
    return Settings(**values)

"""The archive's tables, as SQLAlchemy Core declares them (the queries' view; the migrations
in ``migrations/versions/`` create them, and a test holds the two to each other).

Times are milliseconds since the epoch (``BIGINT``), as in the store. Ids are random text:
a player's public id (``players.id``, in ``/p/{id}``) is not its credential — the cookie's
token is, and only its SHA-256 is kept (``sessions.token_hash``).
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

players = Table(
    "players",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("name", String(64), nullable=True),
    Column("created_ms", BigInteger, nullable=False),
    Column("seen_ms", BigInteger, nullable=False),
)

# A browser's sign-in: the cookie holds the token, the table its hash.
sessions = Table(
    "sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("player", String(24), ForeignKey("players.id", ondelete="CASCADE"), nullable=False),
    Column("created_ms", BigInteger, nullable=False),
    Column("seen_ms", BigInteger, nullable=False),
    Index("sessions_player", "player"),
)

passkeys = Table(
    "passkeys",
    metadata,
    Column("id", String(1400), primary_key=True),  # the credential id, base64url
    Column("player", String(24), ForeignKey("players.id", ondelete="CASCADE"), nullable=False),
    Column("public_key", LargeBinary, nullable=False),
    Column("sign_count", BigInteger, nullable=False),
    Column("transports", JSON, nullable=True),
    Column("created_ms", BigInteger, nullable=False),
    Column("used_ms", BigInteger, nullable=False),
    # The relying party (a domain) it was made for; NULL: made before it was kept (a002).
    Column("rp_id", String(253), nullable=True),
    Index("passkeys_player", "player"),
)

# A WebAuthn challenge between its options and its answer: used once, within minutes.
challenges = Table(
    "challenges",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("challenge", LargeBinary, nullable=False),
    Column("player", String(24), nullable=True),  # registration: whose passkey it adds
    Column("expires_ms", BigInteger, nullable=False),
)

games = Table(
    "games",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("room", String(64), nullable=False),
    Column("game_no", Integer, nullable=False),
    Column("version", Integer, nullable=False),
    Column("game", String(64), nullable=False),
    Column("options", JSON, nullable=False),
    Column("mode", String(16), nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("winner", Integer, nullable=True),
    Column("reason", String(64), nullable=False),
    Column("adjudication", String(64), nullable=True),
    Column("outcome", JSON, nullable=False),
    Column("plies", Integer, nullable=False),
    Column("record", Text, nullable=False),  # nyumba's record format, without names
    Column("clock", JSON, nullable=True),
    Column("started_ms", BigInteger, nullable=False),
    Column("ended_ms", BigInteger, nullable=False),
    Column("archived_ms", BigInteger, nullable=False),
    # a004: the arena the game was played in, and each side's berserk ([south, north]) where
    # the arena allowed it; NULL for any other game and for games archived before.
    Column("arena", String(16), nullable=True),
    Column("berserk", JSON, nullable=True),
    UniqueConstraint("room", "game_no", name="games_room_game_no"),
    Index("games_ended", "ended_ms"),
    Index("games_arena", "arena", "ended_ms"),
)

# Each side of each game: who sat there (a player, a name, the computer) and, for rated
# games, the rating before and after.
game_seats = Table(
    "game_seats",
    metadata,
    Column("game", String(24), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("side", Integer, primary_key=True),
    Column("player", String(24), ForeignKey("players.id", ondelete="SET NULL"), nullable=True),
    Column("name", String(64), nullable=True),
    Column("holder", String(16), nullable=False),
    Column("level", String(32), nullable=True),
    Column("ended_ms", BigInteger, nullable=False),  # the game's, for a player's newest first
    Column("rating_before", Float, nullable=True),
    Column("rating_after", Float, nullable=True),
    Column("deviation_after", Float, nullable=True),  # a003: NULL for seats archived before
    Index("game_seats_player", "player", "ended_ms"),
)

ratings = Table(
    "ratings",
    metadata,
    Column("player", String(24), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
    Column("game", String(64), primary_key=True),  # the game profile
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("updated_ms", BigInteger, nullable=False),
    Index("ratings_board", "game", "rating"),
)

# Finished analyses (engine.analysis), by the key of the record they analyse.
analyses = Table(
    "analyses",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("analysis", Text, nullable=False),
    Column("created_ms", BigInteger, nullable=False),
)

# A finished arena (server/archive/arenas.py): its spec as created (server/rooms/arena.py
# ``ArenaSpec``, JSON) and its final standings, written once when its last game is scored.
arenas = Table(
    "arenas",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("spec", JSON, nullable=False),
    Column("starts_ms", BigInteger, nullable=False),
    Column("ends_ms", BigInteger, nullable=False),
    Column("finished_ms", BigInteger, nullable=False),
    Column("players", Integer, nullable=False),
    Index("arenas_finished", "finished_ms"),
)

# One line of a finished arena's standings. ``player`` is the player's id as it was: no
# foreign key, so deleting a player leaves the standings whole (``name`` null, as an
# anonymous seat shows).
arena_rows = Table(
    "arena_rows",
    metadata,
    Column("arena", String(16), ForeignKey("arenas.id", ondelete="CASCADE"), primary_key=True),
    Column("player", String(24), primary_key=True),
    Column("rank", Integer, nullable=False),
    Column("name", String(64), nullable=True),
    Column("points", Integer, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("draws", Integer, nullable=False),
    Column("losses", Integer, nullable=False),
    Column("berserks", Integer, nullable=False),
    Column("fire", Boolean, nullable=False),  # on a streak when the arena ended
    Column("sheet", JSON, nullable=False),  # points per game, in the order played
    Column("doubled", JSON, nullable=False),  # per game of sheet: its points were doubled
    Column("paused", Boolean, nullable=False),
    Column("rating", Integer, nullable=True),  # the rating the player joined with
    Index("arena_rows_rank", "arena", "rank"),
)

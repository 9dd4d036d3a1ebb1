"""What must outlast a room: the archive of finished games, players and their passkeys, and
ratings, in a database (SQLite in the data directory by default, PostgreSQL at
``DATABASE_URL``; SQLAlchemy Core over asyncio drivers, the schema migrated by Alembic on start).

``db`` opens the database and migrates it, ``schema`` declares its tables, ``games`` writes a
finished game once (with its ratings, in one transaction) and reads games, ``players`` keeps
players, their sign-in sessions and passkeys, ``arenas`` keeps a finished arena's standings
(once) and reads an arena's games.

May import: server.store (nothing yet), server.ops, server.rooms (pure values: the finished
game, Glicko-2), engine. Imported by: server.live (the archive write when a game ends),
server.web (the game and player pages), server.run (migrations before workers start).
"""

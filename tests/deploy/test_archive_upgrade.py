"""The archive's migration a004 (arenas) in a rolling upgrade: a node of the release before
(a003; its commit exported from git) keeps archiving games once a node of this release has
migrated the database it shares, and this release's API shows them as games of no arena.
"""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest
from archivekit import archived_counts, opening, wait_archived
from pgkit import sqlite_url
from serverproc import ROOT, ServerProcess
from wsclient import Client, create_room

# The last release before a004: the archive at a003, no arena columns in its inserts.
BEFORE_ARENAS = "0700120"
ENV = {
    "NYUMBA_TICK_MS": "300",
    # the node that ends a game archives it at once; nobody else's sweep takes it first
    "NYUMBA_ARCHIVE_RETRY_MS": "60000",
}


@pytest.fixture(scope="module")
def release_before(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("before-arenas")
    tree = subprocess.run(
        ["git", "archive", BEFORE_ARENAS], cwd=ROOT, capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(out)], input=tree.stdout, check=True)
    return out


def revision(url: str) -> str:
    with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
        return db.execute("SELECT version_num FROM alembic_version").fetchone()[0]


def played_to_its_end(node: ServerProcess) -> str:
    """A friend game on ``node``: each side's opening moves, then North resigns; its id."""
    made = create_room(node.url, "kalah")
    south, north = Client(node.ws_url), Client(node.ws_url)
    south.join(made["room"], made["token"])
    north.join(made["room"])
    opening({0: south, 1: north})
    north.send(t="resign", room=made["room"], id="r1")
    final = south.wait_state(lambda s: s["outcome"] is not None and s["archive"])
    south.close()
    north.close()
    return final["archive"]


def test_a_node_of_the_release_before_archives_games_after_the_migration(
    release_before, shared_store, tmp_path, key_prefix
):
    url = sqlite_url(tmp_path)
    env = {**ENV, "DATABASE_URL": url, "NYUMBA_KEY_PREFIX": key_prefix + "a004:"}
    old = ServerProcess(
        redis_url=shared_store, data_dir=tmp_path / "old", env=env, root=release_before
    )
    new = ServerProcess(redis_url=shared_store, data_dir=tmp_path / "new", env=env)
    try:
        old.start()
        assert revision(url) == "a003"
        first = played_to_its_end(old)
        new.start()  # the first node of this release migrates
        assert revision(url) == "a004"
        later = played_to_its_end(old)
        shown = [wait_archived(new.url, g)["game"] for g in (first, later)]
        assert archived_counts(old.url).get("written") == 2  # both written by the old node
        assert archived_counts(new.url).get("written", 0) == 0
        assert [(g["arena"], g["berserk"]) for g in shown] == [(None, None), (None, None)]
        with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
            rows = db.execute("SELECT id, arena, berserk FROM games ORDER BY ended_ms").fetchall()
        assert rows == [(first, None, None), (later, None, None)]
        for srv in (old, new):
            assert "Traceback" not in srv.log()
    finally:
        old.stop()
        new.stop()


def test_a_rollback_across_a004_as_deploy_readme_tells_it(
    release_before, shared_store, tmp_path, key_prefix
):
    """A node of the release before, started on the migrated database, stops at start (its
    Alembic does not know a004); with the revision set back to a003 it starts and archives;
    and a node of this release migrates it again, a004's columns and tables still there."""
    url = sqlite_url(tmp_path)
    env = {**ENV, "DATABASE_URL": url, "NYUMBA_KEY_PREFIX": key_prefix + "a004-back:"}
    new = ServerProcess(redis_url=shared_store, data_dir=tmp_path / "new", env=env).start()
    new.stop()
    assert revision(url) == "a004"
    refused = ServerProcess(
        redis_url=shared_store, data_dir=tmp_path / "old1", env=env, root=release_before
    )
    with pytest.raises(RuntimeError, match="server exited early"):
        refused.start()
    assert "Can't locate revision identified by 'a004'" in refused.log()
    with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
        db.execute("UPDATE alembic_version SET version_num = 'a003'")
    old = ServerProcess(
        redis_url=shared_store, data_dir=tmp_path / "old2", env=env, root=release_before
    )
    try:
        old.start()
        game = played_to_its_end(old)
        assert wait_archived(old.url, game)["game"]["id"] == game
    finally:
        old.stop()
    assert revision(url) == "a003"
    again = ServerProcess(redis_url=shared_store, data_dir=tmp_path / "again", env=env).start()
    try:
        assert revision(url) == "a004"
        assert wait_archived(again.url, game)["game"]["arena"] is None
        assert "Traceback" not in again.log()
    finally:
        again.stop()

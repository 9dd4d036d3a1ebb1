"""Settings as an operator meets them: every bad value refused before anything starts, with
one line naming the variable, the value and what is allowed (exit 2); every variable in the
README's table and in ``nyumba serve --help``; ``nyumba --version``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from server import __version__
from server.ops.config import BadSetting
from server.ops.variables import from_env, variables

ROOT = Path(__file__).resolve().parents[3]

BAD = [
    ("NYUMBA_ROOM_TTL_MS", "-1"),  # rooms were created and vanished at once
    ("NYUMBA_TICK_MS", "0"),  # a core spun at 96 %
    ("NYUMBA_COMPUTER_WORKERS", "-3"),
    ("PORT", "abc"),  # a traceback
    ("PORT", "70000"),
    ("REDIS_URL", "garbage"),  # 60 lines of traceback
    ("REDIS_URL", "redis://valkey-1:6379,valkey-2:port/0"),  # a Cluster's seeds, one bad
    ("NYUMBA_IDLE_TTL_MS", "soon"),
    ("NYUMBA_LOG_FORMAT", "xml"),
    ("NYUMBA_LOG_LEVEL", "loud"),
    ("NYUMBA_ACCESS_LOG", "maybe"),
    ("NYUMBA_ALLOWED_ORIGINS", "play.example"),  # an origin has a scheme
    ("NYUMBA_STORE_TIMEOUT_MS", "0"),
    ("NYUMBA_MAX_FRAME", "1"),
    ("NYUMBA_KEY_PREFIX", "has space"),
    ("DATABASE_URL", "mysql://db/nyumba"),  # not a database nyumba speaks
    ("DATABASE_URL", "postgresql://db.example/"),  # no database named
    ("DATABASE_URL", "postgresql://db/nyumba?search_path=a;drop"),  # a schema is a name
    ("DATABASE_URL", "sqlite:///"),  # no file
    ("NYUMBA_ARCHIVE_RETRY_MS", "0"),
    ("NYUMBA_PUBLIC_URL", "play.example"),  # an origin has a scheme
    ("NYUMBA_PUBLIC_URL", "https://play.example/nyumba"),  # and no path
]


def _serve(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "PORT", "HOST")}
    clean = {k: v for k, v in clean.items() if not k.startswith("NYUMBA_")}
    return subprocess.run(
        [sys.executable, "-m", "server.run.cli", "serve", *args],
        env={**clean, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("var,value", BAD, ids=[f"{v}={x}" for v, x in BAD])
def test_a_bad_variable_exits_2_with_one_line(var, value, tmp_path):
    done = _serve({var: value}, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert var in lines[0] and value in lines[0] and "allowed" in lines[0]
    assert not (tmp_path / "data").exists()  # refused before anything started


def test_a_bad_flag_is_named_as_the_flag(tmp_path):
    done = _serve({}, "--port", "eighty", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "nyumba serve: --port='eighty' is not allowed: an integer from 1 to 65535"
    )


def test_presence_shorter_than_its_refresh_is_doubted():
    (doubt,) = from_env({"NYUMBA_PRESENCE_TTL_MS": "1000"}).doubts()
    assert "NYUMBA_PRESENCE_TTL_MS=1000" in doubt and "NYUMBA_TICK_MS=5000" in doubt
    assert from_env({}).doubts() == []
    with pytest.raises(BadSetting, match="NYUMBA_TICK_MS='0' is not allowed"):
        from_env({"NYUMBA_TICK_MS": "0"})


def test_the_public_url_is_an_origin_whose_host_is_the_relying_party():
    """Unset, it is http://localhost:PORT: a name, because WebAuthn takes no IP address."""
    assert (from_env({}).public_origin, from_env({}).relying_party) == (
        "http://localhost:8000",
        "localhost",
    )
    given = from_env({"NYUMBA_PUBLIC_URL": "https://Play.Example:443/", "PORT": "9000"})
    assert (given.public_origin, given.relying_party) == ("https://play.example", "play.example")
    (doubt,) = from_env({"NYUMBA_PUBLIC_URL": "http://192.168.1.5:8000"}).doubts()
    assert "IP address" in doubt and "passkeys" in doubt


def test_values_are_converted_and_the_data_dir_made_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    s = from_env(
        {
            "PORT": "8123",
            "NYUMBA_DATA_DIR": "rel/data",
            "NYUMBA_ACCESS_LOG": "yes",
            "NYUMBA_ALLOWED_ORIGINS": "https://a.example/, https://b.example",
        },
        port=None,
    )
    assert s.port == 8123
    assert s.data_dir == tmp_path / "rel" / "data"
    assert s.access_log is True
    assert s.allowed_origins == ("https://a.example", "https://b.example")
    assert from_env({"PORT": "8123"}, port="9000").port == 9000  # flags win


def _readme_table() -> set[str]:
    text = (ROOT / "README.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    return {name for row in rows for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", row.split("|")[1])}


def test_every_variable_is_in_the_readme_table_and_in_help():
    names = {v.env for v in variables(internal=False)}
    assert names <= _readme_table(), names - _readme_table()
    done = subprocess.run(
        [sys.executable, "-m", "server.run.cli", "serve", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0
    missing = [n for n in names if n not in done.stdout]
    assert not missing
    assert "NYUMBA_ALLOWED_ORIGINS" in done.stdout and "NYUMBA_FORWARDED_ALLOW_IPS" in done.stdout


def test_version():
    done = subprocess.run(
        [sys.executable, "-m", "server.run.cli", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert done.stdout.strip() == f"nyumba {__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", __version__)

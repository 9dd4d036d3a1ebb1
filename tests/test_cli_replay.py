"""``nyumba replay FILE``: exit 0 with a one-line summary, 1 with the first bad ply on stderr,
2 when the file cannot be read."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import engine
from engine import records
from server.run import cli

DATA = Path(__file__).parent / "engine" / "data"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(["replay", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_good_record_prints_one_line(capsys, tmp_path):
    code, out, err = run(capsys, str(DATA / "nakakamado_safety_stop.json"))
    assert (code, out, err) == (
        0,
        "ok: bao-nakakamado-a, 80 plies, no winner (safety-stop, relay-limit)\n",
        "",
    )
    game = engine.load("kalah", seeds=3)
    path = tmp_path / "kalah.json"
    path.write_text(records.dumps(game, ["a", "F"], outcome=engine.resigned(1)))
    assert run(capsys, str(path)) == (0, "ok: kalah, 2 plies, South wins (resignation)\n", "")


def test_a_bad_record_names_the_first_bad_ply(capsys, tmp_path):
    data = json.loads((DATA / "nakakamado_hand.json").read_text())
    data["history"][3]["captures"] = 1
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    code, out, err = run(capsys, str(path))
    assert (code, out) == (1, "")
    assert err == f"{path}: ply 4 (North) a7L: captures is 1, the replay gives 0\n"
    path.write_text('{"format": "nyumba-record", "version": 1, "game": "ka')
    code, out, err = run(capsys, str(path))
    assert (code, out, err) == (1, "", f"{path}: not JSON: Input data was truncated\n")


def test_a_missing_file_is_exit_2(capsys, tmp_path):
    code, out, err = run(capsys, str(tmp_path / "none.json"))
    assert (code, out) == (2, "") and "No such file" in err


def test_standard_input(capsys, monkeypatch):
    text = (DATA / "nakakamado_hand.json").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text)))
    assert run(capsys, "-") == (0, "ok: bao-nakakamado-a, 6 plies, not finished\n", "")


def test_the_installed_command():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.run.cli",
            "replay",
            str(DATA / "nakakamado_app_nyakua.json"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).parents[1],
    )
    assert done.returncode == 0 and done.stdout.startswith("ok: bao-nakakamado-a, 14 plies, ")

"""Operations figures for one node on its embedded Valkey: prints, asserts nothing.

    python tests/bench/ops.py [--rounds 3]

Per round:
  start       `nyumba serve` (already installed) to the first 200 on / and /healthz
  stall       the store SIGSTOPped: time until /healthz, /readyz and POST /api/rooms answer
              (503 store-down) and until /livez answers (200)
  resume      SIGCONT to /readyz 200 again
  kill        the embedded Valkey SIGKILLed: time until /readyz is 200 again (restarted by
              the node's supervisor, rooms back from the append-only file)
Figures are medians over the rounds, with min-max; the machine's load average is printed,
since the development machine is shared.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from serverproc import ServerProcess  # noqa: E402


def _valkey_of(pid: int) -> int:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid and b"valkey-server" in cmd:
            return int(entry.name)
    raise LookupError("no embedded Valkey")


def _until(pred, timeout: float = 60) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            if pred():
                return time.monotonic() - started
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    return float("nan")


def _timed(call) -> tuple[int, float]:
    started = time.monotonic()
    return call().status_code, time.monotonic() - started


def one_round(tmp: Path) -> dict[str, float]:
    out: dict[str, float] = {}
    srv = ServerProcess(redis_url=None, data_dir=tmp, env={"NYUMBA_KEY_PREFIX": "bench-ops:"})
    started = time.monotonic()
    srv.start()  # returns on the first /healthz 200
    assert httpx.get(srv.url + "/").status_code == 200
    out["start"] = time.monotonic() - started
    valkey = _valkey_of(srv.proc.pid)
    try:
        os.kill(valkey, signal.SIGSTOP)
        for name, call in (
            ("stall /healthz", lambda: httpx.get(srv.url + "/healthz", timeout=30)),
            ("stall /readyz", lambda: httpx.get(srv.url + "/readyz", timeout=30)),
            (
                "stall POST /api/rooms",
                lambda: httpx.post(srv.url + "/api/rooms", json={"game": "kalah"}, timeout=30),
            ),
            ("stall /livez", lambda: httpx.get(srv.url + "/livez", timeout=30)),
        ):
            status, took = _timed(call)
            out[f"{name} ({status})"] = took
        os.kill(valkey, signal.SIGCONT)
        out["resume to ready"] = _until(
            lambda: httpx.get(srv.url + "/readyz", timeout=5).status_code == 200
        )
        os.kill(valkey, signal.SIGKILL)
        time.sleep(0.05)
        out["kill to ready"] = _until(
            lambda: httpx.get(srv.url + "/readyz", timeout=5).status_code == 200
        )
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(valkey, signal.SIGCONT)
        srv.stop()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus")
    rounds = []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            rounds.append(one_round(Path(tmp)))
    for key in rounds[0]:
        values = [r[key] for r in rounds if key in r]
        print(
            f"{key:<32} median {statistics.median(values):6.2f} s "
            f"(min {min(values):.2f}, max {max(values):.2f})"
        )
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

"""A picture of the operator's dashboard (deploy/observe/grafana/dashboards/nyumba.json) with
data from a load run — drawn from Prometheus by this script, **not by Grafana** (Grafana is not
packaged where these benches run; Debian's ``prometheus`` is).

    python tests/bench/dashboard_shot.py OUT.png [--seconds 180] [--rooms 100] [--rate 1]
                                         [--workers 2] [--level beginner] [--extras]

Starts Debian's Prometheus (``/usr/bin/prometheus``, scraping every 2 s), runs
``tests/bench/load.py`` (rooms of two sockets playing Kalah at ``--rate`` moves a second each,
computer rooms at ``--level``, under ``--workers``), points Prometheus at the server it
started, and when the run ends asks Prometheus every panel's queries over the run (the same
PromQL as the dashboard) and draws the panels where the dashboard's grid puts them
(matplotlib: ``pip install matplotlib``, a bench-only need). ``--extras`` also plays what
load.py does not: local games, computer games at the other levels, friend links nobody takes,
and posts reports as pages would (a spread of devices, a few friend links that could not
connect) — those panels' data are then the script's, not real pages'; the picture says so.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from websockets.exceptions import WebSocketException

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests")]
from serverproc import free_port  # noqa: E402
from statskit import play_to_end  # noqa: E402
from wsclient import Client, create_room  # noqa: E402

DASHBOARD = ROOT / "deploy" / "observe" / "grafana" / "dashboards" / "nyumba.json"
PROM_CONFIG = """
global: {{scrape_interval: 2s, evaluation_interval: 2s}}
scrape_configs:
  - job_name: nyumba
    file_sd_configs: [{{files: ["{targets}"], refresh_interval: 1s}}]
"""
BG, PANEL, INK, MUTED = "#111217", "#181b1f", "#ccccdc", "#8e8e9e"
COLOURS = ["#73bf69", "#f2cc0c", "#8ab8ff", "#ff780a", "#f2495c", "#5794f2", "#b877d9", "#fade2a"]


def server_port(load: subprocess.Popen, timeout: float = 120) -> int:
    """The port of the server load.py started (its ``--port`` argument)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                argv = (proc / "cmdline").read_bytes().split(b"\0")
                ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            if ppid == load.pid and b"--port" in argv:
                return int(argv[argv.index(b"--port") + 1])
        time.sleep(0.2)
    raise RuntimeError("load.py started no server")


def extras(base: str, ws_url: str, until: float) -> None:
    """What load.py does not play: local games, computer games at the other levels, friend
    links nobody takes, a page back on a new socket, and reports as pages would send them
    (synthetic: said on the picture). Stops at ``until``, or when the server has gone."""
    rng = random.Random(7)
    browsers = ["chrome"] * 6 + ["safari"] * 3 + ["firefox"] * 2 + ["edge", "samsung"]
    systems = {"safari": "ios", "samsung": "android"}
    while time.monotonic() < until:
        try:
            for _ in range(4):
                browser = rng.choice(browsers)
                phone = browser in ("safari", "samsung") or rng.random() < 0.3
                os_ = systems.get(browser) or (
                    "android" if phone else rng.choice(["windows", "macos", "linux"])
                )
                report = {
                    "kind": "device",
                    "phone": phone,
                    "memory": rng.choice(["2", "4"] if phone else ["4", "8+"]),
                    "cores": rng.choice(["3-4", "5-8"] if phone else ["5-8", "9+"]),
                    "browser": browser,
                    "os": os_,
                }
                httpx.post(base + "/api/reports", json=report)
            if rng.random() < 0.4:
                reason = rng.choice(["unreachable", "no-room", "no-room"])
                httpx.post(base + "/api/reports", json={"kind": "friend-link", "reason": reason})
            if rng.random() < 0.2:
                httpx.post(base + "/api/reports", json={"kind": "socket-failing"})
            create_room(base, "oware", mode="friend")  # a link nobody opens
            for mode, level in (
                ("local", "beginner"),
                ("computer", "beginner"),
                ("computer", "intermediate"),
            ):
                r = create_room(base, "kalah", options={"seeds": 3}, mode=mode, level=level)
                c = Client(ws_url)
                c.join(r["room"], r["token"])
                if mode == "local":  # its page loses its socket once and comes back
                    version = c.state["version"]
                    c.close()
                    c = Client(ws_url)
                    c.send(t="join", room=r["room"], token=r["token"], version=version)
                    c.expect("welcome")
                    c.expect("state")
                with contextlib.suppress(TimeoutError):
                    play_to_end([c])
                c.close()
        except (httpx.HTTPError, OSError, AssertionError, WebSocketException):
            return  # the run is over and its server gone
        time.sleep(0.5)


def query(prom: str, expr: str, start: float, end: float, step: float) -> list[dict]:
    r = httpx.get(
        prom + "/api/v1/query_range",
        params={"query": expr, "start": start, "end": end, "step": step},
        timeout=30,
    ).json()
    if r["status"] != "success":
        raise RuntimeError(f"{expr}: {r}")
    return r["data"]["result"]


def legend(fmt: str, labels: dict) -> str:
    out = fmt
    for k, v in labels.items():
        out = out.replace("{{" + k + "}}", v)
    return out.replace("{{", "").replace("}}", "")


def fmt_value(v: float, unit: str | None, decimals: int | None = None) -> str:
    if v != v:  # NaN
        return "–"
    if unit == "s":
        return f"{v * 1000:.1f} ms" if v < 1 else f"{v:.1f} s" if v < 120 else f"{v / 60:.1f} min"
    if unit == "percentunit":
        return f"{v * 100:.0f} %"
    if decimals == 0:
        return f"{v:.0f}"
    return f"{v:.{decimals if decimals is not None else 2}f}"


def draw(out: Path, prom: str, start: float, end: float, note: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.dates as mdates
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    dash = json.loads(DASHBOARD.read_text())
    panels = dash["panels"]
    rows = max(p["gridPos"]["y"] + p["gridPos"]["h"] for p in panels)
    fig = plt.figure(figsize=(22, rows * 0.36 + 1.2), dpi=90, facecolor=BG)
    grid = fig.add_gridspec(
        rows,
        24,
        left=0.02,
        right=0.99,
        top=1 - 1.0 / (rows * 0.36 + 1.2),
        bottom=0.01,
        hspace=1.6,
        wspace=0.5,
    )
    fig.suptitle(f"nyumba — {note}", color=INK, fontsize=13, x=0.02, ha="left")
    step = max(2.0, (end - start) / 240)
    for p in panels:
        g = p["gridPos"]
        ax = fig.add_subplot(grid[g["y"] : g["y"] + g["h"], g["x"] : g["x"] + g["w"]])
        ax.set_facecolor(PANEL if p["type"] != "row" else BG)
        for side in ax.spines.values():
            side.set_color("#2c3235")
        ax.tick_params(colors=MUTED, labelsize=7)
        if p["type"] == "row":
            ax.axis("off")
            ax.text(
                0, 0.2, p["title"], color=INK, fontsize=12, weight="bold", transform=ax.transAxes
            )
            continue
        ax.set_title(p["title"], color=INK, fontsize=9, loc="left")
        defaults = p["fieldConfig"]["defaults"]
        unit, decimals = defaults.get("unit"), defaults.get("decimals")
        series = []
        for t in p["targets"]:
            expr = t["expr"].replace("$__rate_interval", "30s")
            for s in query(prom, expr, start, end, step):
                xs = [float(x) for x, _ in s["values"]]
                ys = [float(y) for _, y in s["values"]]
                series.append((legend(t["legendFormat"], s["metric"]), xs, ys))
        if p["type"] == "stat":
            ax.set_xticks([])
            ax.set_yticks([])
            values = [ys[-1] for _, _, ys in series if ys]
            text = (
                " / ".join(
                    fmt_value(v, unit, decimals if decimals is not None else 0) for v in values
                )
                or "–"
            )
            if p["title"] == "Store up" and values:
                text = "UP" if values[0] == 1 else "DOWN"
            ax.text(
                0.5,
                0.45,
                text,
                color="#73bf69",
                fontsize=26,
                weight="bold",
                ha="center",
                va="center",
                transform=ax.transAxes,
            )
            if series and len(series[0][1]) > 1:
                ax2 = ax.inset_axes([0, 0, 1, 0.3])
                ax2.plot(series[0][1], series[0][2], color="#73bf69", lw=1)
                ax2.axis("off")
            continue
        if p["type"] == "bargauge":
            bars = sorted(((name, ys[-1]) for name, _, ys in series if ys), key=lambda b: -b[1])
            if not bars:
                ax.text(0.5, 0.5, "No data", color=MUTED, ha="center", transform=ax.transAxes)
                ax.set_xticks([])
                ax.set_yticks([])
                continue
            names = [b[0] for b in bars][::-1]
            values = [b[1] for b in bars][::-1]
            ax.barh(names, values, color=[COLOURS[i % len(COLOURS)] for i in range(len(values))])
            for i, v in enumerate(values):
                ax.text(
                    v, i, " " + fmt_value(v, unit, decimals), color=INK, va="center", fontsize=7
                )
            ax.tick_params(axis="y", labelsize=7, colors=INK)
            ax.set_xlim(0, max(values) * 1.25 or 1)
            continue
        stacked = defaults.get("custom", {}).get("stacking", {}).get("mode") == "normal"
        below = None
        for i, (name, xs, ys) in enumerate(series):
            days = [x / 86400 for x in xs]  # matplotlib's dates: days since 1970
            ys = [0.0 if y != y else y for y in ys]  # NaN: nothing yet
            if stacked:
                below = below if below is not None and len(below) == len(ys) else [0.0] * len(ys)
                top = [b + y for b, y in zip(below, ys)]
                ax.fill_between(
                    days, below, top, color=COLOURS[i % 8], alpha=0.55, label=name, lw=0
                )
                below = top
            else:
                ax.plot(days, ys, color=COLOURS[i % 8], lw=1.4, label=name)
        ax.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M"))
        ax.yaxis.set_major_formatter(
            FuncFormatter(lambda v, _, u=unit, d=decimals: fmt_value(v, u, d))
        )
        ax.grid(color="#2c3235", lw=0.5)
        if series:
            ax.legend(
                fontsize=6.5,
                loc="upper left",
                facecolor=PANEL,
                edgecolor=PANEL,
                labelcolor=INK,
                ncol=2 if len(series) > 4 else 1,
            )
        else:
            ax.text(0.5, 0.5, "No data", color=MUTED, ha="center", transform=ax.transAxes)
            ax.set_xticks([])
            ax.set_yticks([])
    fig.savefig(out, facecolor=BG)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--seconds", type=float, default=180)
    ap.add_argument("--rooms", type=int, default=100)
    ap.add_argument("--rate", type=float, default=1.0)
    ap.add_argument("--workers", default="2")
    ap.add_argument("--computer-rooms", type=int, default=4)
    ap.add_argument("--level", default="beginner")
    ap.add_argument("--extras", action="store_true")
    args = ap.parse_args()
    binary = shutil.which("prometheus")
    if binary is None:
        sys.exit("Debian's prometheus is not installed (apt-get install prometheus)")
    with tempfile.TemporaryDirectory(prefix="nyumba-shot-") as tmp:
        targets = Path(tmp) / "targets.json"
        targets.write_text("[]")
        config = Path(tmp) / "prometheus.yml"
        config.write_text(PROM_CONFIG.format(targets=targets))
        port = free_port()
        prom_url = f"http://127.0.0.1:{port}"
        prom = subprocess.Popen(
            [
                binary,
                f"--config.file={config}",
                f"--storage.tsdb.path={tmp}/data",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        load = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "tests/bench/load.py"),
                "--rooms",
                str(args.rooms),
                "--rate",
                str(args.rate),
                "--seconds",
                str(args.seconds),
                "--workers",
                args.workers,
                "--computer-rooms",
                str(args.computer_rooms),
                "--level",
                args.level,
            ],
            cwd=ROOT,
        )
        try:
            server = server_port(load)
            base = f"http://127.0.0.1:{server}"
            while True:  # listening yet?
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                        break
                time.sleep(0.2)
            targets.write_text(json.dumps([{"targets": [f"127.0.0.1:{server}"]}]))
            start = time.time()
            if args.extras:
                threading.Thread(
                    target=extras,
                    args=(base, f"ws://127.0.0.1:{server}/ws", time.monotonic() + args.seconds),
                    daemon=True,
                ).start()
            load.wait()
            end = time.time()
            time.sleep(3)  # the last scrape
            note = (
                f"drawn from Prometheus by tests/bench/dashboard_shot.py (NOT Grafana): "
                f"load.py --workers {args.workers} --rooms {args.rooms} --rate {args.rate} "
                f"--computer-rooms {args.computer_rooms} --level {args.level}, {args.seconds:.0f} s"
                + (
                    "; local and other-level games, idle friend links and the pages' reports "
                    "posted by the script"
                    if args.extras
                    else ""
                )
            )
            draw(args.out, prom_url, start, end, note)
            print(f"wrote {args.out}")
        finally:
            load.terminate()
            prom.terminate()
            prom.wait(10)


if __name__ == "__main__":
    main()

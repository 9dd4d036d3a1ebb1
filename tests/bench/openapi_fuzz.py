"""Schemathesis with every check against a real server's OpenAPI document; prints what it
found.

    python tests/bench/openapi_fuzz.py [--root CHECKOUT] [--examples 100] [--seeds 1,2,3]
                                       [--plain]

``--root`` runs another checkout's server (e.g. /work/main, to compare); ``--plain`` runs
without the configuration of ``tests/openapikit.py`` (what a stranger's first run sees).
Prints, per seed, the failures of the summary and the number of test cases; exits 0.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import openapikit  # noqa: E402
from serverproc import ServerProcess  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2])
    parser.add_argument("--examples", type=int, default=100)
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--plain", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(redis_url=None, data_dir=Path(tmp), root=args.root).start()
        try:
            for seed in (int(s) for s in args.seeds.split(",")):
                config = "" if args.plain else openapikit.CONFIG
                status, report = openapikit.run(
                    server.url.replace("127.0.0.1", "localhost"),  # the public URL (passkeys)
                    max_examples=args.examples,
                    seed=seed,
                    config=config,
                )
                cases = re.search(r"(\d+) generated", report)
                found = openapikit.failures(report) or ["none"]
                print(
                    f"seed {seed}: exit {status}, {cases[1] if cases else '?'} cases; "
                    f"failures: {'; '.join(found)}"
                )
                for line in re.findall(r"^_+ (\w+ \S+) _+$", report, re.M):
                    print(f"    {line}")
        finally:
            server.stop()


if __name__ == "__main__":
    main()

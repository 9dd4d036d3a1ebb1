"""Schemathesis (``--checks all``) against a running server's ``/api/openapi.json``, for
``tests/server/web/test_openapi_conformance.py`` and ``tests/bench/openapi_fuzz.py``.

What the run is told, and why (``CONFIG``):

- ``GET /ws`` is tried with broken upgrades only (negative mode): a valid one opens a
  WebSocket, which an HTTP client cannot speak (the protocol's own tests do). Leaving out a
  required upgrade header, or sending a wrong one, is answered 426 ``upgrade-required`` (no
  upgrade) or 400 ``bad-upgrade`` (no ``Sec-WebSocket-Key``, another version), both
  documented: 426 is the refusal HTTP has for it, which Schemathesis does not expect.
- A record that matches the schema may still not replay (its moves are checked by playing
  them, which no schema says): ``POST /api/replay`` and ``/api/analysis`` may answer such a
  one 400 ``bad-record``, as the document says. Their examples are real records, answered
  200/202.
- ``POST /api/analysis`` runs one analysis per client address, and the fuzzer is one
  address: a second while the first runs is 503 ``busy`` with ``Retry-After``, documented.
- A passkey answer that matches the schema names a challenge the server made and a credential
  the authenticator signed, which no fuzzer can make: ``POST /api/passkeys/register`` and
  ``/signin`` answer such a one 400 ``bad-challenge`` or ``bad-passkey`` (403 signing in), as
  the document says.
- The fuzzer reaches the server as 127.0.0.1, not at its public URL's host (localhost, where
  passkeys work): every passkey ceremony, options included, is answered 400
  ``wrong-address``, as the document says; a passkey already kept would be 409.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CONFIG = """
[[operations]]
include-path = "/ws"
generation.mode = "negative"
checks.missing_required_header.expected-statuses = [400, 426]
checks.negative_data_rejection.expected-statuses = [400, 403, 426]

[[operations]]
include-path-regex = "^/api/(replay|analysis)$"
checks.positive_data_acceptance.expected-statuses = ["2XX", 400, 403, 404, 409, 429, "5XX"]

[[operations]]
include-path-regex = "^/api/passkeys/(register|signin)$"
checks.positive_data_acceptance.expected-statuses = ["2XX", 400, 403, 404, 409, "5XX"]

[[operations]]
include-path-regex = "^/api/passkeys/(register|signin)/options$"
checks.positive_data_acceptance.expected-statuses = ["2XX", 400]

[[operations]]
include-path = "/api/analysis"
include-method = "POST"
checks.not_a_server_error.expected-statuses = ["2XX", "3XX", "4XX", 503]
"""


def schemathesis() -> list[str]:
    """The command that runs Schemathesis with this interpreter's packages."""
    found = shutil.which("schemathesis", path=str(Path(sys.executable).parent))
    if found is None:
        raise RuntimeError("schemathesis is not installed: pip install -e '.[test]'")
    return [found]


def run(
    base: str, *, max_examples: int = 30, seed: int = 1, config: str = CONFIG
) -> tuple[int, str]:
    """Schemathesis against ``base`` with every check: (exit status, its report)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "schemathesis.toml"
        path.write_text(config)
        done = subprocess.run(
            [
                *schemathesis(),
                "--config-file",
                str(path),
                "--no-color",
                "run",
                f"{base}/api/openapi.json",
                "--checks",
                "all",
                "--max-examples",
                str(max_examples),
                "--seed",
                str(seed),
                "--workers",
                "1",
                "--generation-database",
                "none",
                "--report-dir",
                tmp,
            ],
            capture_output=True,
            text=True,
            timeout=900,
            cwd=tmp,
        )
    return done.returncode, done.stdout + done.stderr


def failures(report: str) -> list[str]:
    """The failure lines of a report's summary (``❌ ST202 Schema-valid request rejected: 3``)."""
    summary = report.split("SUMMARY", 1)[-1]
    return re.findall(r"❌ (ST\d+ [^\n]+)", summary)

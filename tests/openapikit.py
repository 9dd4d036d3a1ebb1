"""Schemathesis (``--checks all``) against a running server's ``/api/openapi.json``, for
``tests/server/web/test_openapi_conformance.py`` and ``tests/bench/openapi_fuzz.py``.

What the run is told, and why (``CONFIG``): only what no schema can say.

- It asks at the server's public URL (``http://localhost:PORT``, the relying party of its
  passkeys), as a browser would: a passkey ceremony asked elsewhere is 400 ``wrong-address``.
- A record that matches the schema may still not replay (its moves are checked by playing
  them, which no schema says): ``POST /api/replay`` and ``/api/analysis`` may answer such a
  one 400 ``bad-record``, as the document says. Their examples are real records, answered
  200/202.
- A passkey answer that matches the schema names a challenge the server made and a credential
  the authenticator signed, which no fuzzer can make: ``POST /api/passkeys/register`` and
  ``/signin`` answer such a one 400 ``bad-challenge`` or ``bad-passkey`` (403 signing in), as
  the document says.

- A body that breaks the schema may also be too large: it is refused 413 ``too-large``
  before it is read (a report over 512 bytes, say), which the document lists and Schemathesis
  does not expect of invalid data.

``GET /ws`` is not in the document (it is a WebSocket: server/PROTOCOL.md); a second analysis
from the fuzzer's one address while the first runs is 429 ``busy``, as a client error should be.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CONFIG = """
[checks]
negative_data_rejection.expected-statuses = [400, 401, 403, 404, 405, 406, 409, 413, 415, 422, 428, 429, "5XX"]

[[operations]]
include-path-regex = "^/api/(replay|analysis)$"
checks.positive_data_acceptance.expected-statuses = ["2XX", 400, 403, 404, 409, 429, "5XX"]

[[operations]]
include-path-regex = "^/api/passkeys/(register|signin)$"
checks.positive_data_acceptance.expected-statuses = ["2XX", 400, 403, 404, 409, "5XX"]
"""


def schemathesis() -> list[str]:
    """The command that runs Schemathesis with this interpreter's packages."""
    found = shutil.which("schemathesis", path=str(Path(sys.executable).parent))
    if found is None:
        raise RuntimeError("schemathesis is not installed: pip install -e '.[test]'")
    return [found]


def run(
    base: str, *, max_examples: int = 50, seed: int = 1, config: str = CONFIG
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

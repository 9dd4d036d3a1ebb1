"""Convention 1: engine/ imports only the standard library and msgspec."""

import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "engine"
ALLOWED = set(sys.stdlib_module_names) | {"msgspec", "engine", "__future__"}


def _imports(path: Path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0]


def test_engine_imports_only_stdlib_and_msgspec():
    files = sorted(ENGINE.rglob("*.py"))
    assert files
    bad = {(f.name, m) for f in files for m in _imports(f) if m not in ALLOWED}
    assert not bad, f"engine/ imports outside stdlib+msgspec: {sorted(bad)}"


def test_engine_never_uses_io_or_asyncio():
    banned = {"asyncio", "socket", "subprocess", "starlette", "redis", "threading"}
    files = sorted(ENGINE.rglob("*.py"))
    used = {(f.name, m) for f in files for m in _imports(f) if m in banned}
    assert not used

"""The archive's tests run on a SQLite file and on PostgreSQL (``pgkit``)."""

from __future__ import annotations

import contextlib

import pytest
from pgkit import archive_url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    with contextlib.ExitStack() as stack:
        yield archive_url(request.param, tmp_path, stack)

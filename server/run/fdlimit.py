"""The node's file-descriptor limit: ``raise_fd_limit`` lifts the soft limit to the hard one at
start. The default soft limit (often 1,024) is below what a node serves; the per-address socket
cap (``server/live/addrcap.py``) keeps any one address from using them all."""

from __future__ import annotations

import contextlib


def raise_fd_limit() -> tuple[int, int]:
    """Soft RLIMIT_NOFILE up to the hard limit; returns (soft, hard) after."""
    try:
        import resource
    except ImportError:  # not on this platform
        return (0, 0)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    return soft, hard

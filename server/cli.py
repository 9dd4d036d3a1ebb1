"""The ``nyumba`` command."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nyumba", description="nyumba, an online mancala house")
    parser.add_subparsers(dest="command", required=True)
    args = parser.parse_args(argv)
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":
    sys.exit(main())

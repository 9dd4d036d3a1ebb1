"""Only the package list: the wheel carries the browser client (client/) as server/client,
so an installed ``nyumba serve`` serves the game from any directory. Everything else is in
pyproject.toml. (In a checkout, server/ops/config.py serves client/ itself, so an editable
install serves the working tree.)"""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["engine*", "server*"]) + ["server.client"],
    package_dir={"server.client": "client"},
)

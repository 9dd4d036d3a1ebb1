"""nyumba's server: a thin, well-guarded adapter between the engine, Redis and WebSockets."""

from importlib import metadata

try:
    __version__ = metadata.version("nyumba")
except metadata.PackageNotFoundError:  # run from a checkout that was never installed
    __version__ = "0+unknown"

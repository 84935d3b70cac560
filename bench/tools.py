"""The programs the bench scripts run, checked before any of them starts.

    from tools import require
    require("redis-benchmark", "redis-cli")

Each script runs as `python3 bench/<script>.py`, which puts this folder first on
sys.path. A missing program stops the script with its name and the Debian package that
has it, instead of a traceback from the first subprocess that needed it.
"""
import shutil
import sys

# Where Debian has each program.
PACKAGES = {
    "redis-server": "redis-server",
    "redis-benchmark": "redis-tools",
    "redis-cli": "redis-tools",
    "valgrind": "valgrind",
}


def require(*programs):
    """Exits with a message naming every one of `programs` that is not on PATH."""
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        packages = sorted({PACKAGES.get(p, p) for p in missing})
        sys.exit(f"{', '.join(missing)} not found on PATH (Debian: apt-get install {' '.join(packages)})")

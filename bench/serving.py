"""`arena serve` for a benchmark: a server process on a free port with its private Redis in a
data folder, its URL once it listens, stopped on the way out; run from this checkout or from
another (`source`), whose code `python -m server.cli` then imports."""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

SERVING = re.compile(r"serving on (ws://\S+)")


@contextlib.contextmanager
def arena_serve(
    data: Path, workers: int = 0, log: Path | None = None, source: Path | None = None
) -> Iterator[str]:
    """Run `arena serve` on `data` with `workers` house-bot workers, its log in `log` (else
    dropped), from the checkout `source` (else this one); yields its websocket URL."""
    command = [sys.executable, "-m", "server.cli", "serve", "--port", "0"]
    with log.open("w") if log is not None else contextlib.nullcontext() as log_file:
        server = subprocess.Popen(
            [*command, "--workers", str(workers), "--data-dir", str(data)],
            stdout=subprocess.PIPE,
            stderr=log_file if log_file is not None else subprocess.DEVNULL,
            text=True,
            cwd=source,
        )
    try:
        assert server.stdout is not None
        found = SERVING.search(server.stdout.readline())
        if found is None:
            where = f": see {log}" if log is not None else ""
            raise SystemExit(f"arena serve did not start{where}")
        yield found.group(1)
    finally:
        server.terminate()
        server.wait(30)
        if server.stdout is not None:
            server.stdout.close()

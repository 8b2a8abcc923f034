"""Progress of a long command on stderr: one line redrawn on a terminal, a line each elsewhere
(a log keeps every step)."""

from __future__ import annotations

import sys
from collections.abc import Callable

__all__ = ["progress_printer"]


def progress_printer() -> Callable[[str], None]:
    live = sys.stderr.isatty()

    def show(line: str) -> None:
        print("\r" + line if live else line, end="\x1b[K" if live else "\n", file=sys.stderr)

    return show

"""The engine's one door to numba: its kernels are decorated with `njit` from here.

By default `njit` is numba's, and the kernels compile (or load from numba's cache) on first use.
A process that only shows games, the terminal client, calls `run_as_python()` before it first
imports a kernel module: the kernels then stay the plain Python functions they are written as,
and numba is never loaded. That saves the client about 130 MB (numba's import and its compiled
kernels' code) for work measured in microseconds a move; search and solving stay compiled
wherever they run (the server, its analyst, the workers, the tutorial).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["compiling", "njit", "run_as_python"]

F = TypeVar("F", bound=Callable[..., Any])

_compile = True


def run_as_python() -> bool:
    """Leave every kernel imported from now on as plain Python, and return True; or, in a
    process that has already loaded numba (a test run, say), change nothing and return False:
    a compiled kernel cannot call a plain one, so a process keeps compiling once it began."""
    global _compile
    if "numba" in sys.modules:
        return False
    _compile = False
    return True


def compiling() -> bool:
    """Whether kernels imported now are compiled by numba."""
    return _compile


def njit(**options: Any) -> Callable[[F], F]:
    """numba's `njit(**options)`, or the function itself when kernels run as plain Python."""
    if not _compile:
        return lambda function: function
    from numba import njit as numba_njit

    compile_: Callable[[F], F] = numba_njit(**options)
    return compile_

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
from typing import Any, TypeVar, cast

__all__ = ["bit_scans", "compiling", "njit", "run_as_python"]

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


def bit_scans() -> tuple[Callable[[int], int], Callable[[int], int]]:
    """(trailing_zeros, leading_zeros) of a 64-bit integer: LLVM's one-instruction intrinsics
    when kernels are compiled, plain Python otherwise (called by kernel modules at import,
    after `run_as_python` has had its say)."""
    if _compile:
        from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

        return cast(Callable[[int], int], trailing_zeros), cast(Callable[[int], int], leading_zeros)
    return _trailing_zeros, _leading_zeros


def _trailing_zeros(x: int) -> int:
    x = int(x)
    return (x & -x).bit_length() - 1 if x else 64


def _leading_zeros(x: int) -> int:
    return 64 - int(x).bit_length()

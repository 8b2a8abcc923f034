"""The garbage collector's pauses in a process under test: `python -m bench.collector_pauses
FILE MODULE ARGS...` runs MODULE as `python -m MODULE ARGS...` would, timing every collection
through `gc.callbacks` and writing each to FILE as a line as it ends (a process killed keeps
what it wrote). It wraps any version of the server, so a benchmark reads the code before a
change the same way as after.

`pauses_in` reads such a file back: the collections inside a window of time.monotonic(), which
is the machine's one monotonic clock on Linux, so the benchmark's window applies as it is.
"""

from __future__ import annotations

import gc
import json
import runpy
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GENERATIONS = (0, 1, 2)
LONG_MS = 50.0  # a pause this long alone breaks a p99 target of 50 ms


@dataclass
class Pauses:
    """The collections of one generation in a window: how many, their total and the longest
    (ms), how many lasted LONG_MS or more, and the CPU they took (ms): on a shared machine a
    pause also holds the time the process waited for a core, its CPU does not."""

    count: int = 0
    total_ms: float = 0.0
    longest_ms: float = 0.0
    long: int = 0
    cpu_ms: float = 0.0
    longest_cpu_ms: float = 0.0

    def add(self, ms: float, cpu_ms: float) -> None:
        self.count += 1
        self.total_ms += ms
        self.longest_ms = max(self.longest_ms, ms)
        self.long += ms >= LONG_MS
        self.cpu_ms += cpu_ms
        self.longest_cpu_ms = max(self.longest_cpu_ms, cpu_ms)


@dataclass
class Collections:
    """What the collector did in a window, by generation, and the objects frozen at its end."""

    by_generation: dict[int, Pauses] = field(
        default_factory=lambda: {g: Pauses() for g in GENERATIONS}
    )
    frozen: int = 0

    def add(self, other: Collections) -> None:
        for generation, pauses in other.by_generation.items():
            mine = self.by_generation[generation]
            mine.count += pauses.count
            mine.total_ms += pauses.total_ms
            mine.longest_ms = max(mine.longest_ms, pauses.longest_ms)
            mine.long += pauses.long
            mine.cpu_ms += pauses.cpu_ms
            mine.longest_cpu_ms = max(mine.longest_cpu_ms, pauses.longest_cpu_ms)
        self.frozen += other.frozen


def pauses_in(path: Path, start: float, end: float) -> Collections:
    """The collections recorded in `path` that began between `start` and `end`."""
    found = Collections()
    with path.open() as lines:
        for line in lines:
            generation, began, ms, cpu_ms, frozen = json.loads(line)
            if start <= began < end:
                found.by_generation[generation].add(ms, cpu_ms)
                found.frozen = frozen
    return found


def main(argv: Sequence[str]) -> None:
    if len(argv) < 2:
        sys.exit("usage: python -m bench.collector_pauses FILE MODULE [ARGS...]")
    path, module = Path(argv[0]), argv[1]
    # One line a collection: [generation, when it began, ms, CPU ms, objects frozen after it].
    record = path.open("w", buffering=1)
    began = began_cpu = 0.0

    def timed(phase: str, info: dict[str, Any]) -> None:
        nonlocal began, began_cpu
        now, cpu = time.monotonic(), time.thread_time()
        if phase == "start":
            began, began_cpu = now, cpu
            return
        ms, cpu_ms = 1000 * (now - began), 1000 * (cpu - began_cpu)
        line = [info["generation"], began, round(ms, 3), round(cpu_ms, 3), gc.get_freeze_count()]
        record.write(json.dumps(line) + "\n")

    gc.callbacks.append(timed)
    sys.argv = [module, *argv[2:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])

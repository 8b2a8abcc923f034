"""A server process loads the engine's compiled kernels as it starts (after it listens: its
`rules_ready` says when), so the first game and move of a player do not wait for them (about
300 ms in a fresh process)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# In a fresh interpreter: start an Arena, then count the kernels that load while a game starts
# and moves are played through the store, as a player's requests would.
SCRIPT = """
import asyncio, json, sys
from server.app import Arena
from server.clock import now_ms
from server.games import open_redis
from server.protocol import Player, PlayerKind, TimeControl

def loaded():
    found = {}
    for name, module in list(sys.modules.items()):
        if name.startswith("engine."):
            for attr, value in vars(module).items():
                if hasattr(value, "signatures") and hasattr(value, "py_func"):
                    found[f"{name}.{attr}"] = len(value.signatures)
    return found

async def main():
    redis = open_redis(sys.argv[1])
    arena = Arena(redis)
    await arena.start()
    await arena.rules_ready.wait()
    moves = ["d1-d7/g7", "d10-d8/f8"]
    before = loaded()
    ann, bob = Player("ann", PlayerKind.GUEST), Player("bob", PlayerKind.GUEST)
    # At the server's own time: the Arena's clock sweep runs meanwhile, and would end a game
    # started at time 0 as one whose first move never came.
    now = now_ms()
    started = await arena.store.create(
        ann, bob, time=TimeControl(300, 0), rated=False, now=now, setup="10x10"
    )
    for ply, (name, move) in enumerate(zip(["ann", "bob"], moves)):
        await arena.store.play(started.game_id, name, ply, move, now + 1000 * ply, 0)
    after = loaded()
    await arena.close()
    await redis.aclose()
    print(json.dumps(sorted(k for k, n in after.items() if n > before.get(k, 0))))

asyncio.run(main())
"""


def test_no_engine_kernel_loads_during_a_players_first_game(redis_url: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, redis_url],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []

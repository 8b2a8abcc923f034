"""What a login costs the stores now that accounts and bot tokens are in the database: the time
from a login's request to its session, as the server's handlers run it (server/handlers/
account.py), for a guest (`new_guest`, `open_session`), a bot token (`bot_for_token`,
`open_session`, `token_known`), a session resumed (`resume_session`), and a password
(`authenticate` and `open_session`) with the server's argon2 parameters and with cheap ones
(the stores' part of it), among many accounts.

Run from the repository root: python -m bench.logins [--database-url URL] [--logins N]
[--accounts A] (by default a SQLite file and a private Redis in a folder made for the run; a
PostgreSQL URL names an empty database to fill). The machine's load average is printed with
the figures: on a shared machine they move with it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from argon2 import PasswordHasher
from redis.asyncio import Redis, from_url

from server import identity
from server.db import Database
from server.redis_embedded import EmbeddedRedis

PASSWORD = "correct horse battery staple"
CHEAP = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


def _figures(name: str, seconds: list[float]) -> None:
    ms = sorted(1000 * s for s in seconds)
    p99 = ms[min(len(ms) - 1, round(0.99 * len(ms)))]
    print(
        f"{name}: {len(ms)} logins, median {statistics.median(ms):.2f} ms, p99 {p99:.2f} ms, "
        f"max {ms[-1]:.2f} ms",
        flush=True,
    )


async def _timed(count: int, login: Callable[[int], Awaitable[object]]) -> list[float]:
    taken = []
    for number in range(count):
        start = time.perf_counter()
        await login(number)
        taken.append(time.perf_counter() - start)
    return taken


async def _run(r: Redis, db: Database, logins: int, accounts: int) -> None:
    print(f"database {db.where}, {accounts} accounts and bots", flush=True)
    tokens = []
    for number in range(accounts):
        await identity.create_account(db, f"human{number}", PASSWORD, hasher=CHEAP)
        tokens.append(await identity.create_bot_token(db, f"bot{number}", f"human{number}"))
    strong = PasswordHasher()
    await identity.create_account(db, "strong", PASSWORD, hasher=strong)

    async def bot_login(number: int) -> None:
        token = tokens[number % accounts]
        bot = await identity.bot_for_token(db, token)
        assert bot is not None
        await identity.open_session(r, db, bot, origin=identity.token_digest(token))
        assert await identity.token_known(db, identity.token_digest(token))

    sessions = [await identity.open_session(r, db, f"human{n}") for n in range(accounts)]

    async def resume(number: int) -> None:
        assert await identity.resume_session(r, db, sessions[number % accounts]) is not None

    async def cheap_password(number: int) -> None:
        account = await identity.authenticate(
            db, f"human{number % accounts}", PASSWORD, hasher=CHEAP
        )
        assert account is not None
        await identity.open_session(r, db, account)

    async def password(number: int) -> None:
        account = await identity.authenticate(db, "strong", PASSWORD, hasher=strong)
        assert account is not None
        await identity.open_session(r, db, account)

    async def guest(number: int) -> None:
        await identity.open_session(r, db, await identity.new_guest(r))

    _figures("guest", await _timed(logins, guest))
    _figures("bot token", await _timed(logins, bot_login))
    _figures("session resumed", await _timed(logins, resume))
    _figures("password, cheap argon2 (the stores' part)", await _timed(logins, cheap_password))
    _figures("password, the server's argon2", await _timed(max(1, logins // 20), password))


async def _main(url: str | None, logins: int, accounts: int) -> None:
    with (
        tempfile.TemporaryDirectory(prefix="arena-", dir="/tmp") as folder,
        EmbeddedRedis(Path(folder) / "redis") as server,
    ):
        r = from_url(server.url)
        db = await Database.open(url, Path(folder))
        try:
            await _run(r, db, logins, accounts)
        finally:
            await db.close()
            await r.aclose()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="a database to fill (default: a SQLite file)")
    parser.add_argument("--logins", type=int, default=2000, help="logins of each kind timed")
    parser.add_argument("--accounts", type=int, default=500, help="accounts and bots made")
    args = parser.parse_args()
    asyncio.run(_main(args.database_url, args.logins, args.accounts))


if __name__ == "__main__":
    main()

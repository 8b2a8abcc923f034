"""A bot that offers games itself (`arena bot --seek`, `--quick-pair`, `--challenge`), against a
server on real Redis: its seek is open while it has room and taken again after each game, two
bots in quick pairing play each other, a declined challenge is said with its reason and made
again only after a pause, and an offer the server refuses stops the bot with one line."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence

import pytest
import pytest_asyncio
from redis.asyncio import Redis

import clients.bot
from clients import ArenaClient
from clients.bot import BotError, BotPlayer
from clients.bot_cli import main
from clients.challenges import ChallengePolicy
from clients.offers import Offer, OfferKind
from server.db import Database
from server.identity import create_account, create_bot_token
from server.offers import TimeControls
from server.protocol import (
    AcceptChallenge,
    AcceptSeek,
    ChallengeAdded,
    DeclineChallenge,
    GameList,
    GameStarted,
    GameStatus,
    ListGames,
    ListSeeks,
    SeekInfo,
    SeekList,
    TimeControl,
)
from tests.server.endpoint import guest, play_out, serving

TIMEOUT = 60  # seconds any one wait may take before the test fails rather than hangs
AMAZONS = {"amazons"}


@pytest_asyncio.fixture
async def url(redis_url: str, database: Database) -> AsyncIterator[str]:
    async with serving(redis_url, time_controls=TimeControls.parse("1-600+10")) as served:
        yield served


@contextlib.asynccontextmanager
async def _bot(
    database: Database, url: str, name: str, offers: Sequence[Offer], said: list[str] | None = None
) -> AsyncIterator[asyncio.Task[None]]:
    """A random bot playing one game at a time that makes `offers`; what it reports goes in
    `said`."""
    player = BotPlayer(
        url,
        await create_bot_token(database, name),
        "random",
        accept=ChallengePolicy(games=frozenset(AMAZONS), max_games=1),
        offers=offers,
        report=(said if said is not None else []).append,
    )
    stop = asyncio.Event()
    task = asyncio.create_task(player.run(stop))
    try:
        yield task
    finally:
        stop.set()
        with contextlib.suppress(BotError):
            await asyncio.wait_for(task, 30)


async def _seeks_of(client: ArenaClient, name: str) -> list[SeekInfo]:
    listed = await client.request(ListSeeks(), SeekList)
    return [seek for seek in listed.seeks if seek.player.name == name]


@pytest.mark.asyncio
async def test_a_seeking_bot_keeps_its_seek_open_and_seeks_again_after_a_game(
    url: str, redis: Redis, database: Database
) -> None:
    offer = Offer.parse(OfferKind.SEEK, "6x6:60+1", AMAZONS)
    async with _bot(database, url, "seeker", [offer]):
        person = await guest(url)
        async with asyncio.timeout(TIMEOUT):
            while not (seeks := await _seeks_of(person, "seeker")):
                await asyncio.sleep(0.1)
        (seek,) = seeks
        assert (seek.setup, seek.time, seek.rated) == ("6x6", TimeControl(60, 1), False)
        started = await person.request(AcceptSeek(seek.seek_id), GameStarted)
        # One game at a time: while it plays, no seek is open.
        await asyncio.sleep(2 * clients.bot.OFFER_SECONDS)
        assert await _seeks_of(person, "seeker") == []
        ended = await play_out(person, started.game_id)
        assert ended.status is GameStatus.ENDED
        async with asyncio.timeout(TIMEOUT):
            while not await _seeks_of(person, "seeker"):
                await asyncio.sleep(0.1)
        await person.close()


@pytest.mark.asyncio
async def test_two_bots_in_quick_pairing_play_each_other_again_and_again(
    url: str, redis: Redis, database: Database
) -> None:
    offer = Offer.parse(OfferKind.QUICK_PAIR, "6x6:5+0", AMAZONS)
    async with _bot(database, url, "one", [offer]), _bot(database, url, "two", [offer]):
        watcher = await guest(url)
        seen: set[str] = set()
        async with asyncio.timeout(TIMEOUT):
            while len(seen) < 2:
                listed = await watcher.request(ListGames(), GameList)
                for game in listed.games:
                    assert {game.white.name, game.black.name} == {"one", "two"}
                    assert (game.setup, game.time) == ("6x6", TimeControl(5, 0))
                    seen.add(game.game_id)
                await asyncio.sleep(0.1)
        await watcher.close()


@pytest.mark.asyncio
async def test_a_declined_challenge_is_said_and_made_again_after_the_pause(
    url: str, redis: Redis, monkeypatch: pytest.MonkeyPatch, database: Database
) -> None:
    monkeypatch.setattr(clients.bot, "DECLINED_PAUSE_SECONDS", 4.0)
    await create_account(database, "ann", "ann-password")
    ann = await ArenaClient.connect(url)
    await ann.login("ann", "ann-password")
    said: list[str] = []
    offer = Offer.parse(OfferKind.CHALLENGE, "ann:6x6:60+1", AMAZONS)
    async with _bot(database, url, "challenger", [offer], said):
        first = await ann.next_news(ChallengeAdded, timeout=TIMEOUT)
        assert first.challenge.challenger.name == "challenger"
        await ann.request(DeclineChallenge(first.challenge.challenge_id, "not now"))
        declined = asyncio.get_running_loop().time()
        second = await ann.next_news(ChallengeAdded, timeout=TIMEOUT)
        # Not before the pause, and then at once (within a look or two).
        assert asyncio.get_running_loop().time() - declined >= 4.0
        assert said == ["ann declined the challenge: not now; challenging again in 4 s"]
        started = await ann.request(AcceptChallenge(second.challenge.challenge_id), GameStarted)
        ended = await play_out(ann, started.game_id)
        assert ended.status is GameStatus.ENDED
    await ann.close()


@pytest.mark.asyncio
async def test_a_challenge_the_server_refuses_stops_the_bot_with_one_line(
    url: str, redis: Redis, database: Database
) -> None:
    offer = Offer.parse(OfferKind.CHALLENGE, "nobody:6x6:60+1", AMAZONS)
    async with _bot(database, url, "lonely", [offer]) as task:
        with pytest.raises(BotError) as stopped:
            await asyncio.wait_for(task, TIMEOUT)
    assert str(stopped.value) == (
        "the server refused the bot's challenge to nobody, 6x6 60+1 casual: "
        "no user or house bot nobody"
    )


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--seek", "7x7:60+1"], "--seek '7x7:60+1': no game played has setup 7x7: 10, 10x10"),
        (["--quick-pair", "6x6:1m"], "--quick-pair '6x6:1m': write SETUP:BASE+INCREMENT"),
        (["--challenge", "6x6:60+1"], "--challenge '6x6:60+1': write SETUP:BASE+INCREMENT"),
        (["--challenge", "ann"], "--challenge 'ann': write NAME:SETUP:BASE+INCREMENT"),
    ],
)
def test_a_bad_offer_is_one_line_before_the_bot_connects(
    option: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["--server", "ws://127.0.0.1:9", "--token", "t", "--engine", "random", *option])
    assert exit.value.code == 2
    assert message in capsys.readouterr().err

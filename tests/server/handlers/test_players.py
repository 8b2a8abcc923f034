"""`player_info`, `player_games` and `ladder_games` with only what the players' handlers are
given, on a real Redis and a SQLite history store: the profile of an account after rated and
casual games (each rated game a point of its rating's history), of a house bot at the strength it
played, and of a ladder bot; every finished game of a player and of a ladder a page at a time;
an unknown name, ladder or game, a malformed cursor and a page size out of range."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import msgpack
import pytest
from redis.asyncio import Redis

from server import identity
from server.db import Database
from server.db.finished_games import FinishedGame, copy_finished_games
from server.games import GameStore
from server.handlers.players import (
    PlayersServices,
    ladder_games_page,
    player_games_page,
    player_info,
)
from server.ladder.store import LadderStore
from server.protocol import (
    Colour,
    ErrorCode,
    Event,
    LadderGamePage,
    LadderGamesRequest,
    Player,
    PlayerGamePage,
    PlayerGames,
    PlayerInfo,
    PlayerKind,
    PlayerProfile,
    ProtocolError,
    Request,
    Termination,
    TimeControl,
    decode_request,
)
from server.ratings import rating_in
from server.worker import HOUSE_BOTS
from tests.server.ladder.rated import rated_game

BLITZ = TimeControl(300, 5)


@dataclass
class Standin:
    replies: list[Event] = field(default_factory=list)

    def reply(self, event: Event) -> None:
        self.replies.append(event)


def _services(redis: Redis, database: Database) -> PlayersServices:
    store = GameStore(redis, database=database)
    return PlayersServices(redis, store, LadderStore(redis, database), HOUSE_BOTS)


async def _profile(redis: Redis, database: Database, name: str) -> PlayerProfile:
    connection = Standin()
    await player_info(_services(redis, database), connection, PlayerInfo(name, id=4))
    [reply] = connection.replies
    assert isinstance(reply, PlayerProfile)
    assert reply.id == 4
    return reply


async def _games(redis: Redis, database: Database, request: PlayerGames) -> PlayerGamePage:
    connection = Standin()
    await player_games_page(_services(redis, database), connection, request)
    [reply] = connection.replies
    assert isinstance(reply, PlayerGamePage)
    assert reply.id == request.id
    return reply


async def _resigned(
    store: GameStore,
    white: Player,
    black: Player,
    loser: str,
    now: int,
    *,
    rated: bool = True,
    house: tuple[str | None, str | None] = (None, None),
) -> str:
    started = await store.create(
        white, black, time=BLITZ, rated=rated, now=now, setup="6x6", house=house
    )
    await store.resign(started.game_id, loser, now + 1000)
    return started.game_id


@pytest.mark.asyncio
async def test_an_accounts_profile_has_its_rating_history_and_finished_games(
    redis: Redis, database: Database
) -> None:
    await identity.create_account(database, "Alice", "secret-a")
    await identity.create_account(database, "bob", "secret-b")
    alice, bob = Player("Alice", PlayerKind.HUMAN), Player("bob", PlayerKind.HUMAN)
    store = GameStore(redis, database=database)
    ids = [
        await _resigned(store, alice, bob, "bob", 1_000_000),
        await _resigned(store, bob, alice, "bob", 2_000_000),
        await _resigned(store, alice, bob, "Alice", 3_000_000),
        await _resigned(store, alice, bob, "bob", 4_000_000, rated=False),
    ]
    profile = await _profile(redis, database, "ALICE")
    assert (profile.name, profile.kind, profile.owner) == ("Alice", PlayerKind.HUMAN, None)
    [pool] = profile.ratings
    assert (pool.game, pool.ladder, pool.strength) == ("amazons", None, None)
    assert [point.game_id for point in pool.history] == ids[:3]  # the casual game has none
    assert [point.at for point in pool.history] == [1_001_000, 2_001_000, 3_001_000]
    assert {point.setup for point in pool.history} == {"6x6"}
    ratings = [point.rating for point in pool.history]
    assert ratings[0] > 1500  # a win, a win, a loss
    assert ratings[1] > ratings[0]
    assert ratings[2] < ratings[1]
    assert (pool.rating, pool.deviation) == (ratings[-1], pool.history[-1].deviation)
    assert pool.provisional  # three games leave the deviation far above 110
    stored = await rating_in(redis, database, "Alice", "amazons")
    assert pool.rating == stored

    assert [game.game_id for game in profile.games] == ids[::-1]
    latest = profile.games[0]
    assert (latest.opponent.name, latest.colour, latest.winner, latest.rated) == (
        "bob",
        Colour.WHITE,
        Colour.WHITE,
        False,
    )
    as_black = profile.games[2]
    assert (as_black.colour, as_black.winner, as_black.termination) == (
        Colour.BLACK,
        Colour.BLACK,
        Termination.RESIGNATION,
    )
    assert (as_black.setup, as_black.ended, as_black.game) == ("6x6", 2_001_000, "amazons")
    assert [game.opponent.name for game in (await _profile(redis, database, "bob")).games] == [
        "Alice"
    ] * 4


@pytest.mark.asyncio
async def test_an_aborted_game_is_listed_without_a_winner_and_moves_no_rating(
    redis: Redis,
    database: Database,
) -> None:
    await identity.create_account(database, "carol", "secret-c")
    guest = await identity.new_guest(redis)
    store = GameStore(redis, database=database)
    started = await store.create(
        Player("carol", PlayerKind.HUMAN),
        guest.player(),
        time=BLITZ,
        rated=False,
        now=1000,
        setup="6x6",
    )
    await store.abort(started.game_id, "carol", 2000)
    profile = await _profile(redis, database, guest.name)
    assert (profile.kind, profile.ratings) == (PlayerKind.GUEST, ())
    [game] = profile.games
    assert (game.winner, game.termination, game.opponent.name) == (
        None,
        Termination.ABORTED,
        "carol",
    )


@pytest.mark.asyncio
async def test_a_house_bot_is_rated_at_each_strength_it_played(
    redis: Redis, database: Database
) -> None:
    await identity.create_account(database, "dave", "secret-d")
    store = GameStore(redis, database=database)
    dave, invader = Player("dave", PlayerKind.HUMAN), Player("invader", PlayerKind.HOUSE)
    first = await _resigned(store, dave, invader, "dave", 1000, house=(None, "invader@3"))
    second = await _resigned(store, invader, dave, "dave", 5000, house=("invader@7", None))
    profile = await _profile(redis, database, "Invader")
    assert (profile.name, profile.kind) == ("invader", PlayerKind.HOUSE)
    assert [(pool.strength, [p.game_id for p in pool.history]) for pool in profile.ratings] == [
        (3, [first]),
        (7, [second]),
    ]
    assert [game.game_id for game in profile.games] == [second, first]


@pytest.mark.asyncio
async def test_a_ladder_bot_has_its_ladder_rating_history_and_its_owner(
    redis: Redis, database: Database
) -> None:
    await identity.create_account(database, "erin", "secret-e")
    await identity.create_bot_token(database, "Erinbot", owner="erin")
    await identity.create_bot_token(database, "other")
    ladders = LadderStore(redis, database)
    await ladders.ensure_defaults()
    for number, white_won in enumerate((True, False, True)):
        game_id, ended = f"ladder{number}", 10_000 * (number + 1)
        await rated_game(database, "fast", game_id, "Erinbot", "other", white_won, ended=ended)
    profile = await _profile(redis, database, "erinbot")
    assert (profile.name, profile.kind, profile.owner) == ("Erinbot", PlayerKind.BOT, "erin")
    [pool] = profile.ratings
    assert (pool.game, pool.ladder, pool.strength) == ("amazons", "fast", None)
    assert [(point.game_id, point.at) for point in pool.history] == [
        ("ladder0", 10_000),
        ("ladder1", 20_000),
        ("ladder2", 30_000),
    ]
    rating = (await ladders.ratings("fast"))["erinbot"]
    assert (pool.rating, pool.deviation) == (round(rating.rating), round(rating.deviation))


@pytest.mark.asyncio
async def test_an_unknown_name_is_not_found_and_named(redis: Redis, database: Database) -> None:
    with pytest.raises(ProtocolError) as refused:
        await player_info(_services(redis, database), Standin(), PlayerInfo("nosuch", id=1))
    assert refused.value.code is ErrorCode.NOT_FOUND
    assert str(refused.value) == "no player nosuch: no account or house bot"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "field 'name' must be a string of 1 to 32 characters, got ''"),
        ("x" * 33, f"field 'name' must be a string of 1 to 32 characters, got {'x' * 33!r}"),
        (7, "field 'name' must be a string of 1 to 32 characters, got 7"),
    ],
)
def test_a_bad_name_is_a_bad_field(name: object, message: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        decode_request(msgpack.packb({"t": "player_info", "id": 1, "name": name}))
    assert (refused.value.code, str(refused.value)) == (ErrorCode.BAD_FIELD, message)


@pytest.mark.asyncio
async def test_every_game_of_a_player_is_on_its_pages_newest_first(
    redis: Redis, database: Database
) -> None:
    await identity.create_account(database, "Fay", "secret-f")
    await identity.create_account(database, "gil", "secret-g")
    fay, gil = Player("Fay", PlayerKind.HUMAN), Player("gil", PlayerKind.HUMAN)
    store = GameStore(redis, database=database)
    played = [
        await _resigned(store, fay, gil, "gil", 1_000_000 + 10_000 * n, rated=n % 3 == 0)
        for n in range(45)
    ]
    profile = await _profile(redis, database, "fay")
    assert [game.game_id for game in profile.games] == played[::-1][:30]
    assert profile.next is not None
    # A game that ends between two pages goes on top of the first, moving none of the others.
    latest = await _resigned(store, gil, fay, "Fay", 9_000_000)
    rest = await _games(redis, database, PlayerGames("FAY", before=profile.next, id=5))
    assert (rest.name, rest.next) == ("Fay", None)
    assert [game.game_id for game in rest.games] == played[::-1][30:]
    first = await _games(redis, database, PlayerGames("fay", limit=20, id=6))
    assert [game.game_id for game in first.games] == [latest, *played[::-1][:19]]
    listed: list[str] = []
    page = await _games(redis, database, PlayerGames("fay", limit=7, id=7))
    while True:
        listed += [game.game_id for game in page.games]
        if page.next is None:
            break
        page = await _games(redis, database, PlayerGames("fay", before=page.next, limit=7, id=7))
    assert listed == [latest, *played[::-1]]
    oldest = page.games[-1]
    assert (oldest.opponent.name, oldest.opponent.kind, oldest.colour, oldest.ended) == (
        "gil",
        PlayerKind.HUMAN,
        Colour.WHITE,
        1_001_000,
    )


@pytest.mark.asyncio
async def test_a_house_bots_games_at_every_strength_are_on_its_pages(
    redis: Redis, database: Database
) -> None:
    await identity.create_account(database, "hal", "secret-h")
    store = GameStore(redis, database=database)
    hal, invader = Player("hal", PlayerKind.HUMAN), Player("invader", PlayerKind.HOUSE)
    played = [
        await _resigned(store, hal, invader, "hal", 1000 * n, house=(None, f"invader@{n % 9 + 1}"))
        for n in range(1, 5)
    ]
    page = await _games(redis, database, PlayerGames("INVADER", limit=3, id=8))
    assert [game.game_id for game in page.games] == played[::-1][:3]
    assert page.name == "invader"
    assert {(game.colour, game.opponent.name) for game in page.games} == {(Colour.BLACK, "hal")}
    last = await _games(redis, database, PlayerGames("invader", before=page.next, id=9))
    assert ([game.game_id for game in last.games], last.next) == ([played[0]], None)


@pytest.mark.asyncio
async def test_a_player_s_games_of_one_game_only(redis: Redis, database: Database) -> None:
    await identity.create_account(database, "ida", "secret-i")
    await identity.create_account(database, "jo", "secret-j")
    store = GameStore(redis, database=database)
    ida, jo = Player("ida", PlayerKind.HUMAN), Player("jo", PlayerKind.HUMAN)
    amazons = await _resigned(store, ida, jo, "jo", 1000, rated=False)
    started = await store.create(
        ida, jo, time=BLITZ, rated=False, now=2000, game="bao", setup="zanzibar"
    )
    await store.resign(started.game_id, "jo", 3000)
    both = await _games(redis, database, PlayerGames("ida", id=10))
    assert [game.game_id for game in both.games] == [started.game_id, amazons]
    only = await _games(redis, database, PlayerGames("ida", game="amazons", id=11))
    assert [game.game_id for game in only.games] == [amazons]


@pytest.mark.asyncio
async def test_a_ladders_games_are_on_its_pages_newest_first(
    redis: Redis, database: Database
) -> None:
    ladders = LadderStore(redis, database)
    await ladders.ensure_defaults()
    store = GameStore(redis)
    one, two = Player("one", PlayerKind.BOT), Player("two", PlayerKind.BOT)
    ended = []
    for n in range(5):
        game_id = await _resigned(store, one, two, "two" if n % 2 else "one", 1000 * n)
        ended.append(await store.load(game_id))
    aborted = await store.create(one, two, time=BLITZ, rated=False, now=9000, setup="6x6")
    await store.abort(aborted.game_id, "one", 9500)
    elsewhere = ended.pop()  # a game of no ladder
    finished = [FinishedGame.of(game, "fast") for game in ended]
    finished.append(FinishedGame.of(await store.load(aborted.game_id), "fast"))
    await copy_finished_games(database, [*finished, FinishedGame.of(elsewhere)])

    services, connection = _services(redis, database), Standin()
    await ladder_games_page(services, connection, LadderGamesRequest("FAST", limit=3, id=12))
    await ladder_games_page(services, connection, LadderGamesRequest("fast", limit=3, id=13))
    first, again = connection.replies
    assert isinstance(first, LadderGamePage)
    assert again == replace(first, id=13)  # the ladder's name in any case
    # The aborted game, which has no winner, takes a place on the first page but is not listed.
    assert first.ladder == "fast"
    assert [game.game_id for game in first.games] == [ended[3].game_id, ended[2].game_id]
    assert (first.games[0].white, first.games[0].winner) == ("one", Colour.WHITE)
    assert first.next is not None
    await ladder_games_page(
        services, connection, LadderGamesRequest("fast", before=first.next, id=14)
    )
    rest = connection.replies[-1]
    assert isinstance(rest, LadderGamePage)
    assert ([game.game_id for game in rest.games], rest.next) == (
        [ended[1].game_id, ended[0].game_id],
        None,
    )
    assert [game.ended for game in rest.games] == [2000, 1000]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("request_", "code", "message"),
    [
        (
            PlayerGames("nosuch", id=1),
            ErrorCode.NOT_FOUND,
            "no player nosuch: no account or house bot",
        ),
        (
            PlayerGames("kim", before="yesterday", id=1),
            ErrorCode.BAD_FIELD,
            "'yesterday' is not a place in a list of games (ENDED.GAME_ID)",
        ),
        (
            PlayerGames("kim", game="chess", id=1),
            ErrorCode.BAD_FIELD,
            "no game chess: the games are amazons, bao",
        ),
        (LadderGamesRequest("nosuch", id=1), ErrorCode.NOT_FOUND, "no ladder nosuch"),
        (
            LadderGamesRequest("fast", before="12.", id=1),
            ErrorCode.BAD_FIELD,
            "'12.' is not a place in a list of games (ENDED.GAME_ID)",
        ),
    ],
)
async def test_bad_requests_for_pages_of_games_are_refused_and_named(
    redis: Redis, database: Database, request_: Request, code: ErrorCode, message: str
) -> None:
    await identity.create_account(database, "kim", "secret-k")
    services = _services(redis, database)
    await services.ladders.ensure_defaults()
    handler = player_games_page if isinstance(request_, PlayerGames) else ladder_games_page
    with pytest.raises(ProtocolError) as refused:
        await handler(services, Standin(), request_)  # type: ignore[arg-type]
    assert refused.value.code is code
    assert str(refused.value).startswith(message)
    if code is ErrorCode.BAD_FIELD:
        assert refused.value.field == ("before" if "place" in message else "game")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"limit": 0}, "field 'limit' must be an int from 1 to 100, got 0"),
        ({"limit": 101}, "field 'limit' must be an int from 1 to 100, got 101"),
        ({"before": ""}, "field 'before' must be a string of 1 to 64 characters, got ''"),
    ],
)
@pytest.mark.parametrize("tag", ["player_games", "ladder_games"])
def test_a_page_size_out_of_range_is_a_bad_field(
    tag: str, fields: dict[str, object], message: str
) -> None:
    named = {"name": "kim"} if tag == "player_games" else {"ladder": "fast"}
    with pytest.raises(ProtocolError) as refused:
        decode_request(msgpack.packb({"t": tag, "id": 1, **named, **fields}))
    assert (refused.value.code, str(refused.value)) == (ErrorCode.BAD_FIELD, message)

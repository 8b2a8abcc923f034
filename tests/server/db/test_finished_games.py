"""Finished games in the history store, on SQLite and PostgreSQL: a game's end written once with
its rating changes, whoever writes it and however often; read back whole; listed a page at a
time by player, date, game, rated and ladder."""

import asyncio
import dataclasses
from pathlib import Path

import pytest
from redis.asyncio import Redis
from sqlalchemy import Table, func, select

from engine.records import GameRecord, utc_date
from server.db.database import Database
from server.db.finished_games import (
    FinishedGame,
    GameCursor,
    RatingChange,
    Seat,
    finished_game,
    games,
    record_finished_game,
)
from server.db.schema import GAME_POOL, LADDER_RESULTS, MOVES, RATING_HISTORY, RATINGS
from server.games import GameStore, _from_history, open_redis
from server.glicko import Rating, rate_game
from server.protocol import Clocks, GameStatus, Player, PlayerKind, TimeControl

START = "3B2B3/10/10/B8B/10/10/W8W/10/10/3W2W3 w"
MOVES_PLAYED = ["d1-d7/g7", "a7-b8/a8", "g1-g4/e6", "j7-j5/h5"]
DAY = 86_400_000
T0 = 1_790_000_000_000  # ms since the epoch: a day in 2026


def _human(name: str) -> Seat:
    return Seat(name, PlayerKind.HUMAN)


def _game(
    game_id: str,
    white: Seat,
    black: Seat,
    *,
    ended: int = T0,
    winner: str | None = "white",
    rated: bool = True,
    game: str = "amazons",
    ladder: str | None = None,
) -> FinishedGame:
    plies = len(MOVES_PLAYED)
    record = GameRecord(
        game=game,
        start=START,
        white=white.name,
        black=black.name,
        game_id=game_id,
        date=utc_date((ended - 60_000) / 1000),
        rated=rated,
        white_rating=1500,
        black_rating=1500,
        moves=list(MOVES_PLAYED),
        seconds=[1.25, 0.5, 3.0, 0.125],
        nodes=[0] * plies,
        winner=winner,
        termination="resignation" if winner else "aborted",
        setup="10x10",
        time=[300, 5],
        clocks=[[303_750, 300_000], [303_750, 304_500], [305_750, 304_500], [305_750, 309_375]],
    )
    return FinishedGame(record, white, black, created=ended - 60_000, ended=ended, ladder=ladder)


async def _rating(db: Database, player: str, game: str = "amazons") -> Rating | None:
    async with db.reading() as connection:
        row = (
            await connection.execute(
                select(RATINGS).where(
                    RATINGS.c.player == player,
                    RATINGS.c.game == game,
                    RATINGS.c.ladder == GAME_POOL,
                )
            )
        ).first()
    return None if row is None else Rating(row.rating, row.deviation, row.volatility)


async def _count(db: Database, table: Table, **where: object) -> int:
    async with db.reading() as connection:
        query = select(func.count()).select_from(table)
        for column, value in where.items():
            query = query.where(table.c[column] == value)
        return int((await connection.execute(query)).scalar_one())


@pytest.mark.asyncio
async def test_a_finished_game_reads_back_as_it_was_recorded_with_its_rating_changes(
    db: Database,
) -> None:
    house = Seat("invader", PlayerKind.HOUSE, "invader@5")
    game = _game("g1", _human("Alice"), house, ladder=None)

    recorded = await record_finished_game(db, game)

    white, black = rate_game(Rating(), Rating(), white_won=True)
    changes = (RatingChange(1500.0, white.rating), RatingChange(1500.0, black.rating))
    assert recorded.first
    assert recorded.changes == changes
    found = await finished_game(db, "g1")
    assert found is not None
    assert found == dataclasses.replace(game, changes=changes)
    assert found.record.date == "2026-09-21T14:12:20Z"  # when it was made
    assert await _rating(db, "alice") == white
    assert await _rating(db, "invader@5") == black  # a house bot is rated at its strength
    assert await finished_game(db, "nope") is None


@pytest.mark.asyncio
async def test_a_game_recorded_twice_and_at_once_by_two_processes_is_written_once(
    database_url: str, db: Database
) -> None:
    other = await Database.open(database_url, Path("unused"))  # as a second server would
    game = _game("g1", _human("alice"), _human("bob"))
    try:
        both = await asyncio.gather(
            record_finished_game(db, game), record_finished_game(other, game)
        )
        again = await record_finished_game(db, game)
    finally:
        await other.close()

    assert sorted(outcome.first for outcome in both) == [False, True]
    assert not again.first
    assert both[0].changes == both[1].changes == again.changes is not None
    white, black = rate_game(Rating(), Rating(), white_won=True)
    assert await _rating(db, "alice") == white
    assert await _rating(db, "bob") == black
    assert await _count(db, RATING_HISTORY, player="alice") == 1
    assert await _count(db, MOVES, game_id="g1") == len(MOVES_PLAYED)


@pytest.mark.asyncio
async def test_two_games_of_one_player_ending_at_once_both_move_the_rating(
    database_url: str, db: Database
) -> None:
    await record_finished_game(db, _game("g0", _human("alice"), _human("dave"), ended=T0 - DAY))
    other = await Database.open(database_url, Path("unused"))
    try:
        await asyncio.gather(
            record_finished_game(db, _game("g1", _human("alice"), _human("bob"))),
            record_finished_game(other, _game("g2", _human("carol"), _human("alice"))),
        )
    finally:
        await other.close()

    # Rated one after the other, in either order: neither is lost.
    fresh = Rating()
    alice = rate_game(fresh, fresh, white_won=True)[0]  # after g0
    g1_then_g2 = rate_game(fresh, rate_game(alice, fresh, white_won=True)[0], white_won=True)[1]
    g2_then_g1 = rate_game(rate_game(fresh, alice, white_won=True)[1], fresh, white_won=True)[0]
    assert await _rating(db, "alice") in (g1_then_g2, g2_then_g1)
    assert await _count(db, RATING_HISTORY, player="alice") == 3


@pytest.mark.parametrize(
    ("white", "winner", "rated"),
    [
        pytest.param(_human("alice"), "white", False, id="casual"),
        pytest.param(Seat("guest-7", PlayerKind.GUEST), "white", True, id="guest"),
        pytest.param(_human("alice"), None, True, id="aborted"),
        pytest.param(Seat("random", PlayerKind.HOUSE), "white", True, id="house strength unknown"),
    ],
)
@pytest.mark.asyncio
async def test_a_game_that_rates_nobody_moves_no_rating(
    db: Database, white: Seat, winner: str | None, rated: bool
) -> None:
    recorded = await record_finished_game(
        db, _game("g1", white, _human("bob"), winner=winner, rated=rated)
    )
    assert recorded == type(recorded)(True, None)
    assert await _rating(db, "bob") is None
    assert await _count(db, RATING_HISTORY) == 0
    found = await finished_game(db, "g1")
    assert found is not None
    assert found.changes is None
    assert found.record.white_rating == 1500  # as shown when it began
    assert found.record.winner == winner


@pytest.mark.asyncio
async def test_a_ladder_game_leaves_its_result(db: Database) -> None:
    bots = (Seat("ant", PlayerKind.BOT), Seat("bee", PlayerKind.BOT))
    await record_finished_game(db, _game("g1", *bots, winner="black", rated=False, ladder="main"))
    await record_finished_game(db, _game("g2", *bots, winner=None, rated=False, ladder="main"))
    async with db.reading() as connection:
        rows = (await connection.execute(select(LADDER_RESULTS))).all()
    assert [(r.ladder, r.game_id, r.white, r.black, r.white_won, r.ended) for r in rows] == [
        ("main", "g1", "ant", "bee", False, T0)
    ]


@pytest.mark.asyncio
async def test_a_record_with_moves_but_no_clocks_is_refused(db: Database) -> None:
    game = _game("g1", _human("alice"), _human("bob"))
    broken = dataclasses.replace(game, record=dataclasses.replace(game.record, clocks=[]))
    with pytest.raises(ValueError, match="g1 has 4 moves, 4 times and 0 clocks"):
        await record_finished_game(db, broken)
    assert await finished_game(db, "g1") is None


@pytest.mark.asyncio
async def test_games_are_listed_newest_first_a_page_at_a_time_by_each_filter(
    db: Database,
) -> None:
    alice, bob, carol = _human("Alice"), _human("bob"), _human("carol")
    played = [
        _game("a1", alice, bob, ended=T0),
        _game("a2", bob, alice, ended=T0 + DAY, rated=False),
        _game("a3", alice, carol, ended=T0 + 2 * DAY, game="takeaway"),
        _game("b1", bob, carol, ended=T0 + 2 * DAY),
        _game("a4", carol, alice, ended=T0 + 3 * DAY, ladder="main"),
        # Two at the same ms: the id breaks the tie, and paging splits them cleanly.
        _game("a5", alice, bob, ended=T0 + 4 * DAY),
        _game("a6", alice, carol, ended=T0 + 4 * DAY),
    ]
    for game in played:
        await record_finished_game(db, game)

    pages, cursor = [], None
    while True:
        page = await games(db, player="ALICE", limit=2, before=cursor)
        pages.append([game.game_id for game in page.games])
        if page.next is None:
            break
        if cursor is None:  # a game that ends while the pages are read moves no game between them
            await record_finished_game(db, _game("a7", alice, bob, ended=T0 + 5 * DAY))
        cursor = page.next
    assert pages == [["a6", "a5"], ["a4", "a3"], ["a2", "a1"]]

    async def ids(**filters: object) -> list[str]:
        page = await games(db, **filters)  # type: ignore[arg-type]
        return [game.game_id for game in page.games]

    assert await ids(player="bob") == ["a7", "a5", "b1", "a2", "a1"]
    assert await ids(since=T0 + DAY, until=T0 + 3 * DAY) == ["b1", "a3", "a2"]
    assert await ids(game="takeaway") == ["a3"]
    assert await ids(rated=False) == ["a2"]
    assert await ids(ladder="main") == ["a4"]
    assert await ids(player="carol", rated=True, since=T0 + 2 * DAY + 1) == ["a6", "a4"]
    every = await games(db)
    assert every.next is None
    assert [game.record.moves for game in every.games] == [MOVES_PLAYED] * 8


@pytest.mark.asyncio
async def test_a_game_a_player_played_against_itself_is_listed_once_and_lists_need_no_moves(
    db: Database,
) -> None:
    # A house bot's seats keep its shown name whatever the strength: invader@3 met invader@7.
    weak, strong = (Seat("invader", PlayerKind.HOUSE, f"invader@{n}") for n in (3, 7))
    await record_finished_game(db, _game("h1", weak, strong, ended=T0, rated=False))
    await record_finished_game(db, _game("h2", _human("ann"), weak, ended=T0 + DAY))
    await record_finished_game(db, _game("h3", strong, weak, ended=T0 + 2 * DAY, rated=False))

    first = await games(db, player="invader", limit=2, moves=False)
    assert [game.game_id for game in first.games] == ["h3", "h2"]
    assert [game.record.moves for game in first.games] == [[], []]
    assert first.next is not None
    rest = await games(db, player="invader", limit=2, before=first.next)
    assert [game.game_id for game in rest.games] == ["h1"]
    assert rest.games[0].record.moves == MOVES_PLAYED
    assert rest.next is None


@pytest.mark.asyncio
async def test_a_page_has_one_to_a_hundred_games(db: Database) -> None:
    for limit in (0, 101):
        with pytest.raises(ValueError, match=f"a page holds 1 to 100 games, not {limit}"):
            await games(db, limit=limit)


def test_a_cursor_reads_back_from_its_text() -> None:
    cursor = GameCursor(T0, "a-b_c")
    assert GameCursor.parse(str(cursor)) == cursor
    assert str(cursor) == f"{T0}.a-b_c"
    for text in ("", "123", "x.abc", "123."):
        with pytest.raises(ValueError, match="is not a place in a list of games"):
            GameCursor.parse(text)


@pytest.mark.asyncio
async def test_a_game_the_live_store_ended_reads_back_as_its_record(
    db: Database, redis: Redis, redis_url: str
) -> None:
    store = GameStore(open_redis(redis_url))
    ann, bob = Player("ann", PlayerKind.HUMAN), Player("bob", PlayerKind.HUMAN)
    try:
        started = await store.create(
            ann, bob, time=TimeControl(60, 2), rated=True, now=T0, setup="6x6"
        )
        game_id = started.game_id
        await store.play(game_id, "ann", 0, "b1-b4/d4", T0 + 1_500)
        await store.play(game_id, "bob", 1, "e6-e3/c3", T0 + 4_250)
        await store.resign(game_id, "ann", T0 + 9_000)
        ended = await store.load(game_id)
    finally:
        await store.redis.aclose()
    with pytest.raises(ValueError, match=f"game {game_id} has not ended"):
        FinishedGame.of(dataclasses.replace(ended, status=GameStatus.PLAYING))

    recorded = await record_finished_game(db, FinishedGame.of(ended))

    assert recorded.changes is not None  # rated: Black won by resignation
    found = await finished_game(db, game_id)
    assert found is not None
    expected = ended.record()
    # The ratings a rated game was rated from, which the live store's record leaves out.
    assert found.record == dataclasses.replace(expected, white_rating=1500, black_rating=1500)
    assert found.record.moves == ["b1-b4/d4", "e6-e3/c3"]
    assert found.record.seconds == [move_ms / 1000 for move_ms in ended.move_ms]
    assert found.record.clocks == [list(clocks) for clocks in ended.clocks_after]
    assert (found.record.winner, found.created, found.ended) == ("black", T0, T0 + 9_000)
    # The clocks at the resignation, Ann's run on since Bob's move, not those after it.
    final = ended.final_clocks()
    assert found.final_clocks == (final.white, final.black) != ended.clocks_after[-1]
    assert (found.white, found.black) == (Seat("ann", PlayerKind.HUMAN), _human("bob"))


def test_a_game_recorded_before_the_clocks_at_its_end_were_kept_reads_its_last_moves() -> None:
    lost_on_time = _game("g1", _human("ann"), _human("bob"), winner="black")
    lost_on_time = dataclasses.replace(
        lost_on_time,
        record=dataclasses.replace(lost_on_time.record, termination="time forfeit"),
    )
    assert lost_on_time.final_clocks is None
    read = _from_history(lost_on_time)
    # White was to move after four plies, and lost on time: its clock at zero.
    assert read.final_clocks() == Clocks(0, 309_375)
    kept = _from_history(dataclasses.replace(lost_on_time, final_clocks=(0, 309_000)))
    assert kept.final_clocks() == Clocks(0, 309_000)

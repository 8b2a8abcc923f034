"""The cross table, each bot's score, the standings ranked by the rating list and the plain
text tables they print as."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.ladder.results import Result, Score, cross_table, scores
from server.ladder.standing import WIDTH, Standing, Table, render_standings, standings

GAMES = [
    Result("alpha", "beta", True),
    Result("beta", "alpha", False),
    Result("alpha", "gamma", False),
    Result("gamma", "beta", True),
    Result("beta", "gamma", True),
]


def test_the_cross_table_counts_each_bots_score_against_each_other() -> None:
    assert cross_table(GAMES) == {
        "alpha": {"beta": Score(2, 0), "gamma": Score(0, 1)},
        "beta": {"alpha": Score(0, 2), "gamma": Score(1, 1)},
        "gamma": {"alpha": Score(1, 0), "beta": Score(1, 1)},
    }
    assert scores(GAMES) == {"alpha": Score(2, 1), "beta": Score(1, 3), "gamma": Score(2, 1)}


bots = st.sampled_from(["a", "b", "c", "d"])
results = st.lists(
    st.tuples(bots, bots, st.booleans()).filter(lambda game: game[0] != game[1]), max_size=30
).map(lambda games: [Result(*game) for game in games])


@given(results)
def test_every_game_is_a_win_in_one_cell_and_a_loss_in_its_mirror(games: list[Result]) -> None:
    table = cross_table(games)

    for bot, against in table.items():
        for opponent, score in against.items():
            assert table[opponent][bot] == Score(score.losses, score.wins)
    total = scores(games)
    assert sum(score.wins for score in total.values()) == len(games)
    assert sum(score.games for score in total.values()) == 2 * len(games)


def test_a_bot_cannot_have_played_itself() -> None:
    with pytest.raises(ValueError, match="alpha cannot have played itself"):
        Result("alpha", "alpha", True)


def test_standings_rank_by_the_rating_list() -> None:
    games = GAMES + [Result("house", name, True) for name in ("alpha", "beta", "gamma")] * 2

    rows = standings(games, {"house": 2000.0}, members=["newcomer"])

    assert [row.name for row in rows][:1] == ["house"]
    assert [row.rank for row in rows] == [1, 2, 3, 4, 5]
    assert [row.rating for row in rows] == sorted((row.rating for row in rows), reverse=True)
    by_name = {row.name: row for row in rows}
    assert by_name["house"].anchor
    assert by_name["house"].margin == 0.0
    assert by_name["house"].score == Score(6, 0)
    assert by_name["newcomer"].score == Score()
    assert by_name["alpha"].rating > by_name["beta"].rating


def test_the_standings_table_reads_as_printed() -> None:
    rows = [
        Standing(1, "house-mcts", 2000.0, 0.0, True, Score(30, 10)),
        Standing(2, "ann/deep", 1712.4, 61.3, False, Score(25, 15)),
        Standing(3, "newcomer", 1500.0, 1175.98, False, Score()),
    ]

    assert render_standings(rows) == (
        "rank  bot         rating     95%  games  won  score\n"
        "   1  house-mcts    2000  anchor     40   30  75.0%\n"
        "   2  ann/deep      1712     ±61     40   25  62.5%\n"
        "   3  newcomer      1500   ±1176      0    0      -\n"
    )


def test_no_bots_leave_only_the_heading() -> None:
    assert render_standings([]) == "rank  bot  rating  95%  games  won  score\n"


NOW = 1_800_000_000_000  # server ms


def test_a_live_table_says_when_each_bot_was_seen_its_owner_and_engine() -> None:
    rows = [
        Standing(1, "ace", 1700.0, 90.0, False, Score(3, 1)),
        Standing(2, "bee", 1500.0, 90.0, False, Score(1, 3)),
        Standing(3, "cid", 1500.0, 1176.0, False, Score()),
        Standing(4, "dee", 1500.0, 1176.0, False, Score()),
    ]
    table = Table(
        "fast",
        rows,
        {},
        frozenset({"ace"}),
        owners={"ace": "ann", "bee": "bee", "cid": "ann"},
        engines={"ace": "mcts:c=0.8", "bee": "Deep Amazon " + "1.0 " * 40},
        seen={"ace": NOW - 10, "bee": NOW - 5 * 60_000, "cid": NOW - 3 * 3_600_000 - 1},
        games=[Result("ace", "bee", False, "g2", NOW - 2 * 86_400_000)],
    )
    lines = table.render(NOW).splitlines()
    assert max(map(len, lines)) == WIDTH  # the engine cut to fit
    assert [line.split()[8:] for line in lines[:5]] == [
        ["seen", "owner", "engine"],
        ["now", "ann", "mcts:c=0.8"],
        ["5", "min", "ago", "bee", "Deep", "Amazon", "1.0", "1.0", "1.0", "1.0", "…"],
        ["3", "h", "ago", "ann", "-"],
        ["-", "-", "-"],
    ]
    assert lines[5:] == [
        "",
        "game  white  black  winner  ended",
        "g2    ace    bee    bee     2 d ago",
    ]

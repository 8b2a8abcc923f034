"""The pairing of a round: the rules every round keeps (no self-pairs, no bot over its limit,
same owner only when nobody else is left, a far pair only by chance or after a wait, White to
whoever had it less), checked on random rounds, and over hundreds of rounds of a simulated
ladder (colours balanced, anchors fixed, everyone meets everyone)."""

from __future__ import annotations

import itertools
import random
import statistics
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.glicko import Rating
from server.ladder.pairing import (
    FAR_CHANCE,
    FAR_GAP,
    PATIENCE,
    Member,
    PairHistory,
    Pairing,
    pair_round,
)
from server.ladder.rating import anchor_rating, rate_ladder_game


def _may_be_held(a: Member, b: Member) -> bool:
    """Whether `a` and `b` are a far pair that a round may keep apart."""
    return (
        abs(a.rating - b.rating) > FAR_GAP
        and max(a.waited, b.waited) < PATIENCE
        and not (a.provisional or b.provisional)
    )


def _check_round(members: list[Member], history: PairHistory, games: list[Pairing]) -> None:
    """Every rule of one round's pairing."""
    by_name = {member.name: member for member in members}
    pairs = [frozenset((game.white, game.black)) for game in games]
    assert all(len(pair) == 2 for pair in pairs), "a bot paired with itself"
    assert len(set(pairs)) == len(pairs), "two bots paired twice in one round"
    started = Counter(name for game in games for name in (game.white, game.black))
    for name, count in started.items():
        assert count <= by_name[name].free, f"{name} is given more games than it may play"
    left = {member.name: member.free - started[member.name] for member in members}
    met = {(a, b) for pair in pairs for a, b in itertools.permutations(pair)}
    for a, b in itertools.combinations(members, 2):
        if left[a.name] > 0 and left[b.name] > 0:
            # Only a far pair may both sit out, and only while neither has waited long.
            assert _may_be_held(a, b) or (a.name, b.name) in met, f"{a.name}, {b.name} sit out"
    for game in games:
        white, black = by_name[game.white], by_name[game.black]
        if white.owner == black.owner:
            for bot in (white, black):
                for other in members:
                    if other.owner != bot.owner:
                        could = left[other.name] > 0 and not _may_be_held(bot, other)
                        assert not could or (bot.name, other.name) in met, (
                            f"{game} share an owner while {other.name} could play {bot.name}"
                        )
        assert history.whites(game.white, game.black) <= history.whites(game.black, game.white)


names = st.sampled_from([f"bot{i}" for i in range(12)])
members = st.lists(
    st.builds(
        Member,
        name=names,
        owner=st.sampled_from(["ann", "bob", "cy", "dee"]),
        rating=st.floats(500.0, 2500.0),
        playing=st.integers(0, 2),
        limit=st.integers(1, 3),
        waited=st.integers(0, PATIENCE + 1),
        provisional=st.booleans(),
    ),
    max_size=12,
    unique_by=lambda member: member.name,
)
histories = st.lists(st.tuples(names, names).filter(lambda pair: pair[0] != pair[1])).map(
    lambda games: PairHistory.of(Pairing(white, black) for white, black in games)
)


@settings(max_examples=300)
@given(members, histories, st.integers(0, 2**32))
def test_every_round_keeps_the_rules(
    members: list[Member], history: PairHistory, seed: int
) -> None:
    before = dict(history.white_games)

    games = pair_round(members, history, random.Random(seed))

    _check_round(members, history, games)
    assert history.white_games == before
    assert pair_round(members, history, random.Random(seed)) == games


def test_bots_of_one_owner_meet_only_when_nobody_else_is_there() -> None:
    ann1, ann2, ann3 = (Member(f"ann{i}", "ann", 1500.0) for i in (1, 2, 3))
    bob = Member("bob", "bob", 1500.0)
    for seed in range(20):
        rng = random.Random(seed)
        assert pair_round([ann1, ann2], PairHistory(), rng) != []
        (game,) = pair_round([ann1, ann2, bob], PairHistory(), rng)
        assert "bob" in (game.white, game.black)
        # bob can play one of them; the other two would sit out, so they meet each other.
        games = pair_round([ann1, ann2, ann3, bob], PairHistory(), rng)
        assert len(games) == 2
        assert sum("bob" in (game.white, game.black) for game in games) == 1


def test_a_bot_that_plays_several_games_meets_a_different_opponent_in_each() -> None:
    host = Member("host", "ann", 1500.0, playing=1, limit=4)
    guests = [Member(f"guest{i}", "bob", 1500.0 + 100 * i) for i in range(5)]

    for seed in range(20):
        games = pair_round([host, *guests], PairHistory(), random.Random(seed))

        hosted = [game for game in games if "host" in (game.white, game.black)]
        opponents = {game.black if game.white == "host" else game.white for game in hosted}
        assert len(hosted) == len(opponents) == 3  # its fourth place holds the game in progress
        assert len(games) == 4  # bob's two bots left over would sit out: they meet


def test_busy_bots_and_lone_bots_sit_out() -> None:
    busy = Member("busy", "ann", 1500.0, playing=1)
    idle = Member("idle", "bob", 1500.0)

    assert pair_round([busy, idle], PairHistory(), random.Random(1)) == []
    assert pair_round([idle], PairHistory(), random.Random(1)) == []


def test_white_goes_to_whoever_had_it_less_often() -> None:
    a, b = Member("a", "ann", 1500.0), Member("b", "bob", 1500.0)
    history = PairHistory.of([Pairing("a", "b"), Pairing("a", "b"), Pairing("b", "a")])

    for seed in range(20):
        assert pair_round([a, b], history, random.Random(seed)) == [Pairing("b", "a")]
    whites = Counter(
        pair_round([a, b], PairHistory(), random.Random(seed))[0].white for seed in range(200)
    )
    assert 70 < whites["a"] < 130  # a tie is a coin toss


def test_a_far_pair_meets_by_chance_or_once_one_has_waited_or_is_new() -> None:
    near = Member("near", "ann", 1500.0)
    far = Member("far", "bob", 1500.0 + FAR_GAP + 1)
    rng = random.Random(8)
    met = sum(bool(pair_round([near, far], PairHistory(), rng)) for _ in range(1000))
    assert abs(met / 1000 - FAR_CHANCE) < 0.05
    waited = Member("far", "bob", 1500.0 + FAR_GAP + 1, waited=PATIENCE)
    assert all(pair_round([near, waited], PairHistory(), rng) for _ in range(100))
    close = Member("close", "bob", 1500.0 + FAR_GAP)
    assert all(pair_round([near, close], PairHistory(), rng) for _ in range(100))
    new = Member("new", "bob", 1500.0 + FAR_GAP + 1, provisional=True)
    assert all(pair_round([near, new], PairHistory(), rng) for _ in range(100))


def test_a_name_listed_twice_is_refused() -> None:
    twins = [Member("twin", "ann", 1500.0), Member("twin", "bob", 1600.0)]

    with pytest.raises(ValueError, match="members listed twice: twin"):
        pair_round(twins, PairHistory(), random.Random(1))


def test_impossible_limits_are_refused() -> None:
    with pytest.raises(ValueError, match="game limit must be at least 1"):
        Member("bot", "ann", 1500.0, limit=0)


def test_games_are_between_near_ratings() -> None:
    # Forty bots 100 Elo apart: paired at random, two would be 1,367 Elo apart on average.
    members = [Member(f"bot{i}", f"owner{i}", 100.0 * i) for i in range(40)]
    history = PairHistory()
    rng = random.Random(5)
    gaps = []
    for _ in range(50):
        for game in pair_round(members, history, rng):
            history.record(game)
            gaps.append(abs(int(game.white[3:]) - int(game.black[3:])) * 100)

    assert statistics.mean(gaps) < 500


@pytest.mark.parametrize("seed", [2026, 3, 6])
def test_hundreds_of_rounds_of_a_ladder(seed: int) -> None:
    """A ladder of 12 bots (two anchors, two bots of one owner, one bot that plays three games
    at once) over 400 rounds: games finish at random, won by the stronger bot as often as Elo
    says, and are rated as the ladder rates them."""
    rng = random.Random(seed)
    strength = {f"bot{i}": 1000.0 + 90.0 * i for i in range(12)}
    owner = {name: name for name in strength} | {"bot4": "ann", "bot5": "ann"}
    limit = dict.fromkeys(strength, 1) | {"bot7": 3}
    anchors = {"bot0": 1000.0, "bot11": 1990.0}
    rating = {name: Rating() for name in strength} | {
        name: anchor_rating(value) for name, value in anchors.items()
    }
    history = PairHistory()
    in_progress: list[Pairing] = []
    for _ in range(400):
        playing = Counter(name for game in in_progress for name in (game.white, game.black))
        members = [
            Member(name, owner[name], rating[name].rating, playing[name], limit[name])
            for name in strength
        ]
        games = pair_round(members, history, rng)
        _check_round(members, history, games)
        for game in games:
            history.record(game)
        in_progress += games
        busy = Counter(name for game in in_progress for name in (game.white, game.black))
        assert all(busy[name] <= limit[name] for name in strength)
        ends = [rng.random() < 0.6 for _ in in_progress]
        finished = [game for game, ended in zip(in_progress, ends, strict=True) if ended]
        in_progress = [game for game, ended in zip(in_progress, ends, strict=True) if not ended]
        for game in finished:
            expected = 1.0 / (1.0 + 10.0 ** ((strength[game.black] - strength[game.white]) / 400))
            rating[game.white], rating[game.black] = rate_ladder_game(
                rating[game.white],
                rating[game.black],
                white_won=rng.random() < expected,
                white_is_anchor=game.white in anchors,
                black_is_anchor=game.black in anchors,
            )

    across = []
    for a, b in itertools.combinations(strength, 2):
        assert abs(history.whites(a, b) - history.whites(b, a)) <= 1, (a, b)
        if owner[a] != owner[b]:
            assert history.meetings(a, b) > 0, f"{a} never met {b}"
            across.append(history.meetings(a, b))
    # ann's two bots meet only in the rounds nobody else is free for them: rarely.
    assert 4 * history.meetings("bot4", "bot5") < min(across)
    for name, value in anchors.items():
        assert rating[name] == anchor_rating(value)
    played = Counter(
        name
        for (white, black), n in history.white_games.items()
        for name in (white, black)
        for _ in range(n)
    )
    assert played["bot7"] > 1.5 * statistics.median(played.values())
    # Glicko-2 has sorted them, 90 Elo apart: no bot is more than two places from its own.
    order = sorted(strength, key=lambda name: rating[name].rating)
    assert all(abs(order.index(name) - i) <= 2 for i, name in enumerate(strength))

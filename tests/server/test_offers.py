"""What a server offers game by game: setups and house bots from the registries, and time
controls, a range or a list, read from its setting."""

import re
from collections.abc import Callable

import pytest
from redis.asyncio import Redis

from engine.errors import NotationError
from engine.game import get_game
from engine.search.registry import bots_for
from server.offers import DEFAULT_TIME_CONTROLS, GameTerms, Offered, TimeControls
from server.protocol import ErrorCode, GameOffers, ProtocolError, TimeControl
from server.worker import HOUSE_BOTS
from tests.server.endpoint import serving
from tests.server.wire import Wire


def test_the_default_range_offers_10_s_to_3_h_and_increments_up_to_180_s() -> None:
    offered = TimeControls.parse(DEFAULT_TIME_CONTROLS)
    assert offered.refusal(TimeControl(10, 0)) is None
    assert offered.refusal(TimeControl(10800, 180)) is None
    assert offered.refusal(TimeControl(9, 5)) == (
        "time control 9+5 is not offered: the base must be 10 to 10800 s"
    )


def test_a_list_offers_exactly_its_time_controls() -> None:
    offered = TimeControls.parse("60+0,180+2")
    assert (offered.min_base, offered.max_base, offered.max_increment) == (60, 180, 2)
    assert offered.refusal(TimeControl(180, 2)) is None
    assert offered.refusal(TimeControl(120, 1)) == (
        "time control 120+1 is not offered; offered: 60+0, 180+2"
    )


def test_a_range_caps_the_increment() -> None:
    assert TimeControls.parse("30-600+5").refusal(TimeControl(60, 6)) == (
        "time control 60+6 is not offered: the increment must be at most 5 s"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "0-600+5",
            "time controls '0-600+5': a base of 0 s loses on time at once; the least is 1 s",
        ),
        ("0+3", "time controls '0+3': a base of 0 s loses on time at once; the least is 1 s"),
        ("60-30+0", "time control range '60-30+0': 60 s is above 30 s"),
        ("60", "time control '60' is not BASE+INCREMENT (as in 180+2)"),
        ("60+x", "increment 'x' is not a whole number of seconds"),
        ("60-20000+0", "time controls '60-20000+0': at most 10800 s base and 180 s increment"),
    ],
)
def test_a_bad_setting_is_refused_with_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        TimeControls.parse(text)


# The take-away game of the test suite (tests/games/takeaway.py), registered in conftest.py: offers,
# setups and house bots are per game.
# The house bots that play Amazons: all but Bao's own.
AMAZONS_HOUSE_BOTS = tuple(name for name in HOUSE_BOTS if name in bots_for("amazons"))
DEFAULT = TimeControls.parse(DEFAULT_TIME_CONTROLS)


def test_every_registered_game_is_offered_amazons_first_with_the_bots_that_play_it() -> None:
    offered = Offered.every_game(DEFAULT, HOUSE_BOTS)
    amazons, bao, takeaway_terms = offered.games
    assert (bao.game, bao.setups, bao.default_setup) == ("bao", ("zanzibar",), "zanzibar")
    assert (amazons.game, amazons.setups, amazons.default_setup) == (
        "amazons",
        get_game("amazons").info.setups,
        "10x10",
    )
    assert amazons.house_bots == AMAZONS_HOUSE_BOTS
    assert (bao.game, bao.setups, bao.default_setup) == ("bao", ("zanzibar",), "zanzibar")
    assert (takeaway_terms.game, takeaway_terms.setups, takeaway_terms.default_setup) == (
        "takeaway",
        ("10", "21"),
        "21",
    )
    assert takeaway_terms.house_bots == ("random", "mobility", "mcts")
    assert bots_for("takeaway") == ["random", "mobility", "mcts"]
    assert "invader" in bots_for("amazons")
    with pytest.raises(NotationError, match="unknown game 'chess'"):
        bots_for("chess")


def test_welcome_shows_amazons_and_the_offer_list_every_game() -> None:
    per_game = {"takeaway": TimeControls.parse("60+0")}
    offered = Offered.every_game(DEFAULT, HOUSE_BOTS, per_game)
    shown = offered.offers()
    assert (shown.setups, shown.min_base, shown.max_base, shown.house_bots, shown.games) == (
        ("10x10", "8x8", "6x6"),
        10,
        10_800,
        AMAZONS_HOUSE_BOTS,
        None,
    )
    listed = offered.every_game_offers(shown)
    assert listed.games is not None
    assert [g.game for g in listed.games] == ["amazons", "bao", "takeaway"]
    assert listed.games[2] == GameOffers(
        "takeaway",
        ("10", "21"),
        "21",
        60,
        60,
        0,
        (TimeControl(60, 0),),
        ("random", "mobility", "mcts"),
    )


def _refused(call: Callable[[], object]) -> tuple[str | None, str]:
    with pytest.raises(ProtocolError) as caught:
        call()
    assert caught.value.code is ErrorCode.BAD_FIELD
    return caught.value.field, str(caught.value)


def test_a_request_gets_its_game_default_setup_and_bad_fields_name_the_choices() -> None:
    offered = Offered.every_game(DEFAULT, HOUSE_BOTS, {"takeaway": TimeControls.parse("60+0")})
    takeaway_terms = offered.terms("takeaway")
    assert takeaway_terms.check(None, TimeControl(60, 0)) == "21"
    assert takeaway_terms.check("10", TimeControl(60, 0)) == "10"
    assert offered.terms("amazons").check(None, TimeControl(60, 0)) == "10x10"
    assert _refused(lambda: offered.terms("chess")) == (
        "game",
        "unknown game 'chess': registered games are amazons, bao, takeaway",
    )
    assert _refused(lambda: takeaway_terms.check("10x10", TimeControl(60, 0))) == (
        "setup",
        "setup '10x10' is not offered for takeaway; offered: 10, 21",
    )
    assert _refused(lambda: takeaway_terms.check("10", TimeControl(180, 2))) == (
        "time",
        "time control 180+2 is not offered; offered: 60+0",
    )
    assert _refused(lambda: takeaway_terms.check_house_bot("invader")) == (
        "opponent",
        "house bot invader does not play takeaway; its house bots: random, mobility, mcts",
    )
    offered_amazons_only = Offered((offered.terms("amazons"),))
    assert _refused(lambda: offered_amazons_only.terms("takeaway")) == (
        "game",
        "game 'takeaway' is not offered; offered: amazons",
    )


def test_bad_offers_are_refused_when_the_server_is_set_up() -> None:
    with pytest.raises(ValueError, match=r"^time controls for unknown game 'chess': registered"):
        Offered.every_game(DEFAULT, HOUSE_BOTS, {"chess": DEFAULT})
    with pytest.raises(ValueError, match=r"^unknown takeaway setup '99': its setups are 10, 21$"):
        GameTerms.of("takeaway", DEFAULT, HOUSE_BOTS, setups=("99",))
    with pytest.raises(ValueError, match=r"^a server offers at least one game$"):
        Offered(())


@pytest.mark.asyncio
async def test_a_client_asks_for_the_offers_and_a_game_the_server_does_not_know_is_refused(
    redis: Redis, redis_url: str
) -> None:
    async with serving(redis_url) as url:
        wire = await Wire.guest(url)
        listed = await wire.call("list_offers")
        assert listed["t"] == "offer_list"
        amazons, bao, takeaway = listed["offers"].pop("games")
        assert (bao["game"], bao["setups"]) == ("bao", ["zanzibar"])
        welcome = next(frame for frame in wire.frames if frame["t"] == "welcome")
        assert listed["offers"] == welcome["offers"]
        assert amazons == {
            "game": "amazons",
            "setups": ["10x10", "8x8", "6x6"],
            "default_setup": "10x10",
            "min_base": 10,
            "max_base": 10_800,
            "max_increment": 180,
            "time_controls": [],
            "house_bots": list(AMAZONS_HOUSE_BOTS),
        }
        assert (bao["game"], bao["setups"]) == ("bao", ["zanzibar"])
        assert (takeaway["game"], takeaway["setups"], takeaway["house_bots"]) == (
            "takeaway",
            ["10", "21"],
            ["random", "mobility", "mcts"],
        )
        time = {"base": 60, "increment": 0}
        for tag, fields in (
            ("seek", {}),
            ("quick_pair", {}),
            ("challenge", {"opponent": "greedy"}),
        ):
            refused = await wire.call(tag, time=time, game="chess", **fields)
            assert (refused["code"], refused["field"], refused["message"]) == (
                "bad_field",
                "game",
                "unknown game 'chess': registered games are amazons, bao, takeaway",
            )
        added = await wire.call("seek", time=time)
        assert (added["seek"]["game"], added["seek"]["setup"]) == ("amazons", "10x10")
        await wire.close()


@pytest.mark.asyncio
async def test_a_house_bot_is_challenged_only_to_a_game_it_plays(
    redis: Redis, redis_url: str
) -> None:
    async with serving(redis_url) as url:
        wire = await Wire.guest(url)
        refused = await wire.call(
            "challenge", opponent="greedy", time={"base": 60, "increment": 0}, game="takeaway"
        )
        assert (refused["code"], refused["field"], refused["message"]) == (
            "bad_field",
            "opponent",
            "house bot greedy does not play takeaway; its house bots: random, mobility, mcts",
        )
        await wire.close()

"""The analysis panel: the notes on an Amazons position as the engine finds them, the values a
real analyst (in a child process) works out, an analyst that is busy or refuses, an answer for
a position no longer shown, an answer as the screen closes, and a game without analysis."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import numpy as np
import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.screen import Screen

from clients.tui.analysis import AnalysisPanel, Analyst
from engine.amazons import Position, RegionKind, Side
from engine.cgt.analysis import analyze
from engine.game import GameState, get_game
from engine.search.evaluation import UNREACHABLE, queen_distance
from server.analysis import Analyst as ChildAnalyst
from server.protocol import Analysis, ErrorCode, GameAnalysis, ProtocolError, RegionValue
from tests.clients.tui.test_app import until

# Three regions: Black's a1-b1, a contested block with d1 and e1, White's a3-b3.
SMALL = "W1x2/xxx2/B1xWB b"


class PanelHost(App[None]):
    """The panel alone, showing what the test gives it."""

    def __init__(self, game: str, analyst: Analyst | None) -> None:
        super().__init__()
        self.panel = AnalysisPanel(game, analyst, id="analysis")

    def compose(self) -> ComposeResult:
        yield self.panel


class Scripted:
    """An analyst that answers what the test scripts for each position, in turn, and keeps
    what it was asked."""

    def __init__(self, answers: dict[str, list[Analysis | ProtocolError]]) -> None:
        self.answers = answers
        self.asked: list[str] = []
        self.gate: asyncio.Event | None = None  # when set up, each answer waits for it

    async def analyze(self, text: str, game: str) -> Analysis:
        self.asked.append(text)
        if self.gate is not None:
            await self.gate.wait()
        answer = self.answers[text].pop(0)
        if isinstance(answer, ProtocolError):
            raise answer
        return answer


def analysis_of(text: str, value: str) -> Analysis:
    """An analysis of `text` that gives each region, and the sum, `value`."""
    position = Position.parse(text)
    regions = tuple(
        RegionValue(str(r.kind), len(r.squares), len(r.white), len(r.black), value, "0", "0")
        for r in position.regions()
    )
    return Analysis(text, regions, value)


def amazons(text: str) -> GameState[object]:
    return get_game("amazons").parse_state(text)


async def showing(pilot: Pilot[None], panel: AnalysisPanel, words: str) -> None:
    await until(pilot, lambda: words in panel.text, f"{words!r} in the panel")


def territory(position: Position) -> tuple[int, int, int]:
    """Empty squares White reaches first by queen moves, Black first, both alike."""
    board, _, amazon_squares, meta, _ = position.arrays()
    near = [np.empty(board.shape[0], dtype=np.int64) for _ in range(2)]
    for side in Side:
        queen_distance(board, amazon_squares, meta, int(side), near[side])
    white, black = near
    empty = [i for i in range(board.shape[0]) if board[i] == 0]
    return (
        sum(1 for i in empty if white[i] < black[i]),
        sum(1 for i in empty if black[i] < white[i]),
        sum(1 for i in empty if white[i] == black[i] < UNREACHABLE),
    )


@pytest.mark.asyncio
async def test_the_notes_and_the_values_of_a_small_endgame_are_the_engines() -> None:
    position = Position.parse(SMALL)
    expected = analyze(position)  # also compiles the kernels the child process loads
    analyst = ChildAnalyst()
    app = PanelHost("amazons", analyst)
    try:
        async with app.run_test(size=(60, 40)) as pilot:
            app.panel.show(amazons(SMALL))
            await pilot.pause()
            notes = app.panel.text.splitlines()
            white_moves = Position.parse(SMALL.replace(" b", " w")).count_moves()
            assert f"Mobility   ○ {white_moves}  ● {position.count_moves()}" in notes
            assert "Territory  ○ {}  ● {}  tied {}".format(*territory(position)) in notes
            kinds = [r.kind for r in position.regions()]
            assert kinds.count(RegionKind.SETTLED) == 2
            assert "1 contested, 2 settled:" in notes
            assert notes[0] == "Analysing..."

            await showing(pilot, app.panel, "Sum")
            lines = app.panel.text.splitlines()
            rows = [line.split() for line in lines if line.startswith(("settled", "contested"))]
            assert [(row[0], int(row[1]), row[-1]) for row in rows] == [
                (str(r.region.kind), len(r.region.squares), str(r.value)) for r in expected.regions
            ]
            assert f"Sum {expected.total} (positive favours black)" in lines
            for side in (Side.BLACK, Side.WHITE):
                line = f"{str(side).capitalize()} moving first: {expected.winner(side)} wins"
                assert line in lines
            assert expected.best_moves
            assert "  " + " ".join(str(m) for m in expected.best_moves) in lines
    finally:
        analyst.close()


@pytest.mark.asyncio
async def test_a_busy_analyst_is_asked_again() -> None:
    busy = ProtocolError(ErrorCode.UNAVAILABLE, "the analysis engine is busy", retry_after=1)
    analyst = Scripted({SMALL: [busy, analysis_of(SMALL, "*")]})
    app = PanelHost("amazons", analyst)
    async with app.run_test(size=(60, 40)) as pilot:
        app.panel.show(amazons(SMALL))
        await showing(pilot, app.panel, "analysis busy, retrying")
        await showing(pilot, app.panel, "Sum * (positive favours black)")
        assert analyst.asked == [SMALL, SMALL]


@pytest.mark.asyncio
async def test_a_refusal_is_one_line() -> None:
    refusal = ProtocolError(ErrorCode.UNAVAILABLE, "analysis covers Amazons only")
    app = PanelHost("amazons", Scripted({SMALL: [refusal]}))
    async with app.run_test(size=(60, 40)) as pilot:
        app.panel.show(amazons(SMALL))
        await showing(pilot, app.panel, "No analysis: analysis covers Amazons only")
        assert app.panel.text.splitlines()[0] == "No analysis: analysis covers Amazons only"


@pytest.mark.asyncio
async def test_an_answer_for_a_position_no_longer_shown_is_dropped() -> None:
    later = SMALL.replace(" b", " w")
    analyst = Scripted({SMALL: [analysis_of(SMALL, "5")], later: [analysis_of(later, "-7")]})
    analyst.gate = asyncio.Event()
    app = PanelHost("amazons", analyst)
    async with app.run_test(size=(60, 40)) as pilot:
        app.panel.show(amazons(SMALL))
        await until(pilot, lambda: analyst.asked == [SMALL], "the first question")
        app.panel.show(amazons(later))
        await until(pilot, lambda: analyst.asked == [SMALL, later], "the second question")
        analyst.gate.set()
        await showing(pilot, app.panel, "Sum -7")
        await pilot.pause(0.3)
        assert "Sum 5" not in app.panel.text
        assert "Sum -7 (positive favours black)" in app.panel.text


@pytest.mark.asyncio
async def test_stepping_through_positions_asks_only_where_the_user_stops() -> None:
    analyst = Scripted({SMALL: [analysis_of(SMALL, "0")]})
    app = PanelHost("amazons", analyst)
    async with app.run_test(size=(60, 40)) as pilot:
        for setup in ("10x10", "6x6"):
            app.panel.show(get_game("amazons").new_state(setup))
        app.panel.show(amazons(SMALL))
        await showing(pilot, app.panel, "Sum 0")
        assert analyst.asked == [SMALL]


@pytest.mark.asyncio
async def test_a_game_without_analysis_says_so() -> None:
    analyst = Scripted({})
    app = PanelHost("takeaway", analyst)
    async with app.run_test(size=(60, 20)) as pilot:
        app.panel.show(get_game("takeaway").new_state("10"))
        await pilot.pause(0.5)
        assert app.panel.text == "There is no analysis of takeaway positions."
        assert analyst.asked == []


class PanelScreen(Screen[None]):
    def __init__(self, panel: AnalysisPanel) -> None:
        super().__init__()
        self.panel = panel

    def compose(self) -> ComposeResult:
        yield self.panel


@pytest.mark.asyncio
async def test_an_answer_that_comes_as_the_screen_closes_is_dropped() -> None:
    """The analyst answers busy while the panel's screen is being taken down: its text is gone
    by then, and the answer changes nothing (it used to fail the app)."""

    class Late:
        asked = asyncio.Event()

        async def analyze(self, text: str, game: str) -> Analysis:
            self.asked.set()
            while panel.query("#analysis-text"):  # until the screen's removal takes the text
                await asyncio.sleep(0)
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the analysis engine is busy", retry_after=1)

    analyst = Late()
    panel = AnalysisPanel("amazons", analyst, id="analysis")
    app: App[None] = App()
    async with app.run_test(size=(60, 40)) as pilot:
        await app.push_screen(PanelScreen(panel))
        panel.show(amazons(SMALL))
        await until(pilot, analyst.asked.is_set, "the question")
        app.pop_screen()
        await until(pilot, lambda: not panel.is_attached, "the panel taken down")
        await pilot.pause(0.1)


@pytest.mark.asyncio
async def test_a_hot_sum_s_thermograph_is_drawn_under_it() -> None:
    analyst = Scripted({SMALL: [analysis_of(SMALL, "{2|-1}")], "W3 b": [analysis_of("W3 b", "*")]})
    app = PanelHost("amazons", analyst)
    async with app.run_test(size=(70, 60)) as pilot:
        app.panel.show(amazons(SMALL))
        await showing(pilot, app.panel, "Thermograph of the sum:")
        lines = app.panel.text.splitlines()
        start = lines.index("Thermograph of the sum:")
        # Two rows a unit: the walls from the stops 2 and -1 meet at t = 3/2 over the mean 1/2.
        assert lines[start + 1 : start + 10] == [
            "     |     t = 5/2",
            "     |",
            "     |     t = 3/2 (temperature)",
            "    / \\",
            "   /   \\",
            "  /     \\  t = 0",
            "----------",
            "  ^  ^  ^",
            "Thermograph of {2|-1}: left stop 2, mean 1/2, right stop -1, temperature 3/2",
        ]
        # A sum that is an infinitesimal (or a number) is a bare mast: no drawing.
        app.panel.show(amazons("W3 b"))
        await showing(pilot, app.panel, "Sum * ")
        assert "Thermograph of the sum:" not in app.panel.text


class ByPly(Scripted):
    """A scripted analyst that knows the server's games: asked by game and ply."""

    def __init__(self, answers: dict[str, list[Analysis | ProtocolError]]) -> None:
        super().__init__(answers)
        self.plies: list[tuple[str, int]] = []

    async def analyze_ply(self, game_id: str, ply: int) -> Analysis:
        self.plies.append((game_id, ply))
        return await self.analyze(f"{game_id}:{ply}", "amazons")

    async def review(self, game_id: str) -> GameAnalysis:
        raise AssertionError("not asked in these tests")


def judged(text: str, ply: int | None = None, **fields: object) -> Analysis:
    """A judgement of `text` (of the game's ply `ply`), with `fields`."""
    return replace(analysis_of(text, "?"), ply=ply, **fields)  # type: ignore[arg-type]


class JudgedHost(PanelHost):
    """The panel alone, keeping the judgements it posts."""

    def __init__(self, game: str, analyst: Analyst, **options: object) -> None:
        App.__init__(self)
        self.panel = AnalysisPanel(game, analyst, id="analysis", **options)  # type: ignore[arg-type]
        self.judged: list[Analysis | None] = []

    def on_analysis_panel_judged(self, message: AnalysisPanel.Judged) -> None:
        self.judged.append(message.analysis)


@pytest.mark.asyncio
async def test_the_engines_judgement_comes_over_the_notes() -> None:
    line = ("d1-d2/e1", "a1-b1/a1")
    answer = judged(SMALL, white_wins=640, line=line, playouts=12000, note="not solved: big")
    app = JudgedHost("amazons", Scripted({SMALL: [answer]}))
    async with app.run_test(size=(60, 40)) as pilot:
        app.panel.show(amazons(SMALL))
        await showing(pilot, app.panel, "White 64%")
        lines = app.panel.text.splitlines()
        assert lines[:4] == [
            "White 64%  (12,000 playouts)",
            "○ " + "█" * 15 + "░" * 9 + " ●",
            "Best line: d1-d2/e1 a1-b1/a1",
            "not solved: big",
        ]
        assert "Evaluation" in app.panel.text  # the notes follow
        # The sum not found is not written as "?": the note says why.
        assert "Sum" not in app.panel.text
        assert "not found within" not in app.panel.text
        await until(pilot, lambda: app.judged[-1:] == [answer], "the judgement posted")


@pytest.mark.asyncio
async def test_an_exact_judgement_says_the_winner_and_the_sum() -> None:
    answer = replace(
        judged(SMALL, white_wins=0, exact=True, depth=9, note="exact: Black wins moving first"),
        sum="2",
    )
    app = PanelHost("amazons", Scripted({SMALL: [answer]}))
    async with app.run_test(size=(60, 40)) as pilot:
        app.panel.show(amazons(SMALL))
        await showing(pilot, app.panel, "Black wins (exact)")
        lines = app.panel.text.splitlines()
        assert lines[0] == "Black wins (exact)  (depth 9)"
        assert lines[1] == "○ " + "░" * 24 + " ●"
        assert lines[2] == "Exact: sum 2; exact: Black wins moving first"


@pytest.mark.asyncio
async def test_a_live_game_is_asked_by_ply_and_a_busy_analyst_once_more() -> None:
    busy = ProtocolError(ErrorCode.UNAVAILABLE, "too many positions wait", retry_after=1)
    analyst = ByPly({"g1:4": [busy, busy]})
    app = PanelHost("amazons", analyst)
    app.panel = AnalysisPanel("amazons", analyst, game_id="g1", live=True, id="analysis")
    async with app.run_test(size=(60, 40)) as pilot:
        app.panel.show(amazons(SMALL), 4)
        await showing(pilot, app.panel, "analysis busy, retrying")
        await showing(pilot, app.panel, "No analysis: the analyst stayed busy")
        assert analyst.plies == [("g1", 4), ("g1", 4)]


@pytest.mark.asyncio
async def test_an_answer_about_another_ply_is_dropped() -> None:
    analyst = ByPly({"g1:4": [judged(SMALL, ply=3, white_wins=900)]})
    app = PanelHost("amazons", analyst)
    app.panel = AnalysisPanel("amazons", analyst, game_id="g1", live=True, id="analysis")
    async with app.run_test(size=(60, 40)) as pilot:
        app.panel.show(amazons(SMALL), 4)
        await until(pilot, lambda: analyst.plies == [("g1", 4)], "the question")
        await pilot.pause(0.3)
        assert "White 90%" not in app.panel.text
        assert app.panel.text.startswith("Analysing...")


@pytest.mark.asyncio
async def test_a_bao_position_gets_the_judgement_alone() -> None:
    state = get_game("bao").new_state(get_game("bao").info.setups[0])
    text = state.text()
    analyst = Scripted({text: [judged(SMALL, white_wins=420, line=("A3L",), playouts=800)]})
    app = PanelHost("bao", analyst)
    async with app.run_test(size=(60, 20)) as pilot:
        app.panel.show(state)
        await showing(pilot, app.panel, "Black 58%")
        assert app.panel.text.splitlines() == [
            "Black 58%  (800 playouts)",
            "○ " + "█" * 10 + "░" * 14 + " ●",
            "Best line: A3L",
        ]

"""The lobby's forms, one modal screen for the four ways to find a game: a seek, a house bot,
a named user, quick pairing. Every choice comes from the server's offers; the form returns the
request to send (None when cancelled), and given the last one sent by the same form, opens with
its choices."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select

from clients.tui.labels import TimeControlError, parse_time, time_text
from server.protocol import (
    Challenge,
    ColourPreference,
    GameOffers,
    QuickPair,
    Request,
    Seek,
    TimeControl,
)

__all__ = ["OfferForm", "Offering"]

DEFAULT_TIME = TimeControl(300, 3)  # suggested when the server offers it: 5 minutes + 3 s
DEFAULT_STRENGTH = 5  # the server's default for a house bot


class Offering(StrEnum):
    """What a form asks for."""

    SEEK = "seek"
    HOUSE_BOT = "house bot"
    USER = "user"
    QUICK_PAIR = "quick pair"


TITLES = {
    Offering.SEEK: "New seek",
    Offering.HOUSE_BOT: "Play a house bot",
    Offering.USER: "Challenge a user",
    Offering.QUICK_PAIR: "Quick pairing",
}


class OfferForm(ModalScreen[Request | None]):
    """A small form; Enter on a field or the button sends it, Escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "send", "Send"),
    ]

    def __init__(
        self,
        offering: Offering,
        games: tuple[GameOffers, ...],
        preparing: Iterable[str] = (),
        last: Request | None = None,
    ) -> None:
        """`preparing`: the house bots the server is still preparing, marked so in the list.
        `last`: the request this form sent last, whose choices it starts with."""
        if offering is Offering.HOUSE_BOT:
            games = tuple(offers for offers in games if offers.house_bots)
        if not games:
            raise ValueError(f"the server offers no game to play by {offering.value}")
        super().__init__()
        self.offering = offering
        self.games = {offers.game: offers for offers in games}
        self.preparing = frozenset(preparing)
        self.last = last if isinstance(last, Challenge | Seek | QuickPair) else None
        if self.last is not None and self.last.game not in self.games:
            self.last = None

    def compose(self) -> ComposeResult:
        last = self.last
        first = self.games[last.game] if last else next(iter(self.games.values()))
        # The game shown, so that choosing it again (or its first showing) keeps the choices.
        self._game = first.game
        kind = self.offering
        setup = last.setup if last and last.setup in first.setups else first.default_setup
        time = time_text(last.time) if last else _suggested_time(first)
        colour = ColourPreference.RANDOM
        if isinstance(last, Challenge | Seek):
            colour = last.colour
        bot, strength = None, DEFAULT_STRENGTH
        if isinstance(last, Challenge) and last.opponent in first.house_bots:
            bot, strength = last.opponent, last.strength or DEFAULT_STRENGTH
        with VerticalScroll(id="form"):
            yield Label(TITLES[kind], id="form-title")
            with Grid(id="form-fields"):
                if kind is Offering.USER:
                    yield Label("Opponent")
                    opponent = last.opponent if isinstance(last, Challenge) else ""
                    yield Input(opponent, placeholder="user name", id="opponent", compact=True)
                yield Label("Game")
                yield Select(
                    [(name, name) for name in self.games],
                    value=first.game,
                    allow_blank=False,
                    compact=True,
                    id="game",
                )
                if kind is Offering.HOUSE_BOT:
                    yield Label("Bot")
                    bots = _bots(first, self.preparing)
                    yield Select(
                        bots, value=bot or bots[0][1], allow_blank=False, compact=True, id="bot"
                    )
                    yield Label("Strength")
                    yield Select(
                        [(f"{n}", n) for n in range(1, 11)],
                        value=strength,
                        allow_blank=False,
                        compact=True,
                        id="strength",
                    )
                yield Label("Setup")
                yield Select(
                    _setups(first),
                    value=setup,
                    allow_blank=False,
                    compact=True,
                    id="setup",
                )
                yield Label("Time (min+s)")
                yield Input(time, id="time", compact=True)
                yield Label("Rated")
                rated = Checkbox(
                    "rated (accounts only)", last is not None and last.rated, id="rated"
                )
                if getattr(self.app, "ascii", False):  # `arena play --ascii`
                    rated.BUTTON_LEFT, rated.BUTTON_RIGHT = "[", "]"
                yield rated
                if kind is not Offering.QUICK_PAIR:
                    yield Label("Colour")
                    yield Select(
                        [(c.value, c) for c in ColourPreference],
                        value=colour,
                        allow_blank=False,
                        compact=True,
                        id="colour",
                    )
            yield Label("", id="form-error")
            with Horizontal(id="form-buttons"):
                yield Button("Send", variant="primary", id="send")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        # The field a person changes first: whom to play, else the board.
        first = {Offering.USER: "#opponent", Offering.HOUSE_BOT: "#bot"}
        self.query_one(first.get(self.offering, "#setup")).focus()

    @on(Select.Changed, "#game")
    def _game_chosen(self, event: Select.Changed) -> None:
        if event.value == self._game:
            return
        self._game = str(event.value)
        offers = self.games[self._game]
        setup = self.query_one("#setup", Select)
        setup.set_options(_setups(offers))
        setup.value = offers.default_setup
        if self.offering is Offering.HOUSE_BOT:
            self.query_one("#bot", Select).set_options(_bots(offers, self.preparing))
        self.query_one("#time", Input).value = _suggested_time(offers)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#send")
    @on(Input.Submitted)
    def action_send(self) -> None:
        try:
            request = self._request()
        except ValueError as error:
            self.query_one("#form-error", Label).update(str(error))
            return
        self.dismiss(request)

    def _request(self) -> Request:
        offers = self.games[str(self.query_one("#game", Select).value)]
        setup = str(self.query_one("#setup", Select).value)
        try:
            time = parse_time(self.query_one("#time", Input).value, offers)
        except TimeControlError as error:
            self.query_one("#time", Input).focus()
            raise error
        kind = self.offering
        rated = self.query_one("#rated", Checkbox).value
        if kind is Offering.HOUSE_BOT:
            bot = self.query_one("#bot", Select).value
            strength = self.query_one("#strength", Select).value
            return Challenge(
                str(bot),
                time,
                setup,
                rated,
                colour=self._colour(),
                strength=int(str(strength)),
                game=offers.game,
            )
        if kind is Offering.QUICK_PAIR:
            return QuickPair(time, setup, rated, game=offers.game)
        if kind is Offering.SEEK:
            return Seek(time, setup, rated, self._colour(), game=offers.game)
        opponent = self.query_one("#opponent", Input).value.strip()
        if not opponent:
            self.query_one("#opponent", Input).focus()
            raise ValueError("whom? type the user name of your opponent")
        return Challenge(opponent, time, setup, rated, self._colour(), game=offers.game)

    def _colour(self) -> ColourPreference:
        return ColourPreference(str(self.query_one("#colour", Select).value))


def _setups(offers: GameOffers) -> list[tuple[str, str]]:
    return [(setup, setup) for setup in offers.setups]


def _bots(offers: GameOffers, preparing: frozenset[str]) -> list[tuple[str, str]]:
    """The house bots, `greedy (preparing)` for one not ready yet: a challenge to it waits."""
    return [(f"{bot} (preparing)" if bot in preparing else bot, bot) for bot in offers.house_bots]


def _suggested_time(offers: GameOffers) -> str:
    """DEFAULT_TIME when offered, else the first listed, else the shortest base offered."""
    try:
        return time_text(parse_time(time_text(DEFAULT_TIME), offers))
    except TimeControlError:
        pass
    if offers.time_controls:
        return time_text(offers.time_controls[0])
    return time_text(TimeControl(offers.min_base, 0))

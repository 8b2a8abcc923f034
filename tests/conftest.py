"""Settings every test shares."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.game import register
from tests.games.takeaway import TAKEAWAY


@pytest.fixture(autouse=True)
def no_endgame_database(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Bots look for an endgame database at $ARENA_ENDGAME_DB or ./.arena: point it at a
    file that is not there, so one built in the checkout does not change what tests see.
    Tests of the database set it themselves."""
    monkeypatch.setenv("ARENA_ENDGAME_DB", str(tmp_path / "no-endgame.sqlite"))


# A second game, registered here only, so every layer is tested on a game other than Amazons.
register(TAKEAWAY)

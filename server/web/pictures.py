"""The server's pictures. `GET /game/ID.svg?ply=K`: a picture to share of a game's position
after K moves (after the last one without `ply`), of any game the server holds, live or
finished, with its players, its coordinates and its last move marked (engine.picture); a game
that does not exist (or has no drawing) is 404 and a ply that is not one of the game's is 400.
`GET /thermograph.svg?value=V`: the thermograph of a combinatorial value as the analysis writes
them (engine.cgt.thermograph_drawing); a value that is not one is 400. Each refusal is one line.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from http import HTTPStatus
from typing import Protocol
from urllib.parse import parse_qs

from websockets.http11 import Request, Response

from engine.cgt.form import Form
from engine.cgt.thermograph_drawing import thermograph_svg
from engine.errors import NotationError
from engine.picture import NoPictureError, game_caption, game_svg
from server.protocol import ErrorCode, ProtocolError
from server.stored_game import StoredGame
from server.web.site import CONTENT_TYPES, Asset, refusal, served

__all__ = ["PICTURE_PATH", "THERMOGRAPH_PATH", "Games", "respond"]

# A game's id as the protocol has it (1..32 of these characters), and .svg.
PICTURE_PATH = re.compile(r"/game/([A-Za-z0-9_-]{1,32})\.svg")
THERMOGRAPH_PATH = "/thermograph.svg"
# A value as the analysis writes a region's (CGSuite's notation of one canonical form, no longer
# than the protocol carries), never a sum or a difference: those the reader would add up, and a
# sum of a few small games can be a very large one.
VALUE = re.compile(r"[0-9/{}|,*^v()+-]{1,4096}")
BINARY = re.compile(r"[0-9}*^v)][+-]")  # a sign after a term adds or takes away
# An SVG opened on its own is a document: it may run nothing and fetch nothing.
SECURITY = "default-src 'none'; frame-ancestors 'none'"


# The pictures drawn last, by game and ply. A ply's picture never changes once the ply is
# played (no move is taken back, and the caption says nothing of later moves), so a link shared
# with many is drawn once in a process (a 76-ply 10x10 game takes about 5 ms to replay and draw).
KEPT = 256
_drawn: OrderedDict[tuple[str, int], Asset] = OrderedDict()


class Games(Protocol):
    """Where the games are read from (server.games.GameStore)."""

    async def load(self, game_id: str) -> StoredGame: ...


async def respond(games: Games, request: Request) -> Response | None:
    """The picture `request` asks for, a refusal naming what is wrong, or None when its path is
    not a picture's."""
    path, _, query = request.path.partition("?")
    if path == THERMOGRAPH_PATH:
        return _thermograph(request, parse_qs(query, keep_blank_values=True).get("value"))
    found = PICTURE_PATH.fullmatch(path)
    if found is None:
        return None
    game_id = found.group(1)
    asked = parse_qs(query, keep_blank_values=True).get("ply")
    if asked is not None and (len(asked) != 1 or not re.fullmatch(r"\d{1,4}", asked[0])):
        return refusal(HTTPStatus.BAD_REQUEST, f"ply must be one whole number, not {asked!r}")
    try:
        game = await games.load(game_id)
    except ProtocolError as error:
        if error.code is not ErrorCode.NOT_FOUND:
            raise
        return refusal(HTTPStatus.NOT_FOUND, f"no game {game_id}")
    ply = game.ply if asked is None else int(asked[0])
    if ply > game.ply:
        count = f"{game.ply} move{'s' if game.ply != 1 else ''}"
        return refusal(
            HTTPStatus.BAD_REQUEST,
            f"game {game_id} has {count}: there is no ply {ply} (0 to {game.ply})",
        )
    picture = _drawn.get((game_id, ply))
    if picture is None:
        caption = game_caption(game.white.name, game.black.name, game.moves, ply)
        try:
            drawn = game_svg(game.game, game.start, game.moves, ply, caption)
        except NoPictureError as error:
            return refusal(HTTPStatus.NOT_FOUND, str(error))
        picture = Asset.of(drawn.encode(), CONTENT_TYPES[".svg"])
        _drawn[game_id, ply] = picture
        while len(_drawn) > KEPT:
            _drawn.popitem(last=False)
    else:
        _drawn.move_to_end((game_id, ply))
    return served(picture, request, SECURITY)


def _thermograph(request: Request, asked: list[str] | None) -> Response:
    if asked is None or len(asked) != 1:
        return refusal(HTTPStatus.BAD_REQUEST, "value must be given once, as ?value=+-1")
    text = asked[0].replace(" ", "")
    if not VALUE.fullmatch(text) or BINARY.search(text):
        return refusal(
            HTTPStatus.BAD_REQUEST,
            f"{asked[0][:80]!r} is not a value as the analysis writes one ({{2|-1}}, +-1, ^*)",
        )
    try:
        game = Form.parse(text)
    except NotationError as error:
        return refusal(HTTPStatus.BAD_REQUEST, str(error))
    picture = thermograph_svg(game).encode()
    return served(Asset.of(picture, CONTENT_TYPES[".svg"]), request, SECURITY)

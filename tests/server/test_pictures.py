"""`GET /game/ID.svg?ply=K` on a real server: a picture of any position of an Amazons and a Bao
game, its last move marked, and one line of text with a 4xx for a game or ply that is not
there."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from clients import ArenaClient
from server.protocol import (
    AcceptSeek,
    ColourPreference,
    GameStarted,
    PlayMove,
    Seek,
    SeekAdded,
    TimeControl,
)
from server.web import pictures
from tests.server.endpoint import guest, serving, start_game

SVG = "{http://www.w3.org/2000/svg}"


@pytest_asyncio.fixture
async def url(redis_url: str) -> AsyncIterator[str]:
    async with serving(redis_url) as url:
        yield url


def _get(url: str, path: str, tag: str | None) -> tuple[int, dict[str, str], bytes]:
    headers = {} if tag is None else {"If-None-Match": tag}
    request = urllib.request.Request(url.replace("ws://", "http://") + path, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, dict(reply.headers), reply.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


async def get(url: str, path: str, tag: str | None = None) -> tuple[int, dict[str, str], bytes]:
    return await asyncio.to_thread(_get, url, path, tag)


async def played(url: str, game: str, moves: list[str]) -> str:
    """A game of `game` between two guests (the first White) with `moves` played; its id."""
    a, b = await guest(url), await guest(url)
    seek = Seek(TimeControl(300, 0), game=game, colour=ColourPreference.WHITE)
    added = await a.request(seek, SeekAdded)
    started = await b.request(AcceptSeek(added.seek.seek_id), GameStarted)
    game_id = started.game_id
    await a.wait_for(lambda c: game_id in c.games)
    for ply, text in enumerate(moves):
        mover = a if ply % 2 == 0 else b

        def reached(client: ArenaClient, ply: int = ply) -> bool:
            return client.games[game_id].ply == ply

        await mover.wait_for(reached)
        await mover.request(PlayMove(game_id, ply, text))
    await a.wait_for(lambda c: c.games[game_id].ply == len(moves))
    await a.close()
    await b.close()
    return game_id


def having(root: ET.Element, kind: str) -> list[ET.Element]:
    return [e for e in root.iter() if kind in (e.get("class") or "").split()]


def caption(root: ET.Element) -> str:
    (found,) = having(root, "caption")
    return found.text or ""


@pytest.mark.asyncio
async def test_an_amazons_game_s_positions(url: str) -> None:
    game_id = await played(url, "amazons", ["d1-d5/f5", "a7-b6/a7"])
    status, headers, body = await get(url, f"/game/{game_id}.svg?ply=1")
    assert status == 200
    assert headers["Content-Type"] == "image/svg+xml"
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    root = ET.fromstring(body)
    (queen,) = having(root, "queen")
    assert (queen.get("data-from"), queen.get("data-to")) == ("d1", "d5")
    assert [e.get("data-at") for e in having(root, "burnt")] == ["f5"]
    assert caption(root).endswith("· ply 1: d1-d5/f5")
    # Without a ply: the last position.
    root = ET.fromstring((await get(url, f"/game/{game_id}.svg"))[2])
    (queen,) = having(root, "queen")
    assert (queen.get("data-from"), queen.get("data-to")) == ("a7", "b6")
    assert sorted(e.get("data-at") or "" for e in having(root, "burnt")) == ["a7", "f5"]
    # The start: no move marked.
    root = ET.fromstring((await get(url, f"/game/{game_id}.svg?ply=0"))[2])
    assert not having(root, "last-move")
    assert caption(root).endswith("· the start")
    # Asked again with its tag: not modified, no body.
    tag = headers["ETag"]
    again = await get(url, f"/game/{game_id}.svg?ply=1", tag)
    assert (again[0], again[2]) == (304, b"")


@pytest.mark.asyncio
async def test_a_bao_game_s_positions(url: str) -> None:
    game_id = await played(url, "bao", ["A6>", "A7>"])
    status, _, body = await get(url, f"/game/{game_id}.svg?ply=1")
    assert status == 200
    root = ET.fromstring(body)
    (last,) = having(root, "last")
    assert (last.get("data-side"), last.get("data-pit")) == ("south", "A6")
    assert len(having(root, "pit")) == 32
    root = ET.fromstring((await get(url, f"/game/{game_id}.svg?ply=2"))[2])
    (last,) = having(root, "last")
    assert (last.get("data-side"), last.get("data-pit")) == ("north", "A7")
    assert caption(root).endswith("· ply 2: A7>")


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("query", "status", "line"),
    [
        ("?ply=3", 400, "game {id} has 2 moves: there is no ply 3 (0 to 2)"),
        ("?ply=-1", 400, "ply must be one whole number, not ['-1']"),
        ("?ply=x", 400, "ply must be one whole number, not ['x']"),
        ("?ply=1&ply=2", 400, "ply must be one whole number, not ['1', '2']"),
    ],
)
async def test_a_ply_not_in_the_game_is_400_in_one_line(
    url: str, query: str, status: int, line: str
) -> None:
    game_id = await played(url, "amazons", ["d1-d5/f5", "a7-b6/a7"])
    answer = await get(url, f"/game/{game_id}.svg{query}")
    assert answer[0] == status
    assert answer[1]["Content-Type"] == "text/plain; charset=utf-8"
    assert answer[2].decode() == line.format(id=game_id) + "\n"


@pytest.mark.asyncio
async def test_a_game_that_does_not_exist_is_404_in_one_line(url: str) -> None:
    status, headers, body = await get(url, "/game/nosuchgame.svg?ply=0")
    assert (status, body) == (404, b"no game nosuchgame\n")
    assert headers["Content-Type"] == "text/plain; charset=utf-8"
    # A path that is not a game's picture is the site's.
    assert (await get(url, "/game/a.b.svg"))[:3:2] == (404, b"not found\n")


@pytest.mark.asyncio
async def test_a_ply_s_picture_stays_the_same_as_the_game_goes_on(url: str) -> None:
    """The picture of a ply played is the same later in the game (its tag too), so a link
    shared keeps showing what it showed, and each process draws it once."""
    white, black, game_id = await start_game(url, setup="6x6")
    await white.request(PlayMove(game_id, 0, "b1-b3/d3"))
    first = await get(url, f"/game/{game_id}.svg?ply=1")
    assert first[0] == 200
    assert (game_id, 1) in pictures._drawn
    await black.wait_for(lambda c: c.games[game_id].ply == 1)
    await black.request(PlayMove(game_id, 1, "a5-a3/a4"))
    later = await get(url, f"/game/{game_id}.svg?ply=1")
    assert later[2] == first[2]
    assert later[1]["ETag"] == first[1]["ETag"]
    assert (await get(url, f"/game/{game_id}.svg?ply=1", first[1]["ETag"]))[0] == 304
    await white.close()
    await black.close()


@pytest.mark.asyncio
async def test_a_value_s_thermograph(url: str) -> None:
    status, headers, body = await get(url, "/thermograph.svg?value=%7B2%7C-1%7D")
    assert (status, headers["Content-Type"]) == (200, "image/svg+xml")
    root = ET.fromstring(body)
    (left,) = having(root, "left-wall")
    (right,) = having(root, "right-wall")
    assert (left.get("data-knots"), right.get("data-knots")) == ("0,2 3/2,1/2", "0,-1 3/2,1/2")


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("query", "line"),
    [
        ("", "value must be given once, as ?value=+-1"),
        ("?value=1&value=2", "value must be given once, as ?value=+-1"),
        ("?value=1%2B1", "'1+1' is not a value as the analysis writes one ({2|-1}, +-1, ^*)"),
        ("?value=3-%7B1%7C0%7D", "'3-{1|0}' is not a value as the analysis writes one"),
        ("?value=%2B-1%2B-2", "'+-1+-2' is not a value as the analysis writes one"),
        ("?value=%7B2%7C", "expected '}', found the end at column 4 of game text '{2|'"),
        ("?value=1/3", "1/3 is not a dyadic rational"),
    ],
)
async def test_what_is_not_a_value_is_400_in_one_line(url: str, query: str, line: str) -> None:
    status, _, body = await get(url, f"/thermograph.svg{query}")
    assert status == 400
    assert body.decode().startswith(line)
    assert body.decode().count("\n") == 1


@pytest.mark.asyncio
async def test_a_game_without_a_drawing_is_404_in_one_line(url: str) -> None:
    game_id = await played(url, "takeaway", ["2"])
    status, _, body = await get(url, f"/game/{game_id}.svg")
    assert (status, body) == (404, b"there is no picture of a takeaway board\n")

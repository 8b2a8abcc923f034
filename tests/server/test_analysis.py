"""The analysis a server gives covers Amazons only: other games and bad positions are refused
with a message that says why, before the engine's process is asked anything."""

import pytest

from server.analysis import Analyst
from server.protocol import ErrorCode, ProtocolError


@pytest.mark.asyncio
async def test_analysis_of_another_game_is_refused_plainly() -> None:
    analyst = Analyst()
    try:
        with pytest.raises(ProtocolError) as refused:
            await analyst.analyze("21 w", game="takeaway")
        assert refused.value.code is ErrorCode.UNAVAILABLE
        assert str(refused.value) == "analysis covers Amazons only; there is none for takeaway"
        with pytest.raises(ProtocolError) as bad:
            await analyst.analyze("3Q2 w")
        assert bad.value.code is ErrorCode.BAD_FIELD
        assert bad.value.field == "position"
    finally:
        analyst.close()

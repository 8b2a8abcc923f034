"""A signed-in person's own account, served over the protocol: the requests a human account
(not a guest, not a bot) sends to change its password.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.protocol.limits import Password
from server.protocol.message import Request

__all__ = ["ChangePassword"]


@dataclass(frozen=True)
class ChangePassword(Request, tag="change_password"):
    """Replace the signed-in person's password `old` with `new` (held to sign-up's rules); every
    other session of the account ends, its connections closed. Reply `ok`."""

    old: Password
    new: Password

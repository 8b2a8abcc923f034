"""The terminal driver the client runs on: Textual's own for the platform, with the alternate
screen cleared just before the client leaves it. When its window has grown while an app had
the alternate screen, tmux (3.3a) keeps lines of that screen above the shell's as the app leaves
it, so the client's last frame stayed in the terminal after Ctrl-Q (as it does for any Textual
app, whose driver leaves the alternate screen as it stands). A blank alternate screen leaves
nothing behind; leaving it still brings back the shell's screen as before.
"""

from __future__ import annotations

from typing import Final

from textual.drivers.linux_driver import LinuxDriver

__all__ = ["ClearingDriver"]

CLEAR: Final = "\x1b[H\x1b[2J"  # cursor home, erase the whole screen


class ClearingDriver(LinuxDriver):
    """Textual's POSIX driver, which clears the alternate screen before leaving it."""

    def stop_application_mode(self) -> None:
        self.write(CLEAR)
        super().stop_application_mode()

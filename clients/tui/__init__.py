"""The terminal client, on Textual: `ArenaApp` (`app.py`) and its screens, signing in
(`signin.py`), the lobby (`lobby.py`) and its forms (`forms.py`), the keys (`help.py`); one board
widget per game behind one interface (`board.py`); the review of a finished game (`review.py`)
and the analysis panel (`analysis.py`); styles in `.tcss` files. It sees the server
only through the client core and its transport.
"""

from clients.tui.app import ArenaApp

__all__ = ["ArenaApp"]

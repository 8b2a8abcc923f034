"""The web client that `arena serve` serves on its websocket port: its files (`static/`, ES
modules and one stylesheet, no build step), the responses that carry them (`site.py`), and
which pages' origins may open the websocket (`origins.py`)."""

from server.web.origins import Origins
from server.web.site import Site

__all__ = ["Origins", "Site"]

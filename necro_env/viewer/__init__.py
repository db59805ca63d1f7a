"""See the games: an HTML replay viewer and an evaluation report (self-contained pages, no network).

* ``write_viewer(record, path)`` / ``necro-env replay FILE --html OUT.html``: watch one recorded game.
* ``write_report(summary, path, ...)`` / ``necro-env evaluate ... --report OUT.html``: an evaluation at a glance.

Board positions come from ``layouts.json`` (``layout.load_layout``); colours from ``palette``.
The rules engine never imports this package.
"""
from .page import viewer_html, write_viewer

__all__ = ["viewer_html", "write_viewer"]

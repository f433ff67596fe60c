"""The web viewer: lobby, live tables, replays and tournament standings in a browser.

An aiohttp application (:mod:`tricktable.web.app`) that runs in the game server's
event loop (``tricktable serve --http-port``) or on its own over files
(``tricktable view FILE``). It reads what the server already has: live
tables through the spectators' view and event log (the same ones the
Spectate stream sends, :mod:`tricktable.server.visibility`), stored records, and the
tournament tables of the database. The pages are plain HTML, CSS and
JavaScript shipped in ``web/static``; nothing is loaded from elsewhere.
"""

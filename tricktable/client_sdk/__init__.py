"""The Tricktable Python SDK: the bot runner (the wire types and conversion live in :mod:`protocol`).

- :mod:`tricktable.client_sdk.runner` — ``run_bot`` / ``seek_and_run``: connect, join, play, reconnect.
- :mod:`tricktable.client_sdk.mux` — ``play_seats_async`` / ``SeatMultiplexer``: many seats over one PlayMany call.
- :mod:`tricktable.client_sdk.bot` — the bot protocol.
- :mod:`tricktable.client_sdk.errors` — the SDK's typed errors.
"""

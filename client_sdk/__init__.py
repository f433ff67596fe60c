"""The Tricktable Python SDK: generated protocol code, the rules<->proto conversion, and the bot runner.

- :mod:`client_sdk.generated` — code generated from ``protos/tricktable/v1`` (``make protos``).
- :mod:`client_sdk.convert` — the one conversion module between rules objects and proto messages.
- :mod:`client_sdk.runner` — ``run_bot`` / ``seek_and_run``: connect, join, play, reconnect.
"""

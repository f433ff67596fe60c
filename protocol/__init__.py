"""The protocol's Python side, shared by the server and the SDK (neither hosts the other's wire types).

- :mod:`protocol.generated` — code generated from ``protos/tricktable/v1`` (``make protos``).
- :mod:`protocol.convert` — the one conversion between rules objects and proto messages.
- :mod:`protocol.reasons` — the in-band rejection reasons.

It imports only :mod:`rules` and the generated code.
"""

"""The protocol's Python side, shared by the server and the SDK (neither hosts the other's wire types).

- :mod:`tricktable.protocol.generated` — code generated from ``protos/tricktable/v1`` (``make protos``).
- :mod:`tricktable.protocol.convert` — the one conversion between rules objects and proto messages.
- :mod:`tricktable.protocol.reasons` — the in-band rejection reasons.

It imports only :mod:`rules` and the generated code.
"""

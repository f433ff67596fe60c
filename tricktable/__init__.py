"""Tricktable: an authoritative gRPC server, a Python SDK, bots and tournaments for trick-taking card games.

Everything installs under this one name (``tricktable.rules``, ``tricktable.client_sdk``, ...), and every
file lives in this folder at its real path.
"""

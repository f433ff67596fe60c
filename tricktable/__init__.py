"""Tricktable: an authoritative gRPC server, a Python SDK, bots and tournaments for trick-taking card games.

Everything installs under this one name (``tricktable.rules``, ``tricktable.client_sdk``, ...). In the
repository each subpackage is a symlink to its top-level folder (``tricktable/rules -> ../rules``), so the
folders keep their place and history while every tool sees one module name per file.
"""

"""Tricktable's pure rules engine: standard library only, deterministic, no I/O.

Shuffling is an input (:mod:`tricktable.rules.shuffle`), so replaying a game is applying
its history again. Start with :func:`tricktable.rules.registry.new_match`.
"""

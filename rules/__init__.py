"""Tricktable's pure rules engine: standard library only, deterministic, no I/O.

Shuffling is an input (:mod:`rules.shuffle`), so replaying a game is applying
its history again. Start with :func:`rules.registry.new_match`.
"""

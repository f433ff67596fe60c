"""Playout fast paths: compact, mutable game states for simulation.

The readable engine (``rules.spoil_five`` and friends) is immutable, checked
and explains every refusal; that is what the server and records use. Search
bots need many thousands of simulated deals per decision, so this package
keeps a second, compact representation of the same rules: hands as bit sets
(``int``), precomputed rank tables per trump suit, actions as small
integers, one mutable state with ``legal_actions()``, ``apply()``,
``clone()`` and ``random_playout()``.

``tests/rules/test_fast_agrees.py`` plays many random games through both
paths and requires them to agree move for move (legal actions, trick
winners, points, scores, end of game), so the fast path is a tested second
implementation of rules.md, not a shortcut around it.
"""

from __future__ import annotations

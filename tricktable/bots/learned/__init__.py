"""The learned reference bot: a small network trained to choose as the search does, at the heuristic's speed.

``learned`` in :data:`tricktable.bots.BOTS`. Its network (:mod:`tricktable.bots.learned.network`) reads
the seat's view in the learners' fixed-size encoding (:mod:`tricktable.envs.encoding`), which game it is,
and the heuristic's choice, and plays the legal action it scores highest: no search, no sampled worlds.
It was trained by imitation of the search bot on self-play deals of the four games
(:mod:`tricktable.bots.learned.train`, docs/strength.md says how and how strong). Playing needs NumPy
(``pip install 'tricktable[train]'``) and the weights file beside this module.
"""

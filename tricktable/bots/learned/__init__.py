"""The learned reference bot: the heuristic, departing where a small network predicts another action gains.

``learned`` in :data:`tricktable.bots.BOTS`. Its network (:mod:`tricktable.bots.learned.network`) reads
the seat's view in the learners' fixed-size encoding (:mod:`tricktable.envs.encoding`), which game it is,
and the heuristic's choice, and predicts each action's advantage over that choice against heuristic
play (it was trained on the true deals of heuristic self-play, each action played on by the heuristic:
:mod:`tricktable.bots.learned.labels`, :mod:`tricktable.bots.learned.train`; docs/strength.md says how
and how strong). It plays the heuristic's choice unless another's predicted advantage exceeds the
margin of the game and kind of decision: no search, no sampled worlds. Playing needs NumPy
(``pip install 'tricktable[train]'``) and the weights file beside this module.
"""

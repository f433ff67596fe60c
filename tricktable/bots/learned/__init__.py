"""The learned reference bot: the heuristic, departing where a small network predicts the search would gain.

``learned`` in :data:`tricktable.bots.BOTS`. Its network (:mod:`tricktable.bots.learned.network`) reads
the seat's view in the learners' fixed-size encoding (:mod:`tricktable.envs.encoding`), which game it is,
and the heuristic's choice, and predicts each action's advantage over that choice: how much more the
search values it (it was trained on heuristic play of the four games valued by the search,
:mod:`tricktable.bots.learned.train`; docs/strength.md says how and how strong). It plays the
heuristic's choice unless another's predicted advantage exceeds the game's margin: no search, no
sampled worlds. Playing needs NumPy
(``pip install 'tricktable[train]'``) and the weights file beside this module.
"""

"""The four games for learners: a fixed-size encoding of a seat's view and of its actions, a PettingZoo
environment and OpenSpiel games over it, and the bot that plays a policy trained there over the real server.

Optional: ``pip install '.[train]'`` (PettingZoo, Gymnasium, NumPy, OpenSpiel). The encoding itself
(:mod:`tricktable.envs.encoding`) is standard library only, so a trained policy plays without them.
"""

"""The four games for learners: a fixed-size encoding of a seat's view and of its actions, a PettingZoo
environment over it, and the bot that plays a policy trained there over the real server.

Optional: ``pip install '.[train]'`` (PettingZoo, Gymnasium, NumPy). The encoding itself
(:mod:`tricktable.envs.encoding`) is standard library only, so a trained policy plays without them.
"""

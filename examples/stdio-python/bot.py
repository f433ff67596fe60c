#!/usr/bin/env python3
"""A Tricktable bot in plain Python (standard library only): JSON lines in on stdin, answers out on stdout.

Every message is one JSON object on one line (docs/bots-any-language.md). This bot
answers each decision with a random legal action, seeded by TRICKTABLE_SEED so that
a game can be played again; put your own choice in choose().
"""

import json
import os
import random
import sys

rng = random.Random(os.environ.get("TRICKTABLE_SEED"))


def choose(decision):
    """The id of the action to play: here a random legal one. decision["view"] holds the hand, the trick..."""
    return rng.choice(decision["legal"])["id"]


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(f"playing {message['game']} in seat {message['seat']}", file=sys.stderr)
    elif message["type"] == "decision":
        answer = {"decision": message["decision"], "action": choose(message)}
        print(json.dumps(answer), flush=True)
    elif message["type"] == "error":
        print(f"my answer was refused: {message['message']}", file=sys.stderr)
    elif message["type"] == "end":
        break

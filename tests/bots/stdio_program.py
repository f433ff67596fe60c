"""A bot program on standard input/output that misbehaves as told: ``python stdio_program.py BEHAVIOUR``.

Behaviours: ``good`` (the first legal action), ``garbage`` (a line that is not JSON), ``illegal`` (an action
that is well written but not legal), ``unknown`` (no action's id), ``late:N`` (the first N answers after
3 s, each naming its decision), ``flood`` (256 KiB on stderr at each decision, then a good answer),
``exit:N`` (exits after N decisions), ``deaf`` (never reads its input), ``noted`` (a good answer with a
note and values).
"""

import json
import sys
import time

behaviour, _, count = sys.argv[1].partition(":")
limit = int(count or 0)
if behaviour == "deaf":
    time.sleep(600)
    sys.exit(0)
seen = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "end":
        break
    if message["type"] != "decision":
        continue
    seen += 1
    ids = [a["id"] for a in message["legal"]]
    answer = {"decision": message["decision"], "action": ids[0]}
    if behaviour == "garbage":
        print("this is not JSON", flush=True)
        continue
    if behaviour == "illegal":
        answer["action"] = next(f"play-{r}{s}" for r in "23456789TJQKA" for s in "CDHS" if f"play-{r}{s}" not in ids)
    elif behaviour == "unknown":
        answer["action"] = "fly-away"
    elif behaviour == "late" and seen <= limit:
        time.sleep(3.0)
    elif behaviour == "flood":
        sys.stderr.write(("x" * 1023 + "\n") * 256)
        sys.stderr.flush()
    elif behaviour == "exit" and seen > limit:
        sys.exit(3)
    elif behaviour == "noted":
        answer.update(note="the first legal action", values={ids[0]: 0.5})
    print(json.dumps(answer), flush=True)

"""Table ids and join tokens that name their shard, so any process can route a call without a lookup.

A server run as N shards (``tricktable serve --shards N``) gives shard k's
tables the id ``t{k}-<hex>`` and their tokens the prefix ``{k}.``; an
unsharded server keeps ``t-<hex>`` and bare tokens (``shard`` None). A token
is still a secret of 32 random bytes after its prefix: the prefix only says
where the table lives, which its id already says publicly.
"""

from __future__ import annotations

import re

_TABLE = re.compile(r"t(\d{1,4})-")
_TOKEN = re.compile(r"(\d{1,4})\.")


def table_id_for(shard: int | None, suffix: str) -> str:
    """The id of a new table of ``shard`` (None: an unsharded server) from a random ``suffix``."""
    return f"t-{suffix}" if shard is None else f"t{shard}-{suffix}"


def token_prefix(shard: int | None) -> str:
    """What the join tokens of ``shard``'s tables begin with (empty for an unsharded server)."""
    return "" if shard is None else f"{shard}."


def shard_of_table(table_id: str) -> int | None:
    """The shard a table id names, or None (an unsharded id, or not a table id at all)."""
    found = _TABLE.match(table_id)
    return int(found.group(1)) if found else None


def shard_of_token(token: str) -> int | None:
    """The shard a join token names, or None."""
    found = _TOKEN.match(token)
    return int(found.group(1)) if found else None

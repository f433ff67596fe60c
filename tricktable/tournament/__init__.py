"""Bot tournaments: formats, duplicate deals, ratings, storage and reports.

- :mod:`tournament.config` reads the TOML file (or flags) into a frozen config;
- :mod:`tournament.schedule` turns it into matches: formats, duplicate rotations, seeds, ids;
- :mod:`tournament.runner` is the :class:`~tournament.runner.MatchRunner` contract and the in-process runner;
  :mod:`tournament.server_runner` plays over the gRPC server with each bot a process;
  :mod:`tournament.ray_runner` sends matches to a Ray cluster;
- :mod:`tournament.store` keeps every match (the server's SQLite file, :mod:`tournament.sqlite_store`, or PostgreSQL,
  :mod:`tournament.pg_store`), so a run resumes;
- :mod:`tournament.ratings` computes OpenSkill ratings, paired results and the SPRT;
- :mod:`tournament.engine` runs a tournament; :mod:`tournament.report` prints and exports it;
- :mod:`tournament.deck_key` commits to the deck key at the start and reveals it at the end;
  :mod:`tournament.audit` checks an export's deck sets against it (``tricktable verify FOLDER``).
"""

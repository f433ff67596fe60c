"""Benchmarks (``make bench``): random-playout speed of the rules engines, with OpenSpiel as a yardstick."""

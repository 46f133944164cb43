"""Fuzzing: mutated inputs through the parsers and through the real server (see run.py)."""

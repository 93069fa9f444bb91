"""Bounds and names of `checkspec generate`, cheap to import (the CLI's --help reads them)."""

MAX_COUNT = 500  # scenarios one command may generate
MAX_TURNS = 10  # user turns of one generated conversation
DEFAULT_SIMILARITY = 0.85  # near-duplicates at or above this cosine similarity are dropped
QUESTION_TYPE_NAMES = ("simple", "complex", "distracting", "situational", "double")

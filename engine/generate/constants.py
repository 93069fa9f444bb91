"""Bounds and names of `checkspec generate`, cheap to import (the CLI's --help reads them)."""

MAX_COUNT = 500  # scenarios one command may generate
MAX_TURNS = 10  # user turns of one generated conversation
# Requests in flight at once unless told otherwise (`--concurrency`): the editor's
# generation and the command line's alike; provider limits still hold.
CONCURRENCY = 32
DEFAULT_SIMILARITY = 0.85  # near-duplicates at or above this cosine similarity are dropped
QUESTION_TYPE_NAMES = (
    "simple",
    "complex",
    "distracting",
    "situational",
    "double",
    "multi_context",
    "out_of_scope",
)
# Without --types, document questions mix every type in these proportions (percent), as
# RAGET mixes its own; --types narrows the mix to the types given, in equal shares.
DEFAULT_MIX = (
    ("simple", 25),
    ("complex", 15),
    ("situational", 15),
    ("distracting", 10),
    ("double", 10),
    ("multi_context", 15),
    ("out_of_scope", 10),
)
DEFAULT_SIMULATED_PERSONA = "helpful_user"  # the simulated user of --simulate without one

"""checkspec's version: the one place it is written (setup.py reads it for the package).

A constant rather than `importlib.metadata`, whose import alone costs `--version` more
than the rest of its start-up.
"""

VERSION = "0.1.0"

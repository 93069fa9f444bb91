"""Self-contained HTML pages of runs and comparisons, and the local viewer that serves them (issue 27)."""

"""Self-contained HTML pages of runs and comparisons, and the local viewer that serves them (issue 27)."""

from .page import render_compare, render_report

__all__ = ["render_compare", "render_report"]

"""Run history: every run kept in .checkspec/history.db (SQLite), listed and compared (issue 27)."""

"""Generated JSON Schemas for checkspec files (package data)."""

"""The `checkspec` command line."""

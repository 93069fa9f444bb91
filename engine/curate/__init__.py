"""Curating spec files: finding scenarios (selectors, queries, tags) and editing them as
text edits that keep every other byte (comments, key order, quoting, line ends).

`files.py` reads a spec file into its scenarios with their nodes (engine/spec's located
tree, no analysis); `select.py` resolves selectors; `edits.py` makes the text edits of each
operation; `commit.py` writes a set of changed files all or none.
"""

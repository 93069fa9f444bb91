"""The LSP side: pygls handlers, one module per feature (feature.py: their one shape,
host.py: what they need of the server), and `convert` for the types."""

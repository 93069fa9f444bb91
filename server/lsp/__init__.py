"""The LSP side: pygls handlers, one module per feature, and `convert` for the types."""

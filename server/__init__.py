"""checkspec language server (placeholder until the server issue)."""

"""checkspec language server: a thin LSP layer (`lsp/`) over pure analysis (`analysis/`)."""

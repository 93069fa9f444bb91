"""Editor features over the located document, in editor terms and free of any LSP type.

Each module takes an analysed `Document` (and the text, a position, the workspace) and
returns plain dataclasses; `checkspec.server.lsp` only translates them.
"""

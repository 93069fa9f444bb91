"""`python -m checkspec.server`: the language server on stdio."""

from .main import main

main()

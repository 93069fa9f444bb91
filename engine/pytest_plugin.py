"""pytest plugin entry point (collection of spec files arrives with the CLI issue)."""

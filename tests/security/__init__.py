"""Attack-style tests, named by what they attack (`make security` runs them alone)."""

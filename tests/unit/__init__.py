"""Unit tests: our own code alone, on cases worked out by hand or by its invariants."""

"""Simple reference implementations the parity tests compare with: slow and obviously faithful on
purpose, kept in tests only."""

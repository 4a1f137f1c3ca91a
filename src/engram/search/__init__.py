"""Derived index, query terms, routing and pack rendering. Reads the store, never writes it."""

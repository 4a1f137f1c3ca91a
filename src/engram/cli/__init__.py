"""The `engram` command line: one module per noun, each parses, calls one core function, renders."""

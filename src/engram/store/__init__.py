"""Memory model, the Markdown+frontmatter format, atomic file I/O with locks, and hashes."""

"""Secret/PII/injection scans, redaction and path containment. Imports nothing from engram."""

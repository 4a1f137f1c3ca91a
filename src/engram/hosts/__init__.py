"""Agent hosts: one small module per host, shared JSON/JSONC/TOML merge helpers, hooks runtime."""

"""`python -m engram` runs the CLI (used by tests and by the pinned fallback command)."""

from engram.cli.main import main

raise SystemExit(main())

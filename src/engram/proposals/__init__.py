"""Candidates, verdicts, pending approvals, commit, notes: the only writer of memories."""

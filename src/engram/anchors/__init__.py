"""Code anchors: which repository paths a memory describes, and whether they still hold.

`extract` finds the anchors in a memory (pure), `facts` keeps what git knows about the
repository in a cache rebuilt once per change of HEAD or the git index, `check` decides each
anchor's state from those facts, and `api` serves `engram stale`, `engram confirm`, load notes
and status counts.
"""

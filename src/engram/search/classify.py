"""Task classification for `engram route` (docs/reading.md): a task type and how sure we are.

Types: bugfix, feature, refactor, test, docs, release, review, setup, other. Each type has a short
list of general cue words (stemmed like everything else); the type with the most cues wins.
Confidence is high when the winner has two or more cues and leads clearly, medium when it leads by
one cue, low on a tie or no cue at all (then the type is `other`). Routing does not depend on it.
"""

from __future__ import annotations

from typing import NamedTuple

from engram.search.terms import stem, tokens

TASK_TYPES = ("bugfix", "feature", "refactor", "test", "docs", "release", "review", "setup",
              "other")

_CUES: dict[str, tuple[str, ...]] = {
    "bugfix": ("fix", "bug", "broken", "crash", "error", "fail", "failure", "regression", "issue",
               "wrong", "exception", "traceback", "debug", "incorrect", "hotfix"),
    "feature": ("add", "implement", "new", "feature", "support", "introduce", "create", "build",
                "endpoint", "enable"),
    "refactor": ("refactor", "rename", "cleanup", "clean", "simplify", "extract", "restructure",
                 "reorganize", "split", "move", "deduplicate", "tidy"),
    "test": ("test", "coverage", "flaky", "pytest", "fixture", "mock", "assert", "unittest",
             "e2e", "spec"),
    "docs": ("doc", "docs", "documentation", "readme", "docstring", "guide", "tutorial",
             "comment", "explain", "changelog"),
    "release": ("release", "tag", "version", "publish", "ship", "deploy", "rollout", "bump",
                "rollback", "hotfix"),
    "review": ("review", "pr", "approve", "audit", "inspect", "feedback", "critique"),
    "setup": ("setup", "install", "configure", "config", "init", "bootstrap", "environment",
              "onboard", "provision", "dependencies"),
}
_STEMMED = {t: frozenset(stem(w) for w in words) for t, words in _CUES.items()}


class Classification(NamedTuple):
    task_type: str
    confidence: str  # high | medium | low


def classify(task: str) -> Classification:
    found = [stem(t) for t in tokens(task)]
    counts = {t: sum(1 for s in found if s in cues) for t, cues in _STEMMED.items()}
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    (best, top), (_, second) = ranked[0], ranked[1]
    if top == 0:
        return Classification("other", "low")
    if top == second:
        return Classification(best, "low")
    if top >= 2 and top - second >= 2:
        return Classification(best, "high")
    return Classification(best, "medium")

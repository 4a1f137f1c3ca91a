"""The scratch project every host works in: a git repo with an initialised, approved store.

Memory texts carry marker words (PURPLE-OCTOPUS, …) placed after the tenth word, so they are in
a memory's body but never in its title: finding one in what the model received proves the body
arrived.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Memory:
    type: str
    text: str
    marker: str


RULE = Memory("rule", "Always run the database migrations with alembic upgrade head before the "
              "integration tests, because the PURPLE-OCTOPUS fixture depends on them",
              "PURPLE-OCTOPUS")
# The start of the rule's id (Engram's id is the first content words of the text).
RULE_ID = "always-run-database-migrations"
KNOWLEDGE = Memory("knowledge", "The billing service lives in services/billing and talks to "
                   "Stripe only through the ZEBRA-LANTERN adapter module", "ZEBRA-LANTERN")
# Proposed by the scripted engram_save (never approved).
SAVED = Memory("rule", "When you change the payments webhook handler, replay the recorded "
               "fixtures with make replay before pushing; the fixture set is TEAL-HERON",
               "TEAL-HERON")
# Proposed outside the host; the scripted engram_commit tries to write it without a human.
COMMITTED = Memory("rule", "Tag releases from the main branch only with signed tags because "
                   "the release job checks for the GOLDEN-BADGER signature", "GOLDEN-BADGER")

# Proposed as a working note by the scripted engram_note (never approved).
NOTED = Memory("knowledge", "The staging deploy script reads its registry credentials from the "
               "runner environment variable named COPPER-WALRUS", "COPPER-WALRUS")

STORED = (RULE, KNOWLEDGE)

# The map scenario: more memories on one subject (the exporter) than a pack holds (load.limit,
# 8), so a load of MAP_QUERY lists the rest in its map. Each shares with the others only the
# word "exporter" (closer texts are deferred by `engram save` as related), and none shares a
# word with the prompts or the other scripted queries, so the other scenarios see only STORED.
MAPPED = tuple(Memory("knowledge", text, text.rsplit(" ", 1)[1]) for text in (
    "The exporter writes its CSV output into the shared bucket; retries are enabled by "
    "AMBER-ALPACA",
    "Compress every exporter upload with zstd first because the storage quota counts AMBER-BISON",
    "Archived tenants are skipped by the exporter unless somebody sets the flag AMBER-CONDOR",
    "Alerts raised by the exporter reach the data team channel ahead of the pager rota "
    "AMBER-DINGO",
    "Raise the worker pool size whenever the exporter times out, in the settings file "
    "AMBER-EGRET",
    "Queries from the exporter go to the read replica, never to the primary, as decided in "
    "AMBER-FERRET",
    "Schema mappings used by the exporter live in a separate registry daemon named AMBER-GECKO",
    "Signing keys for exporter files rotate monthly through the scheduled job called "
    "AMBER-HYENA",
    "Tenant names are lowercased by the exporter when invoices are rendered through AMBER-IBIS",
    "Metrics emitted by the exporter land on a single dashboard panel, which is titled "
    "AMBER-JACKAL",
    "Retries inside the exporter back off exponentially until they hit the ceiling AMBER-KOALA",
))
# A task on that subject: its pack holds 8 of MAPPED and its map the others.
MAP_QUERY = "why does the exporter fail"


def mapped(memory_id: str) -> Memory | None:
    """The memory of MAPPED that has this id: Engram's id is the text's first content words
    (stop words dropped), so its words appear in order in the text, the first one among the
    text's first three."""
    want = memory_id.split("-")
    for m in MAPPED:
        words = re.sub(r"[^a-z0-9]+", " ", m.text.lower()).split()
        rest = iter(words)
        if want[0] in words[:3] and all(w in rest for w in want):
            return m
    return None


# Turn 1 routes both stored memories; the load query and turns 2 and 3 route only the rule.
# Claude runs turns 1 and 2 in one process (one session), then turn 3 with --resume.
PROMPT_1 = ("E2E turn one: before the integration tests, check the billing service Stripe "
            "adapter and the alembic database migrations")
PROMPT_2 = "E2E turn two: run the alembic database migrations and the integration tests"
PROMPT_3 = "E2E turn three: the alembic database migrations, then the integration tests again"
LOAD_QUERY = "run the alembic database migrations before the integration tests"
# A second scripted engram_load asks for this budget: what the model receives must fit it.
BUDGET = 400
# The scripted engram_search: its words match both stored memories.
SEARCH_QUERY = "billing stripe alembic migrations"
# The scripted bad call: engram_load of an id no memory has. (A wrongly typed argument, say
# budget_tokens "lots", is no use here: Gemini CLI checks it against the tool's schema itself and
# the model gets Gemini's message, "params/budget_tokens must be integer", never Engram's.)
BAD_ID = "no-such-memory-e2e"


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run a setup command; a failure stops the suite with the command's own output."""
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: "
                           f"{(done.stdout + done.stderr).strip()[:800]}")
    return done.stdout


GIT = ["git", "-c", "user.name=E2E", "-c", "user.email=e2e@example.invalid",
       "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"]


def make_template(dest: Path, engram: Path, env: dict[str, str]) -> None:
    """git repo + `engram init` + the stored memories approved with `--answer A`, committed."""
    dest.mkdir(parents=True)
    run([*GIT, "init", "-q", "."], dest, env)
    run([str(engram), "init"], dest, env)
    for memory in (*STORED, *MAPPED):
        said = run([str(engram), "save", memory.type, memory.text, "--answer", "A"], dest, env)
        if "1 written" not in said:  # deferred (a related memory) or refused: a setup error
            raise RuntimeError(f"engram save did not write {memory.marker}: {said[-600:]}")
    run([*GIT, "add", "-A"], dest, env)
    run([*GIT, "commit", "-q", "-m", "Initial commit"], dest, env)


def copy_project(template: Path, dest: Path) -> None:
    shutil.copytree(template, dest, symlinks=True,
                    ignore=shutil.ignore_patterns(".cache", ".lock"))


def store_files(project: Path) -> dict[str, bytes]:
    """Every approved-memory file and the hash list: what a commit would change."""
    root = project / ".agents" / ".engram"
    files = {p.relative_to(root).as_posix(): p.read_bytes()
             for sub in ("rules", "skills", "knowledge")
             for p in sorted((root / sub).rglob("*.md"))}
    hashes = root / "memory.hashes.json"
    files["memory.hashes.json"] = hashes.read_bytes() if hashes.exists() else b""
    return files

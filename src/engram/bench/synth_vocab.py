"""Vocabulary for the synthetic store generator: engineering topics and sentence templates.

Pure data, no logic. Each topic has its own tags, nouns, verbs, paths and commands so that a
generated store has the term statistics of a real one: a few words shared by every topic
(service, change, team), many words specific to one topic, and a long tail of component names
and ticket numbers that occur once or twice. `synth.py` draws from these lists; nothing else
imports them.
"""

from __future__ import annotations

from typing import NamedTuple


class Topic(NamedTuple):
    name: str
    tags: tuple[str, ...]
    nouns: tuple[str, ...]
    verbs: tuple[str, ...]
    paths: tuple[str, ...]
    commands: tuple[str, ...]


TOPICS: tuple[Topic, ...] = (
    Topic("api", ("api", "http", "endpoints", "versioning"),
          ("endpoint", "router", "request schema", "response model", "status code", "rate limit",
           "idempotency key", "pagination cursor", "OpenAPI document", "error payload", "header"),
          ("validate", "version", "document", "deprecate", "paginate", "serialize"),
          ("services/api/routers/", "services/api/schemas/", "docs/api/errors.md"),
          ("make openapi", "uv run pytest tests/contract", "curl localhost:8000/healthz")),
    Topic("database", ("postgres", "migration", "schema", "index"),
          ("migration", "index", "table", "column", "constraint", "partition", "replica",
           "lock timeout", "backfill", "query plan", "sequence", "vacuum"),
          ("migrate", "index", "backfill", "partition", "analyze", "vacuum"),
          ("services/api/migrations/versions/", "migrations/env.py", "db/seeds/"),
          ("uv run alembic upgrade head", "uv run alembic revision --autogenerate",
           "psql -c 'EXPLAIN ANALYZE'")),
    Topic("frontend", ("frontend", "react", "typescript", "ui"),
          ("component", "hook", "form", "route", "query cache", "design token", "story",
           "translation key", "bundle", "modal", "table view"),
          ("render", "memoize", "translate", "style", "lazy-load", "bundle"),
          ("web/src/features/", "packages/ui/src/", "web/src/i18n/en.json"),
          ("pnpm -F web test", "pnpm -F web typecheck", "pnpm -F ui build")),
    Topic("ci", ("ci", "github-actions", "pipeline", "build"),
          ("workflow", "job", "runner", "cache key", "artifact", "matrix", "required check",
           "shard", "container image", "build step"),
          ("rerun", "cache", "shard", "pin", "build", "promote"),
          (".github/workflows/ci.yml", ".github/workflows/deploy.yml", ".github/CODEOWNERS"),
          ("gh run rerun --failed", "gh workflow run deploy.yml", "act -j test")),
    Topic("release", ("release", "tagging", "changelog", "deploy"),
          ("release tag", "changelog entry", "release branch", "hotfix", "version number",
           "release notes", "deploy window", "rollback", "smoke run", "freeze"),
          ("tag", "release", "roll back", "cherry-pick", "announce", "deploy"),
          ("CHANGELOG.md", "scripts/release.py", "infra/argocd/production/values.yaml"),
          ("make smoke ENV=staging", "git tag -s", "argocd app rollback")),
    Topic("observability", ("observability", "logging", "metrics", "tracing"),
          ("dashboard", "alert rule", "trace", "span", "log line", "metric", "error budget",
           "latency percentile", "runbook", "sampling rate"),
          ("alert", "trace", "log", "instrument", "sample", "graph"),
          ("infra/grafana/dashboards/", "infra/prometheus/rules/", "docs/runbooks/"),
          ("promtool test rules", "amtool alert query", "logcli query")),
    Topic("security", ("security", "secrets", "auth", "review"),
          ("secret", "access token scope", "threat model", "audit log", "permission",
           "dependency advisory", "session", "signing key", "security review", "SSO group"),
          ("rotate", "revoke", "audit", "encrypt", "review", "scan"),
          ("security/audit-exceptions.toml", "infra/iam/", "docs/security/"),
          ("pip-audit", "pnpm audit --prod", "gitleaks detect")),
    Topic("workers", ("celery", "workers", "queues", "jobs"),
          ("task", "queue", "worker", "retry policy", "beat schedule", "dead letter queue",
           "broker", "prefetch", "acknowledgement", "backoff"),
          ("enqueue", "retry", "drain", "schedule", "requeue", "throttle"),
          ("services/worker/tasks/", "services/worker/routing.py", "services/worker/beat.py"),
          ("celery -A worker inspect active", "celery -A worker purge", "make worker")),
    Topic("testing", ("tests", "pytest", "fixtures", "flaky"),
          ("test", "fixture", "factory", "snapshot", "flaky test", "mock", "test database",
           "coverage report", "end-to-end suite", "contract test"),
          ("test", "mock", "quarantine", "reproduce", "parametrize", "assert"),
          ("tests/conftest.py", "tests/factories.py", "e2e/smoke/"),
          ("uv run pytest -x", "pytest --count=50", "pnpm -F e2e test")),
    Topic("payments", ("payments", "billing", "invoices", "tax"),
          ("invoice", "credit note", "payment intent", "webhook event", "tax rate",
           "currency amount", "reconciliation", "dunning reminder", "refund", "ledger entry"),
          ("invoice", "refund", "reconcile", "charge", "round", "finalize"),
          ("services/api/domain/tax.py", "services/api/domain/money.py",
           "services/worker/billing/"),
          ("stripe listen --forward-to localhost:8000", "stripe trigger charge.refunded",
           "make reconcile")),
    Topic("infra", ("kubernetes", "terraform", "infra", "helm"),
          ("cluster", "namespace", "helm chart", "node pool", "terraform module", "ingress",
           "autoscaler", "pod disruption budget", "resource limit", "load balancer"),
          ("provision", "scale", "apply", "drain", "upgrade", "restart"),
          ("infra/terraform/", "infra/helm/ledgerly/", "infra/k8s/"),
          ("terraform plan", "helm diff upgrade", "kubectl rollout restart")),
    Topic("docs", ("documentation", "adr", "onboarding", "conventions"),
          ("ADR", "runbook", "README", "style guide", "architecture diagram", "glossary",
           "code comment", "pull request description", "design doc"),
          ("document", "review", "record", "link", "publish", "update"),
          ("docs/adr/", "docs/guides/", "mkdocs.yml"),
          ("uv run mkdocs serve", "make docs", "vale docs/")),
)

COMMON = ("service", "change", "team", "production", "staging", "config", "owner", "before",
          "after", "every", "week", "review", "update", "default", "customer", "tenant")
COMPONENT_PARTS = (("ledger", "billing", "invoice", "tax", "report", "export", "auth", "notify",
                    "search", "sync", "audit", "quota", "pricing", "catalog", "payout"),
                   ("api", "gateway", "worker", "cron", "adapter", "store", "router", "cache",
                    "client", "bridge", "engine", "feed"))
ROLES = ("backend", "frontend", "sre")
UNITS = ("seconds", "minutes", "requests", "rows", "lines", "MB", "percent", "days")

RULE_SENTENCES = (
    "Always {verb} the {noun} when you change `{path}`.",
    "Never {verb} the {noun} by hand in {env}; use `{command}` instead.",
    "Keep the {noun} of {component} under {num} {unit}.",
    "Prefer the {noun} over the {noun2} for {topic} work in {component}.",
    "{Verb} every {noun} before the {noun2} reaches {env}.",
    "A {noun} change needs a {noun2} review from the {topic} owners (see {ticket}).",
)
KNOWLEDGE_SENTENCES = (
    "The {noun} for {component} lives in `{path}` and is owned by the {topic} team.",
    "{component} runs its {noun} every {num} {unit}; the {noun2} is kept for {num2} days.",
    "We chose the {noun} over the {noun2} in {ticket} because the old one was hard to {verb}.",
    "`{command}` shows the {noun} of {component} in {env}.",
    "In {env} the {noun} limit is {num} {unit}, raised in {ticket}.",
)
SKILL_STEPS = (
    "Run `{command}` to {verb} the {noun}.",
    "Open `{path}` and {verb} the {noun} of {component}.",
    "Check the {topic} dashboard for {noun} errors in {env}.",
    "{Verb} the {noun} and wait until the {noun2} is healthy.",
    "Record the result in {ticket} and tell the {topic} owners.",
    "If the {noun} fails, {verb} the {noun2} and retry once.",
)
RULE_TITLES = ("{Verb} the {noun} before {env} deploys", "Never skip the {noun} check",
               "Keep {component} {noun} small", "{Verb} {noun} changes through review")
SKILL_TITLES = ("{Verb} a {noun} in {component}", "How to {verb} the {noun}",
                "{Verb} the {noun} for {component}")
KNOWLEDGE_TITLES = ("How the {noun} works in {component}", "{component} {noun} facts",
                    "Why {component} uses a {noun}")

"""Adopting the guidance a repository and its hosts already hold (`engram take-control`,
docs/adopting.md): discovery, candidates without a model, the plan, the agent's source pack,
host-held memory and the pointer that stops loading the same guidance twice."""

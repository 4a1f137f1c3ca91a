"""`engram bench`: retrieval quality, latency, cold start and memory, written to BENCHMARKS.md."""

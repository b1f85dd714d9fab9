"""LLM judges: absolute score, CompassBench-style pairwise comparison, and the two-stage math judge."""

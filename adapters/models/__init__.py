"""Models: the local embedding model, its vector cache and kNN warm-up; the LLM client, its configuration, answer checkpoint and redaction."""

"""Models: the local embedding model, its vector cache and kNN warm-up; the LLM providers (OpenAI-compatible APIs
including Anthropic's, and the `claude` CLI), their configuration, chain with spending caps, prices, answer
checkpoint and redaction."""

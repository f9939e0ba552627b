"""The pure algorithms the actors use: clustering, extractive summaries, the heuristic judge, prompts, the LLM question protocol, edges, the read model and relative dates."""

"""What users and the agent read after a run: the read caches a run leaves, recall over them, and scored views of the store."""

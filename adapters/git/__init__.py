"""git: the repository through pygit2 — notes trees, the memory note format and its parse cache, our state refs and their codec, merges, sync and doctor, and the locks that say who may run."""

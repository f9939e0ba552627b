"""The operations every face of memactors offers — the CLI, the MCP server — each a function that takes plain
values and returns an `Outcome` (the JSON document, the text a person reads, the exit code). Faces parse their
input and print or return the outcome; they hold no logic of their own."""

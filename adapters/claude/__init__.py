"""Claude Code's side: the SessionStart context, hook setup (Claude Code and git), the hook inbox and the activation log recall writes."""

"""Claude Code's side: the SessionStart context, surfacing (`memactors surface`) and what a session was shown,
hook setup (Claude Code and git), the hooks-off switch, the hook inbox and the activation log recall writes."""

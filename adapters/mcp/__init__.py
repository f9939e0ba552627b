"""The MCP server: the project's memory as tools an agent calls (adapters/operations behind each)."""

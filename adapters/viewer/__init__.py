"""The human's window: a local web viewer over the shared operations."""

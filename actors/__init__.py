"""The consolidation actors. Each owns its state and talks only through the bus."""

"""Application models: communication-to-computation models of science codes."""

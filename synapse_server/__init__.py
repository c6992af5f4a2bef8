"""Synapse: an MCP stdio server that answers from a project's own evidence, or abstains."""

__version__ = "0.1.0"

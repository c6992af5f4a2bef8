"""The workspace as files: its config and where it is, the sources it reads and how they are found and
adopted, the stores loaded from them, freshness (what changed since), init, and lint.

Imports adapters, models, navigation values and errors; never actions, isolation, mcp or cli.
"""

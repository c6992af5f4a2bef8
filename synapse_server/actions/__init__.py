"""One module per public action; each exposes ``SPEC`` (an :class:`ActionSpec`) and plain functions the CLI reuses.

The dispatcher owns validation and error mapping, so an action module only
turns validated parameters plus the shared :class:`Deps` into a result model.
"""

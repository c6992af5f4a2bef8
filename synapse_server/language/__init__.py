"""The language of evidence and claims, as pure functions: markdown blocks and plain text, numbers and
units, atomic units of a note, calculations, what a question asks, word classes and stems, and the one
escaping of untrusted text for a line-oriented display.

Imports only errors and the standard library; navigation, licensing, present and the CLI build on it.
"""

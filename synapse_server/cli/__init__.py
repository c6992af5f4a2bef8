"""The command line: ``synapse <command>``, the options every command shares, one module per command, and
the terminal presentation (escaping, colours, the card).

The top layer: it may import anything; nothing imports it.
"""

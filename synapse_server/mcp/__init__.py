"""The MCP face of Synapse: the stdio server and its wire, the dispatcher that maps one tool call to one
action (and every error to public JSON), and the answer-card app.

Imports actions, context and the lower layers; nothing below imports it.
"""

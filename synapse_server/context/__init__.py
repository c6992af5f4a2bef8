"""What a running tool call knows about itself: where its progress goes and which client called.

Set by the MCP layer around each call, read by actions and the worker pool; imports nothing of Synapse.
"""

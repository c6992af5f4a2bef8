"""Every process Synapse starts, and its lifetime: process scopes (a call's children die with the call),
group kills, and the guard that takes a process group down when its parent dies.

Imports only the standard library; models (the command bridge), isolation and mcp use it.
"""

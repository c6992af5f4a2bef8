"""Renderings of public results for people: a terminal card and the helpers the dashboard shares with it.

Everything here reads the public navigate JSON (the ``answer_surface`` and
``trace_surface`` contract), never the envelope or source bodies, so what a
person sees is exactly what the engine licensed.
"""

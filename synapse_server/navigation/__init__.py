"""Grounded navigation: the pure engine that decides what a cited answer may claim.

Everything here takes values and returns values: no files, clocks, git or network.
"""

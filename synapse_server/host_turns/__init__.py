"""Pending turns for the host's own model: signed tokens, the on-disk record of each turn, and their expiry.

Under ``model: host`` a navigate call returns a pending turn instead of a
verdict, and the host model continues it with ``turn=TOKEN, reply=ARTIFACT``.
The server keeps nothing of a turn in memory between those calls:

- :mod:`.token` signs what identifies a step (turn id, step, expiry, tokens
  spent, the digest of the prompt shown and of the turn's record) with an
  HMAC secret, so a token that was not issued here, or was altered, is refused;
- :mod:`.record` keeps each turn's question and the host's replies in the
  workspace cache (never a source store), marks each step used exactly once,
  and forgets turns past their expiry, so any server of the same workspace
  and secret can continue a turn and none can replay a step twice.

The action that drives them is :mod:`synapse_server.actions.navigate`.
"""

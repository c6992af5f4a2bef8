"""Licensing by alignment: whether one cited clause says what a claim says.

A claim is licensed by one clause only when its tokens align to the clause's
tokens in order, by a small set of named edit operations (:mod:`.alignment`),
with the unit's frame as context (:mod:`.frames`), derived figures checked by
what their relation phrase means (:mod:`.relations`), and joins that assert
nothing new (:mod:`.joins`). Every rule has an id and a doc in :mod:`.rules`;
the words each rule reads live in :mod:`.language`.
"""

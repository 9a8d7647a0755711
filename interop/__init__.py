"""Reading other engines' game states into scenarios (`phasing import forge`).

What a format's fields mean in the rules' terms (which statuses an attribute sets) is data in
a mapping file beside the reader (`forge.toml`), checked against the statuses the newest
rulebook declares; the readers know only the shape of the text they read.
"""

"""Reading: normalise the text once, locate the final answer, split it into pieces, read each piece into items.

Nothing here compares: what an answer *means* (:mod:`..answer`) is built from text by these modules,
behind :func:`.extract.extract_answer`. Names are imported from their modules, never re-exported here,
so importing one reader does not import them all.
"""

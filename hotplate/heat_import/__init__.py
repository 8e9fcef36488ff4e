"""``hotplate manage import-heat``: bringing a Heat 27 database's stacks into hotplate.

``source`` reads Heat's database (read-only transactions only), ``analysis``
decides with the engine's own template code whether each tree can be served
here, ``translate`` turns Heat's rows and secrets into ours, ``writer`` writes a
tree in one transaction, and ``run`` ties them together and says, stack by
stack, what was imported, left alone, brought up to date or refused and why.
"""

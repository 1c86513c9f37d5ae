"""Loading: golden sets and their traces read strictly into frozen values (``golden``), several golden
sets in one run (``goldensets``), and which cases a shard evaluates (``shards``). Files at a git
revision are read through :mod:`gate.git`.
"""

"""A golden set's history (docs/history.md): what changed between two versions of it
(``changes.py``: questions added, removed, renamed, reworded; judgments added, removed,
regraded; its settings), why each number moved (``attribution.py``: a metric's change split
exactly into the part due to the judgments, the part due to the run and their interaction),
the versions a git revision holds, read without running anything of the repository's
(``git.py``), what the editor keeps between keystrokes (``tracker.py``), and the lock that
notices a judged document changed since it was judged (``lock.py``, ``hashes.py``)."""

"""How far the judgments cover the runs (docs/compare.md, "Coverage of the judgments"):
optimistic bounds of every metric (``bounds.py``) and the judging queue that raises coverage
fastest (``pool.py``). judged@k itself is a measure (``metrics/judged.py``)."""

"""The means' vectorised sums (numpy.add.accumulate over a metrics x queries matrix) against the
plain loop trec_eval runs (one addition after another), bit for bit, before and after an edit:
on values whose sum depends on the order of the additions, where math.fsum and numpy.sum differ
from the loop."""

from __future__ import annotations

import math
import random

import numpy as np
from qrels_lsp.core.metrics.evaluate import _Columns, sequential_mean


def _per_query(rng: random.Random, n: int) -> dict[str, dict[str, float]]:
    wide = [1e16, 1.0, -1e16, 3.0, 0.1, 1e-300, 2.5e15]
    return {
        f"q{i:05d}": {
            "recall@5": rng.random(),
            "mrr": 1.0 / rng.randint(1, 100),
            "wide": rng.choice(wide) * rng.choice([1.0, 0.1, 7.0]),
        }
        for i in range(n)
    }


def test_means_equal_the_sequential_loop_bit_for_bit() -> None:
    rng = random.Random(19)
    for n in (0, 1, 2, 17, 1000, 20001):
        per_query = _per_query(rng, n)
        counted = sorted(per_query)
        columns = _Columns.of(per_query, counted, ["recall@5", "mrr", "wide"])
        means = columns.means()
        for name in ("recall@5", "mrr", "wide"):
            want = sequential_mean((per_query[q][name] for q in counted), n)
            assert means[name].hex() == want.hex(), (n, name)
        # after an edit of a few queries: the updated matrix sums as a fresh one does
        changed = set(rng.sample(counted, min(5, n)))
        for qid in changed:
            per_query[qid] = {"recall@5": 0.5, "mrr": 1.0, "wide": -1e16}
        updated = columns.updated(per_query, changed).means()
        for name in ("recall@5", "mrr", "wide"):
            want = sequential_mean((per_query[q][name] for q in counted), n)
            assert updated[name].hex() == want.hex(), (n, name, "after an edit")
        assert columns.means() == means  # the last evaluation's columns are left as they were


def test_the_order_of_the_additions_shows() -> None:
    """The values above tell the loop from the sums that compensate or pair (else the test
    could not fail)."""
    rng = random.Random(7)
    per_query = _per_query(rng, 20001)
    values = [per_query[q]["wide"] for q in sorted(per_query)]
    loop = sequential_mean(values, len(values))
    assert loop != math.fsum(values) / len(values) or loop != float(np.sum(values)) / len(values)

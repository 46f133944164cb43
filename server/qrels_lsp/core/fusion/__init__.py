"""Fused runs (docs/compare.md, "Fusion"): RRF, CombSUM, CombMNZ and a weighted sum of runs a
golden set already has, computed as ranx computes them and ranked in trec_eval's order.
``methods.py`` holds the methods and normalisations, ``fuse.py`` the fusion of whole runs (and
the :class:`Fuser` that fuses again only what an edit changed), ``spec.py`` a fusion as a golden
set or the configuration declares it."""

from __future__ import annotations

from .fuse import Fused, Fuser, Input, fuse, fuse_query
from .methods import DEFAULT_NORM, DEFAULT_RRF_K, METHODS, NORMS, Method, Params
from .spec import FUSION_KEYS, Fusion, value_problem

__all__ = [
    "DEFAULT_NORM",
    "DEFAULT_RRF_K",
    "FUSION_KEYS",
    "METHODS",
    "NORMS",
    "Fused",
    "Fuser",
    "Fusion",
    "Input",
    "Method",
    "Params",
    "fuse",
    "fuse_query",
    "value_problem",
]

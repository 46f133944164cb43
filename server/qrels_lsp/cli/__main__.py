"""``python -m qrels_lsp.cli``."""

import sys

from . import main

sys.exit(main())

"""`python -m opgen` is the `opgen` command."""

import sys

from opgen.cli import main

sys.exit(main())

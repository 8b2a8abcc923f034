"""`python -m engine` runs the `arena` command line."""

import sys

from engine.cli import main

sys.exit(main())

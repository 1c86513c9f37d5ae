"""``python -m gate``: the same as the ``sourcegate`` console script."""

import sys

from gate.cli import main

if __name__ == "__main__":
    sys.exit(main())

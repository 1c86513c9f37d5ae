"""``python -m gate.action``: the container's ENTRYPOINT (see the Dockerfile)."""

import sys

from gate.action import main

sys.exit(main())

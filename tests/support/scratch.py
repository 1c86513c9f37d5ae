"""A folder for what one test process builds once and shares between its tests (a committed
repository, a copy of the example snapshot), removed when that process ends.

Removed by the process that made it only: a process forked from it (the CLI on a pty, the gate
stopped by Ctrl-C) may run the atexit functions it inherited, and the folder is still in use.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from pathlib import Path


@functools.cache
def process_folder(prefix: str) -> Path:
    """This process's folder named ``prefix...`` under the system's temporary folder, made on first use."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(_remove, folder, os.getpid())
    return folder


def _remove(folder: Path, owner: int) -> None:
    if os.getpid() == owner:
        shutil.rmtree(folder, ignore_errors=True)

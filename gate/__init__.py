"""sourcegate: a merge gate that shows whether a search agent read what it cites.

The public API is listed in ``__all__``; everything else is internal.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]

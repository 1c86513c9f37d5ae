"""The version of sourcegate (re-exported as ``gate.__version__``)."""

__version__ = "0.1.0"

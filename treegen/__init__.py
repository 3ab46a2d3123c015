"""treegen: a compiler for decision trees."""
__version__ = "0.1.0"

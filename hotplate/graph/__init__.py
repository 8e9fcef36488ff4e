"""A generic DAG (``Graph``): ordering, cycles and reachability, nothing of resources."""

from hotplate.graph.dag import CycleError, Graph

__all__ = ["CycleError", "Graph"]

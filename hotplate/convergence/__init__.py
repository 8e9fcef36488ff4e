"""The decision core of the convergence engine: pure functions, no I/O, no clock.

A traversal is built in named steps (rows.py chooses the rows, graph_build.py
draws the graph), and each node's next move is a value (node_plan.py,
update_diff.py, propagation.py, outcome.py) that engine/ carries out.
"""

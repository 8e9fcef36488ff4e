"""The legacy engine: stacks with ``convergence = False`` (SPEC.md § 3).

Such a stack's operation runs in one thread of the engine that holds its
``stack_lock`` row, as Heat's ThreadGroupManager.start_with_lock runs it. The
thread runs the very traversal a convergence stack's operation would
(engine/worker/traversal.py), every node of it in this thread instead of on
any engine's worker, so a legacy and a convergence stack of one template end
the same by construction::

    locking.py   take the stack's lock: free, ours, a dead holder's (stolen),
                 or a live holder's (409; a delete stops it first)
    runner.py    the thread: its queue of nodes and walks, messages, the end
    stacks.py    LegacyStacks: what the engine topic and the listener ask
    reset.py     a dead holder's stack reset FAILED (engine start, recovery)
"""

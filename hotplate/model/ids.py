"""Small id types, so the core never confuses a stack id with a traversal id."""

from typing import NewType

StackId = NewType("StackId", str)
"""A stack's UUID, as Heat shows it."""

ResourceId = NewType("ResourceId", int)
"""The integer primary key of a resource row (one row per physical attempt)."""

TraversalId = NewType("TraversalId", str)
"""The UUID of one convergence operation on a stack; '' when none is running."""

EngineId = NewType("EngineId", str)
"""A random UUID4 chosen by each engine process at start; locks record it."""

TemplateId = NewType("TemplateId", int)
"""The integer primary key of a raw_template row."""

NO_TRAVERSAL = TraversalId("")

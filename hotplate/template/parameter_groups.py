"""``parameter_groups``: checked as Heat checks them when a stack is validated.

Each group needs a ``parameters`` list; a parameter may be in one group
only and must be declared. Heat words these "Parameter Groups error:
parameter_groups.<label>: ..."; so do we.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from hotplate.model.errors import StackValidationFailed
from hotplate.template.errors import with_path

SECTION = "parameter_groups"


def check_parameter_groups(groups: Any, declared: Collection[str]) -> None:
    """``declared``: the template's parameters and pseudo parameters.

    Raises StackValidationFailed naming the group and the rule broken.
    """
    if not groups:
        return
    if not isinstance(groups, list):
        raise _error((), f"The {SECTION} should be a list.")
    grouped: set[str] = set()
    for group in groups:
        label = str(group.get("label", "")) if isinstance(group, Mapping) else ""
        parameters = group.get("parameters") if isinstance(group, Mapping) else None
        if parameters is None:
            raise _error((label,), "The parameters must be provided for each parameter group.")
        if not isinstance(parameters, list):
            raise _error((label,), "The parameters of parameter group should be a list.")
        for name in parameters:
            if not isinstance(name, str):
                raise _error((label,), f"The grouped parameter {name} does not reference a "
                                       "valid parameter.")
            if name in grouped:
                raise _error((label,), f"The {name} parameter must be assigned to one "
                                       "parameter group only.")
            grouped.add(name)
            if name not in declared:
                raise _error((label,), f"The grouped parameter {name} does not reference a "
                                       "valid parameter.")


def _error(where: tuple[str, ...], message: str) -> StackValidationFailed:
    path = (SECTION, *where)
    text = f"Parameter Groups error: {'.'.join(path)}: {message}"
    return with_path(StackValidationFailed(text), path)

import pytest

from hotplate.convergence import outcome
from hotplate.model.states import Action


@pytest.mark.parametrize(
    ("action", "disable", "expected"),
    [
        (Action.CREATE, False, True),
        (Action.UPDATE, False, True),
        (Action.CREATE, True, False),
        (Action.DELETE, False, False),
        (Action.ROLLBACK, False, False),
    ],
)
def test_rollback_rule(action, disable, expected) -> None:
    assert outcome.on_stack_failure(action, disable).rollback is expected


def test_texts_are_heats() -> None:
    assert outcome.started_reason(Action.CREATE) == "Stack CREATE started"
    assert outcome.completed_reason(Action.DELETE) == "Stack DELETE completed successfully"
    assert outcome.cancelled_reason(Action.UPDATE) == "Stack UPDATE cancelled"
    assert outcome.worker_went_down(Action.UPDATE) == "Worker went down during resource UPDATE"
    assert outcome.aborted(Action.CREATE, "user triggered cancel") == (
        "CREATE aborted (user triggered cancel)"
    )
    assert outcome.resource_failed_reason("CREATE", "x") == "Resource CREATE failed: x"


def test_a_timed_out_task_is_named_as_heat_names_it() -> None:
    assert outcome.task_timed_out(Action.CREATE, "SoftwareDeployment", "deploy", "d-1",
                                  "web", "s-1") == (
        'Task create from SoftwareDeployment "deploy" [d-1] Stack "web" [s-1] Timed out')
    # No physical id yet: Heat leaves the brackets out.
    assert outcome.task_timed_out(Action.UPDATE, "TestResource", "r", None, "web", "s-1") == (
        'Task update from TestResource "r" Stack "web" [s-1] Timed out')

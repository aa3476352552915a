"""Runs a plain operation while a transaction holds what it needs: it must wait for the end."""

import threading


def outcome_after_waiting(operation, end_transaction):
    """Starts `operation` in a thread, checks that it is still waiting half a second later, then
    runs `end_transaction` and returns what the operation returned, or the OperationFailure (or
    subclass) it raised."""
    outcome = {}
    done = threading.Event()

    def run():
        try:
            outcome["returned"] = operation()
        except Exception as error:  # noqa: BLE001 - handed to the test
            outcome["raised"] = error
        done.set()

    thread = threading.Thread(target=run)
    thread.start()
    assert not done.wait(0.5), "the operation did not wait for the transaction"
    end_transaction()
    thread.join(10)
    assert done.is_set(), "the operation did not finish after the transaction ended"
    return outcome

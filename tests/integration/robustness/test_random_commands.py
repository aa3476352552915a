"""Random commands of every family (random_commands.py, fixed seeds) against a real quarryd: each
is answered, as a result or an error, none is an InternalError, and the server stays up
(docs/DESIGN.md "Errors": nothing a client sends can crash the server)."""

import bson
import pymongo
import pymongo.errors
import pytest

from quarry_server import CLIENT_OPTIONS
from random_commands import Generator

COMMANDS_PER_SEED = 1500


@pytest.mark.parametrize("seed", [1, 2])
def test_random_commands_are_answered_and_the_server_stays_up(own_server, seed):
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as client:
        db = client[f"t_random_{seed}"]
        generator = Generator(seed, db.name)
        answered = 0
        for i in range(COMMANDS_PER_SEED):
            command = generator.command()
            try:
                db.command(command)
            except pymongo.errors.OperationFailure as failure:
                assert failure.code not in (None, 1), (seed, i, command, failure.details)
            except (bson.errors.BSONError, TypeError, ValueError, OverflowError,
                    pymongo.errors.InvalidOperation, pymongo.errors.DocumentTooLarge):
                continue  # refused by the driver before it was sent
            except pymongo.errors.PyMongoError as error:
                assert own_server.alive(), (
                    f"seed {seed}, command {i}: {command!r}\n{own_server.log_tail()}")
                raise AssertionError((seed, i, command, error))
            answered += 1
        assert own_server.alive(), own_server.log_tail()
        assert answered > COMMANDS_PER_SEED // 2
        assert client.admin.command("ping")["ok"] == 1.0

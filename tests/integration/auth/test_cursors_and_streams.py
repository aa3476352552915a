"""A cursor belongs to the user that opened it; change streams and $vectorSearch need the
user's read privileges."""

from bson.int64 import Int64

from auth_helpers import assert_unauthorized


def test_another_user_can_neither_continue_nor_kill_a_cursor(make_user, admin):
    admin.cur.items.insert_many([{"_id": i} for i in range(10)])
    _, alice = make_user([{"role": "read", "db": "cur"}])
    _, bob = make_user([{"role": "read", "db": "cur"}])
    first = alice.cur.command("find", "items", batchSize=2)["cursor"]
    cursor_id = Int64(first["id"])
    assert cursor_id != 0
    assert_unauthorized(lambda: bob.cur.command("getMore", cursor_id, collection="items"),
                        "was not created by the authenticated user")
    assert_unauthorized(lambda: bob.cur.command("killCursors", "items", cursors=[cursor_id]),
                        "was not created by the authenticated user")
    more = alice.cur.command("getMore", cursor_id, collection="items", batchSize=2)
    assert [d["_id"] for d in more["cursor"]["nextBatch"]] == [2, 3]
    # root holds killAnyCursor.
    killed = admin.cur.command("killCursors", "items", cursors=[cursor_id])
    assert killed["cursorsKilled"] == [cursor_id]


def test_a_change_stream_needs_the_change_stream_action(make_user, admin):
    admin.cs.items.insert_one({"_id": 0})
    admin.admin.command("createRole", "findOnly", privileges=[
        {"resource": {"db": "cs", "collection": "items"}, "actions": ["find"]}], roles=[])
    _, finder = make_user(["findOnly"])
    assert finder.cs.items.find_one() == {"_id": 0}
    assert_unauthorized(lambda: finder.cs.items.watch())
    assert_unauthorized(lambda: finder.cs.watch())
    assert_unauthorized(lambda: finder.watch())

    _, reader = make_user([{"role": "read", "db": "cs"}])
    with reader.cs.items.watch(max_await_time_ms=2000) as stream:
        admin.cs.items.insert_one({"_id": 1})
        change = stream.next()
        assert change["operationType"] == "insert" and change["documentKey"] == {"_id": 1}
    assert_unauthorized(lambda: reader.watch())  # the whole deployment: not only cs


def test_vector_search_needs_find_on_the_collection(make_user, admin):
    admin.vs.docs.insert_one({"_id": 1, "v": [1.0, 0.0]})
    _, stranger = make_user([{"role": "read", "db": "elsewhere"}])
    stage = {"$vectorSearch": {"index": "vi", "path": "v", "queryVector": [1.0, 0.0],
                               "numCandidates": 10, "limit": 1}}
    assert_unauthorized(lambda: list(stranger.vs.docs.aggregate([stage])))
    _, reader = make_user([{"role": "read", "db": "vs"}])
    assert list(reader.vs.docs.aggregate([stage])) == []  # allowed; there is no such index

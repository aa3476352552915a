"""Collation on reads and writes: strings compare under the command's (or statement's)
collation in filters, sorts, grouping and distinct, as mongod compares them; bad collation
documents fail with mongod's codes."""

import pymongo
import pymongo.errors
import pytest
from pymongo.collation import Collation

CASE_INSENSITIVE = Collation("en", strength=2)
BASE_LETTERS = Collation("fr", strength=1)
NUMERIC = Collation("en", numericOrdering=True)


@pytest.fixture
def words(db):
    db.words.insert_many([{"_id": 1, "w": "apple"}, {"_id": 2, "w": "Apple"},
                          {"_id": 3, "w": "banana"}, {"_id": 4, "w": "APPLE"},
                          {"_id": 5, "w": "côte"}, {"_id": 6, "w": "cote"}])
    return db.words


def ids(docs):
    return sorted(d["_id"] for d in docs)


def test_find_with_strength_two_matches_every_case(words):
    assert ids(words.find({"w": "apple"}, collation=CASE_INSENSITIVE)) == [1, 2, 4]
    assert ids(words.find({"w": "apple"})) == [1]


def test_strength_one_also_ignores_accents(words):
    assert ids(words.find({"w": "COTE"}, collation=BASE_LETTERS)) == [5, 6]
    assert ids(words.find({"w": "cote"}, collation=CASE_INSENSITIVE)) == [6]


def test_range_and_in_operators_compare_under_the_collation(words):
    assert ids(words.find({"w": {"$gte": "B", "$lt": "c"}}, collation=CASE_INSENSITIVE)) == [3]
    assert ids(words.find({"w": {"$in": ["APPLE", "x"]}}, collation=CASE_INSENSITIVE)) == [1, 2, 4]
    assert ids(words.find({"w": {"$nin": ["APPLE"]}}, collation=CASE_INSENSITIVE)) == [3, 5, 6]
    assert ids(words.find({"w": {"$ne": "APPLE"}}, collation=CASE_INSENSITIVE)) == [3, 5, 6]


def test_regex_ignores_the_collation(words):
    assert ids(words.find({"w": {"$regex": "^a"}}, collation=CASE_INSENSITIVE)) == [1]


def test_nested_documents_and_arrays_compare_their_strings_under_the_collation(db):
    db.nested.insert_many([{"_id": 1, "d": {"x": "ABC"}, "a": ["X", "Y"]},
                           {"_id": 2, "d": {"x": "abd"}, "a": ["z"]}])
    assert ids(db.nested.find({"d": {"x": "abc"}}, collation=CASE_INSENSITIVE)) == [1]
    assert ids(db.nested.find({"a": ["x", "y"]}, collation=CASE_INSENSITIVE)) == [1]
    assert ids(db.nested.find({"a": "y"}, collation=CASE_INSENSITIVE)) == [1]


def test_numeric_ordering_sorts_digits_as_numbers(db):
    db.files.insert_many([{"_id": i, "name": f"file{n}"} for i, n in enumerate([10, 2, 1, 33])])
    names = [d["name"] for d in db.files.find(sort=[("name", 1)], collation=NUMERIC)]
    assert names == ["file1", "file2", "file10", "file33"]
    plain = [d["name"] for d in db.files.find(sort=[("name", 1)])]
    assert plain == ["file1", "file10", "file2", "file33"]


def test_sort_with_case_first_upper(db):
    db.letters.insert_many([{"_id": 1, "c": "a"}, {"_id": 2, "c": "A"}, {"_id": 3, "c": "b"}])
    got = [d["c"] for d in db.letters.find(sort=[("c", 1)],
                                            collation=Collation("en", caseFirst="upper"))]
    assert got == ["A", "a", "b"]


def test_distinct_under_strength_one_returns_one_value_per_equal_group(words):
    values = words.distinct("w", collation=BASE_LETTERS)
    assert len(values) == 3
    assert {v.lower() for v in values} <= {"apple", "banana", "côte", "cote"}


def test_group_keys_equal_under_the_collation_fall_together(words):
    groups = list(words.aggregate([{"$group": {"_id": "$w", "n": {"$sum": 1}}},
                                   {"$sort": {"n": -1}}], collation=CASE_INSENSITIVE))
    assert [g["n"] for g in groups] == [3, 1, 1, 1]


def test_aggregate_match_sort_and_expressions_use_the_collation(words):
    got = list(words.aggregate([
        {"$match": {"w": "APPLE"}},
        {"$project": {"same": {"$eq": ["$w", "apple"]}, "cmp": {"$cmp": ["$w", "APPLE"]}}},
    ], collation=CASE_INSENSITIVE))
    assert [(d["_id"], d["same"], d["cmp"]) for d in sorted(got, key=lambda d: d["_id"])] == \
        [(1, True, 0), (2, True, 0), (4, True, 0)]


def test_count_with_a_collation(words):
    assert words.count_documents({"w": "apple"}, collation=CASE_INSENSITIVE) == 3
    assert words.database.command("count", "words", query={"w": "APPLE"},
                                  collation={"locale": "en", "strength": 2})["n"] == 3


def test_update_many_and_delete_many_with_a_collation(words):
    result = words.update_many({"w": "apple"}, {"$set": {"fruit": True}},
                               collation=CASE_INSENSITIVE)
    assert result.matched_count == 3 and result.modified_count == 3
    assert words.delete_many({"w": "APPLE"}, collation=CASE_INSENSITIVE).deleted_count == 3
    assert ids(words.find()) == [3, 5, 6]


def test_update_one_and_delete_one_statements_each_with_their_own_collation(words):
    reply = words.database.command("update", "words", updates=[
        {"q": {"w": "APPLE"}, "u": {"$set": {"x": 1}}, "multi": True,
         "collation": {"locale": "en", "strength": 2}},
        {"q": {"w": "BANANA"}, "u": {"$set": {"x": 2}}},
    ])
    assert reply["n"] == 3 and reply["nModified"] == 3
    reply = words.database.command("delete", "words", deletes=[
        {"q": {"w": "Côte"}, "limit": 0, "collation": {"locale": "fr", "strength": 1}},
    ])
    assert reply["n"] == 2


def test_find_one_and_update_with_a_collation(words):
    doc = words.find_one_and_update({"w": "BANANA"}, {"$set": {"x": 1}},
                                    collation=CASE_INSENSITIVE,
                                    return_document=pymongo.ReturnDocument.AFTER)
    assert doc == {"_id": 3, "w": "banana", "x": 1}


def test_id_lookup_with_a_string_id_follows_the_collation(db):
    db.ids.insert_many([{"_id": "abc"}, {"_id": "x"}])
    assert ids(db.ids.find({"_id": "ABC"}, collation=CASE_INSENSITIVE)) == ["abc"]
    assert db.ids.delete_one({"_id": "ABC"}, collation=CASE_INSENSITIVE).deleted_count == 1
    assert db.ids.update_one({"_id": "X"}, {"$set": {"y": 1}},
                             collation=CASE_INSENSITIVE).modified_count == 1


def test_a_secondary_index_is_not_used_by_a_query_with_another_collation(words):
    words.create_index([("w", 1)])
    assert ids(words.find({"w": "apple"}, collation=CASE_INSENSITIVE)) == [1, 2, 4]
    plan = words.find({"w": "apple"}, collation=CASE_INSENSITIVE).explain()
    assert "IXSCAN" not in str(plan["queryPlanner"]["winningPlan"])
    assert ids(words.find({"w": "apple"}, collation=CASE_INSENSITIVE).hint([("w", 1)])) == \
        [1, 2, 4]
    # Nor by an $or whose branches the index would otherwise bound.
    either = {"$or": [{"w": "apple"}, {"w": "zzz"}]}
    assert ids(words.find(either, collation=CASE_INSENSITIVE)) == [1, 2, 4]
    plan = words.find(either, collation=CASE_INSENSITIVE).explain()
    assert "IXSCAN" not in str(plan["queryPlanner"]["winningPlan"])


def test_explain_of_a_find_with_a_collation(words):
    reply = words.database.command("explain", {"find": "words", "filter": {"w": "apple"},
                                               "collation": {"locale": "en", "strength": 2}},
                                   verbosity="executionStats")
    assert reply["executionStats"]["nReturned"] == 3


@pytest.mark.parametrize("collation, code", [
    ({"strength": 2}, 4),
    ({"locale": 5}, 14),
    ({"locale": "xx_nope"}, 2),
    ({"locale": "en", "strength": 0}, 51024),
    ({"locale": "en", "strength": "2"}, 14),
    ({"locale": "en", "caseFirst": "sideways"}, 2),
    ({"locale": "en", "bogus": 1}, 40415),
    ({"locale": "simple", "strength": 1}, 9),
    ({"locale": "en", "strength": 1, "backwards": True}, 2),
])
def test_bad_collations_fail_as_in_mongod(words, collation, code):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        words.database.command("find", "words", filter={}, collation=collation)
    assert info.value.code == code


def test_a_bad_locale_names_the_spec(words):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        list(words.find({}, collation=Collation("xx_nope")))
    assert "Field 'locale' is invalid in: { locale: \"xx_nope\" }" in str(info.value)


def test_a_collation_that_is_not_a_document_is_a_type_mismatch(words):
    with pytest.raises(pymongo.errors.OperationFailure) as info:
        words.database.command("find", "words", filter={}, collation="en")
    assert info.value.code == 14

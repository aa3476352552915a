"""A filter that cannot be decided for a document fails the query, as mongod's does, instead of
quietly leaving the document out: a $expr whose expression fails, and a regular expression that
backtracks catastrophically (bounded by PCRE2's match limit rather than spinning)."""

import pymongo
import pytest

CATASTROPHIC = "^(a+)+$"  # exponential backtracking on a long run of a's that fails at the end
MATCH_LIMIT_EXCEEDED = 51156


@pytest.fixture
def strings(db):
    db.s.insert_many([{"_id": i, "s": "a" * 40 + "b"} for i in range(50)] +
                     [{"_id": "plain", "s": "aaa"}])
    return db.s


def test_catastrophic_regex_in_find_answers_an_error(strings, client):
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        list(strings.find({"s": {"$regex": CATASTROPHIC}}))
    assert failure.value.code == MATCH_LIMIT_EXCEEDED
    assert "regular expression" in str(failure.value)
    assert client.admin.command("ping")["ok"] == 1


def test_catastrophic_regex_fails_updates_deletes_and_counts(strings):
    for run in (lambda: strings.update_many({"s": {"$regex": CATASTROPHIC}}, {"$set": {"x": 1}}),
                lambda: strings.delete_one({"_id": 1, "s": {"$regex": CATASTROPHIC}}),
                lambda: strings.count_documents({"s": {"$regex": CATASTROPHIC}})):
        with pytest.raises(pymongo.errors.OperationFailure) as failure:
            run()
        assert failure.value.code == MATCH_LIMIT_EXCEEDED
    assert strings.count_documents({"x": 1}) == 0
    assert strings.count_documents({}) == 51


def test_catastrophic_regex_match_expression_answers_an_error(strings):
    pipeline = [{"$project": {"m": {"$regexMatch": {"input": "$s", "regex": CATASTROPHIC}}}}]
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        list(strings.aggregate(pipeline))
    assert failure.value.code == MATCH_LIMIT_EXCEEDED


def test_match_limit_does_not_reach_ordinary_patterns(strings):
    assert [d["_id"] for d in strings.find({"s": {"$regex": CATASTROPHIC}, "_id": "plain"})] == [
        "plain"]
    assert strings.count_documents({"s": {"$regex": "a{40}b$"}}) == 50
    assert strings.count_documents({"s": {"$regex": "^(a|b)*c"}}) == 0


def test_expr_error_fails_the_query(db):
    db.e.insert_many([{"_id": 1, "a": 4, "b": 2}, {"_id": 2, "a": 1, "b": 0}])
    with pytest.raises(pymongo.errors.OperationFailure) as failure:
        list(db.e.find({"$expr": {"$gt": [{"$divide": ["$a", "$b"]}, 1]}}))
    assert "divide by zero" in str(failure.value)
    with pytest.raises(pymongo.errors.OperationFailure):
        list(db.e.aggregate([{"$match": {"$expr": {"$gt": [{"$divide": ["$a", "$b"]}, 1]}}}]))
    # Documents the expression can decide still match as before.
    assert [d["_id"] for d in db.e.find({"b": {"$ne": 0},
                                         "$expr": {"$gt": [{"$divide": ["$a", "$b"]}, 1]}})] == [1]


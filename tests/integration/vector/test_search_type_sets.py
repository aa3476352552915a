"""Atlas Search's `typeSets` against a real quarryd: a definition's typeSets name lists of field
types (autocomplete, boolean, date, geo, number, objectId, string, token, uuid), and a dynamic
document that names one (`dynamic: {typeSet: <name>}`, at the root, on a document field or on
embedded documents) maps every field that `fields` does not name as those types say, and its
sub-documents by the same typeSet.

Covered: strings analyzed as the typeSet's string type says (lucene.english stems), autocomplete
over dynamic fields, values held whole only for the typeSet's types, sub-documents under the
typeSet, a document field with a typeSet of its own beside one with `dynamic: true`, `exists`,
and the definitions refused. Expected matches are read off the documents here; scores are not
compared (the operators' scores are covered elsewhere).
"""
import pytest

from test_full_text_search import (assert_errors, create_index, create_ready, equals, ids, search,
                                   text)

BAD_VALUE = 2

DOCS = [
    {"_id": 1, "title": "Running foxes", "year": 1999, "ok": True,
     "sub": {"plot": "the foxes ran", "n": 3}, "meta": {"code": "A1", "note": "quick"}},
    {"_id": 2, "title": "A walking dog", "year": "1999", "ok": False,
     "sub": {"plot": "a dog walks", "n": 5}, "meta": {"code": "b2"}, "other": {"words": "fox"}},
    {"_id": 3, "title": "Run", "year": 2005, "meta": {"code": 7}, "other": {"n": 3}},
]

DEFINITION = {
    "typeSets": [
        {"name": "words", "types": [{"type": "string", "analyzer": "lucene.english"},
                                    {"type": "autocomplete", "minGrams": 2},
                                    {"type": "number"}]},
        {"name": "codes", "types": [{"type": "token"}]},
    ],
    "mappings": {"dynamic": {"typeSet": "words"}, "fields": {
        "meta": {"type": "document", "dynamic": {"typeSet": "codes"}},
        "other": {"type": "document", "dynamic": True},
    }},
}


@pytest.fixture(scope="module")
def docs(client):
    db = client["type_sets"]
    client.drop_database("type_sets")
    db.docs.insert_many(DOCS)
    create_ready(db, "docs", DEFINITION)
    yield db
    client.drop_database("type_sets")


def test_strings_are_analyzed_as_the_type_sets_string_type_says(docs):
    # lucene.english stems: "run" finds "Running" and "Run"; "fox" finds "foxes" below too.
    assert ids(search(docs, "docs", text("run", "title"))) == [3, 1]
    assert sorted(ids(search(docs, "docs", text("fox", "sub.plot")))) == [1]
    assert sorted(ids(search(docs, "docs", text("walk", ["title", "sub.plot"])))) == [2]


def test_autocomplete_reaches_dynamic_fields_through_the_type_set(docs):
    got = search(docs, "docs", {"autocomplete": {"query": "wal", "path": "title"}})
    assert ids(got) == [2]
    got = search(docs, "docs", {"autocomplete": {"query": "fo", "path": "sub.plot"}})
    assert ids(got) == [1]


def test_values_are_held_only_for_the_type_sets_types(docs):
    assert ids(search(docs, "docs", equals("year", 1999))) == [1]
    assert sorted(ids(search(docs, "docs", {"range": {"path": "sub.n", "gte": 3}}))) == [1, 2]
    # Booleans are no type of "words": not held.
    assert ids(search(docs, "docs", equals("ok", True))) == []


def test_a_document_field_may_name_a_type_set_of_its_own(docs):
    # meta's fields are tokens: held whole, not analyzed.
    assert ids(search(docs, "docs", equals("meta.code", "A1"))) == [1]
    assert ids(search(docs, "docs", text("quick", "meta.note"))) == []
    assert ids(search(docs, "docs", equals("meta.code", 7))) == []
    # other is dynamic: true: strings as text, numbers whole.
    assert ids(search(docs, "docs", text("fox", "other.words"))) == [2]
    assert ids(search(docs, "docs", equals("other.n", 3))) == [3]


def test_exists_finds_keys_a_type_set_maps(docs):
    assert sorted(ids(search(docs, "docs", {"exists": {"path": "ok"}}))) == [1, 2]
    assert sorted(ids(search(docs, "docs", {"exists": {"path": "sub.n"}}))) == [1, 2]


def test_malformed_type_sets_answer_bad_value(db):
    db.create_collection("docs")
    cases = [
        ({"mappings": {"dynamic": {"typeSet": "missing"}}}, BAD_VALUE, "missing"),
        ({"mappings": {"dynamic": {"typeSet": "t"}},
          "typeSets": [{"name": "t", "types": [{"type": "document"}]}]}, BAD_VALUE, "typeSet"),
        ({"mappings": {"dynamic": {"typeSet": "t"}},
          "typeSets": [{"name": "t", "types": [{"type": "stringFacet"}]}]}, BAD_VALUE, "typeSet"),
        ({"mappings": {"dynamic": True},
          "typeSets": [{"name": "t", "types": [{"type": "token"}, {"type": "token"}]}]},
         BAD_VALUE, "twice"),
        ({"mappings": {"dynamic": True}, "typeSets": [{"name": " ", "types": [{"type": "token"}]}]},
         BAD_VALUE, "name"),
        ({"mappings": {"dynamic": True}, "typeSets": [{"name": "t"}]}, BAD_VALUE, "types"),
        ({"mappings": {"dynamic": True}, "typeSets": {"name": "t"}}, BAD_VALUE, "typeSets"),
        ({"mappings": {"dynamic": {"typeSet": "t", "extra": 1}},
          "typeSets": [{"name": "t", "types": [{"type": "token"}]}]}, BAD_VALUE, "extra"),
    ]
    assert_errors(cases, lambda definition: create_index(db, "docs", definition))

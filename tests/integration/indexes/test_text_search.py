"""Text search with pymongo: text indexes as mongod 7.0 stores and lists them, the specs it
refuses, $text queries (English stemming and stop words, phrases, negations, case and diacritic
sensitivity, per-document languages, arrays and sub-documents) with {$meta: "textScore"} as
mongod computes it, $text in count, distinct, updates, deletes, findAndModify and aggregate, the
errors mongod answers for $text where it is not allowed, and an index kept up to date by writes
and across a restart.

Expected scores come from mongod's formula (FTSSpec::scoreDocument): for each indexed string,
a term scores weight x (1 + 1/2 + 1/4 ... one addend per occurrence) x (0.5 + 0.5 x
occurrences / tokens), x 1.1 when the whole string is the term (ignoring ASCII case); stop words
are not tokens. A document's score is the sum over the distinct query terms it holds.

Languages are mongod's fifteen (by name or two-letter code, in any case) and "none"; their stop
words are Quarry's own lists of function words, so the tests in other languages search for
content words only."""

import pymongo
import pymongo.errors
import pytest
from bson import SON

from quarry_server import CLIENT_OPTIONS

BAD_VALUE = 2
NO_SUCH_KEY = 4
TYPE_MISMATCH = 14
INDEX_NOT_FOUND = 27
CANNOT_CREATE_INDEX = 67
INDEX_OPTIONS_CONFLICT = 85
NO_QUERY_EXECUTION_PLANS = 291
TEXT_STORED_KEY = {"_fts": "text", "_ftsx": 1}
SCORE = {"$meta": "textScore"}
BY_SCORE = [("score", SCORE)]
NO_SCORE_METADATA = "query requires text score metadata, but it is not available"


def command_error(call):
    with pytest.raises(pymongo.errors.OperationFailure) as raised:
        call()
    return raised.value


def errmsg(error):
    return (error.details or {}).get("errmsg", str(error))


def wrong_errors(cases):
    """Runs each (label, call, code, message) and returns those that did not fail with that code
    and an errmsg containing that message, with what they did instead: [] when all did."""
    wrong = []
    for label, call, code, message in cases:
        try:
            call()
        except pymongo.errors.OperationFailure as error:
            if error.code != code or message not in errmsg(error):
                wrong.append((label, error.code, errmsg(error)))
        else:
            wrong.append((label, None, "no error"))
    return wrong


def text(search, **options):
    """A {$text: ...} filter; options are $language, $caseSensitive, $diacriticSensitive."""
    return {"$text": {"$search": search, **{f"${k}": v for k, v in options.items()}}}


def found(coll, search, **options):
    """Sorted _ids of the documents a $text search finds."""
    return sorted(d["_id"] for d in coll.find(text(search, **options), {"_id": 1}))


def scores(coll, search, **options):
    """{_id: textScore} of the documents a $text search finds."""
    return {d["_id"]: d["score"]
            for d in coll.find(text(search, **options), {"_id": 1, "score": SCORE})}


def index_names(coll):
    return [i["name"] for i in coll.list_indexes()]


def text_index_spec(coll):
    specs = [i for i in coll.list_indexes() if "textIndexVersion" in i]
    assert len(specs) == 1, specs
    return dict(specs[0])


def create_raw(coll, key, **options):
    """createIndexes with exactly this key pattern (in this order) and options."""
    return coll.database.command("createIndexes", coll.name,
                                 indexes=[{"key": SON(key), "name": "t", **options}])


# --- createIndex and listIndexes ------------------------------------------------------------


def test_a_text_index_is_listed_with_its_stored_key_weights_and_language_options(db):
    name = db.articles.create_index([("title", "text"), ("body", "text")])
    assert name == "title_text_body_text"
    spec = text_index_spec(db.articles)
    assert spec == {"v": 2, "key": TEXT_STORED_KEY, "name": "title_text_body_text",
                    "weights": {"body": 1, "title": 1}, "default_language": "english",
                    "language_override": "language", "textIndexVersion": 3}
    assert list(spec["key"]) == ["_fts", "_ftsx"]
    # Weights come from a sorted map: by field name, not in the key's order.
    assert list(spec["weights"]) == ["body", "title"]
    assert all(type(w) is int for w in spec["weights"].values())
    assert index_names(db.articles) == ["_id_", "title_text_body_text"]


def test_weights_are_stored_as_integers_and_may_name_fields_outside_the_key(db):
    db.c.create_index([("a", "text")], weights={"z": 2.9, "a": 10, "b.c": 3})
    weights = text_index_spec(db.c)["weights"]
    assert weights == {"a": 10, "b.c": 3, "z": 2}
    assert list(weights) == ["a", "b.c", "z"]
    assert all(type(w) is int for w in weights.values())
    # z is indexed with the truncated weight 2: 2 x 1.1 for a string that is the whole term.
    db.c.insert_many([{"_id": 1, "z": "dog"}, {"_id": 2, "b": {"c": "dog"}},
                      {"_id": 3, "a": "dog"}, {"_id": 4, "y": "dog"}])
    assert scores(db.c, "dog") == pytest.approx({1: 2.2, 2: 3.3, 3: 11.0})


def test_default_language_is_stored_as_given_and_still_means_english(db):
    db.c.create_index([("a", "text")], default_language="EN")
    spec = text_index_spec(db.c)
    assert spec["default_language"] == "EN"
    db.c.insert_many([{"_id": 1, "a": "running dogs"}, {"_id": 2, "a": "the cat"}])
    assert found(db.c, "run") == [1]
    assert found(db.c, "dog") == [1]
    assert found(db.c, "the") == []


def test_language_override_option_is_stored_and_names_the_documents_language_field(db):
    db.c.create_index([("a", "text")], language_override="lang")
    assert text_index_spec(db.c)["language_override"] == "lang"
    db.c.insert_many([{"_id": 1, "a": "running", "lang": "none"},
                      {"_id": 2, "a": "running", "language": "none"}])
    # "language" is an ordinary field here: document 2 is English, so "running" is "run".
    assert found(db.c, "run") == [2]
    assert found(db.c, "running", language="none") == [1]


def test_a_wildcard_text_index_indexes_every_string_field(db):
    name = db.c.create_index([("$**", "text")])
    assert name == "$**_text"
    spec = text_index_spec(db.c)
    assert spec["key"] == TEXT_STORED_KEY
    assert spec["weights"] == {"$**": 1}
    db.c.insert_many([
        {"_id": 1, "a": {"b": "dog"}},
        {"_id": 2, "c": ["cat", {"d": "dog"}]},
        {"_id": 3, "e": [["dog"]]},  # a wildcard index also walks arrays inside arrays
        {"_id": 4, "n": 5, "f": "fish"},
    ])
    assert found(db.c, "dog") == [1, 2, 3]
    assert found(db.c, "fish") == [4]
    assert found(db.c, "5") == []


def test_a_wildcard_index_with_a_named_weight_weights_that_exact_path_only(db):
    db.c.create_index([("$**", "text")], weights={"title": 5})
    weights = text_index_spec(db.c)["weights"]
    assert weights == {"$**": 1, "title": 5}
    assert list(weights) == ["$**", "title"]
    db.c.insert_many([{"_id": 1, "title": "dog", "body": "dog"},
                      {"_id": 2, "body": "dog"},
                      {"_id": 3, "sub": {"title": "dog"}}])
    assert scores(db.c, "dog") == pytest.approx({1: 5 * 1.1 + 1.1, 2: 1.1, 3: 1.1})


def test_an_index_built_over_existing_documents_finds_them(db):
    db.c.insert_many([{"_id": i, "a": f"item {word}"} for i, word in
                      enumerate(["dog", "cat", "dog", "fish"])])
    db.c.create_index([("a", "text")])
    assert found(db.c, "dog") == [0, 2]
    assert found(db.c, "item") == [0, 1, 2, 3]


# --- createIndex errors ---------------------------------------------------------------------


def test_bad_text_index_specs_fail_with_mongods_errors(db):
    db.c.insert_one({"_id": 1})
    weight_range = "text index weight must be in the exclusive interval (0,100000) but found: "
    cases = [
        ({"a": "text"}, {"weights": {"a": "heavy"}}, "weight for text index needs numeric type"),
        ({"a": "text"}, {"weights": {"a": 0}}, weight_range + "0"),
        ({"a": "text"}, {"weights": {"a": 0.5}}, weight_range + "0"),
        ({"a": "text"}, {"weights": {"a": -3}}, weight_range + "-3"),
        ({"a": "text"}, {"weights": {"a": 100000}}, weight_range + "100000"),
        ({"a": "text"}, {"weights": 5}, "text index option 'weights' must be an object"),
        ({"a": "text"}, {"default_language": "klingon"}, "default_language is not valid"),
        ({"a": "text"}, {"default_language": 5}, "default_language needs a string type"),
        ({"a": "text"}, {"language_override": 5}, "language_override must be a string"),
        ({"a": "text"}, {"language_override": "$lang"}, "language_override is not valid"),
        ({"a": "text"}, {"language_override": "a.b"}, "language_override is not valid"),
        ({"a": "text"}, {"textIndexVersion": 4}, "bad textIndexVersion: 4"),
        ({"a": "text", "b": 1, "c": "text"}, {}, "'text' fields in index must all be adjacent"),
        ({"_fts": "text"}, {}, "expected _ftsx after _fts"),
    ]
    assert wrong_errors([((key, options),
                          lambda key=key, options=options: create_raw(db.c, key, **options),
                          CANNOT_CREATE_INDEX, message)
                         for key, options, message in cases]) == []
    assert index_names(db.c) == ["_id_"]


def test_text_options_on_an_ordinary_index_are_refused(db):
    db.c.insert_one({"_id": 1})
    for options in ({"weights": {"a": 2}}, {"default_language": "english"},
                    {"language_override": "lang"}):
        error = command_error(lambda: create_raw(db.c, {"a": 1}, **options))
        assert error.code == CANNOT_CREATE_INDEX, (options, error.details)
    assert index_names(db.c) == ["_id_"]


def test_an_index_in_another_language_stems_in_it(db):
    db.c.insert_many([{"_id": 1, "a": "Las tortillas de mi abuela"},
                      {"_id": 2, "a": "Una tortilla española"}, {"_id": 3, "a": "tortugas"}])
    db.c.create_index([("a", "text")], default_language="es")
    assert text_index_spec(db.c)["default_language"] == "es"
    # Spanish stemming makes the plural and the singular one term.
    assert found(db.c, "tortillas") == [1, 2]
    assert found(db.c, "abuelas") == [1]
    db.c.drop_index("a_text")
    # "none", and English spelled in any case, are accepted; English does not stem "tortillas"
    # to "tortilla".
    db.c.create_index([("a", "text")], default_language="none")
    assert found(db.c, "tortilla") == [2]
    db.c.drop_index("a_text")
    db.c.create_index([("a", "text")], default_language="English")
    assert text_index_spec(db.c)["default_language"] == "English"


def test_compound_text_indexes_are_refused_by_quarry(db):
    # A Quarry restriction: mongod builds text indexes with prefix and suffix fields.
    db.c.insert_one({"_id": 1})
    for key in ([("a", 1), ("b", "text")], [("b", "text"), ("c", -1)]):
        error = command_error(lambda: db.c.create_index(key))
        assert error.code == CANNOT_CREATE_INDEX, (key, error.details)
        assert "not supported by Quarry yet" in errmsg(error), key
    assert index_names(db.c) == ["_id_"]


def test_a_collection_has_at_most_one_text_index(db):
    db.c.create_index([("a", "text")])
    # The same index again is a no-op, whatever textIndexVersion says.
    db.c.create_index([("a", "text")])
    db.c.create_index([("a", "text")], textIndexVersion=3)
    assert wrong_errors([
        # Another field: the same stored key {_fts: "text", _ftsx: 1}, another name and weights.
        ("b_text", lambda: db.c.create_index([("b", "text")]), INDEX_OPTIONS_CONFLICT,
         "An equivalent index already exists with a different name and options"),
        ("other weights", lambda: db.c.create_index([("a", "text")], weights={"a": 2}),
         INDEX_OPTIONS_CONFLICT,
         "An equivalent index already exists with the same name but different options"),
        ("other name", lambda: db.c.create_index([("a", "text")], name="other"),
         INDEX_OPTIONS_CONFLICT, "Index already exists with a different name: a_text"),
    ]) == []
    assert index_names(db.c) == ["_id_", "a_text"]
    assert text_index_spec(db.c)["weights"] == {"a": 1}


def test_a_text_index_needs_the_simple_collation(db):
    db.c.insert_one({"_id": 1})
    error = command_error(lambda: db.c.create_index([("a", "text")],
                                                    collation={"locale": "en"}))
    assert error.code == CANNOT_CREATE_INDEX, error.details
    assert "Index type 'text' does not support collation" in errmsg(error)
    assert index_names(db.c) == ["_id_"]
    # On a collection with a default collation the index would inherit it.
    db.create_collection("ci", collation={"locale": "en", "strength": 2})
    error = command_error(lambda: db.ci.create_index([("a", "text")]))
    assert error.code == CANNOT_CREATE_INDEX, error.details
    assert "Index type 'text' does not support collation" in errmsg(error)
    db.ci.create_index([("a", "text")], collation={"locale": "simple"})
    db.ci.insert_one({"_id": 1, "a": "Dog"})
    assert found(db.ci, "dog") == [1]


# --- dropIndexes ----------------------------------------------------------------------------


def test_a_text_index_is_dropped_by_name_or_by_its_stored_key(db):
    db.c.insert_one({"_id": 1, "a": "dog"})
    db.c.create_index([("a", "text")])
    db.c.drop_index("a_text")
    assert index_names(db.c) == ["_id_"]
    db.c.create_index([("a", "text")])
    # The key the user wrote is not the stored one.
    error = command_error(lambda: db.command("dropIndexes", "c", index={"a": "text"}))
    assert error.code == INDEX_NOT_FOUND, error.details
    assert "can't find index with key" in errmsg(error)
    assert index_names(db.c) == ["_id_", "a_text"]
    db.command("dropIndexes", "c", index=SON([("_fts", "text"), ("_ftsx", 1)]))
    assert index_names(db.c) == ["_id_"]
    error = command_error(lambda: list(db.c.find(text("dog"))))
    assert error.code == INDEX_NOT_FOUND
    # A new text index on another field can now be made.
    db.c.create_index([("b", "text")])
    assert found(db.c, "dog") == []


# --- scores ---------------------------------------------------------------------------------


def test_text_scores_follow_mongods_formula(db):
    db.c.create_index([("a", "text")])
    db.c.insert_many([
        {"_id": 1, "a": "test"},                  # the whole string is the term: 1.1
        {"_id": 2, "a": "test test"},             # (1 + 1/2) x (0.5 + 0.5 x 2/2) = 1.5
        {"_id": 3, "a": "a test of the scores"},  # 2 tokens (stop words skipped): 0.75
        {"_id": 4, "a": "TEST"},                  # equal ignoring ASCII case: 1.1
        {"_id": 5, "a": "Tests"},                 # stems to "test" but is longer: 1.0
        {"_id": 6, "a": "test test test drive"},  # 1.75 x (0.5 + 0.5 x 3/4) = 1.53125
        {"_id": 7, "a": "drive"},
    ])
    assert scores(db.c, "test") == pytest.approx(
        {1: 1.1, 2: 1.5, 3: 0.75, 4: 1.1, 5: 1.0, 6: 1.53125})


def test_a_score_is_the_sum_over_distinct_query_terms(db):
    db.c.create_index([("a", "text")])
    db.c.insert_many([{"_id": 1, "a": "textual content"}, {"_id": 2, "a": "content"}])
    assert scores(db.c, "textual content") == pytest.approx({1: 1.5, 2: 1.1})
    assert scores(db.c, "textual") == pytest.approx({1: 0.75})
    # A repeated query term counts once; negations and flags do not change the score.
    assert scores(db.c, "textual textual") == pytest.approx({1: 0.75})
    assert scores(db.c, "content -nothing") == pytest.approx({1: 0.75, 2: 1.1})
    assert scores(db.c, "content", caseSensitive=True) == pytest.approx({1: 0.75, 2: 1.1})
    assert scores(db.c, "content", diacriticSensitive=True) == pytest.approx({1: 0.75, 2: 1.1})


def test_weights_multiply_each_fields_score_and_fields_add_up(db):
    db.c.create_index([("title", "text"), ("body", "text")], weights={"title": 10})
    db.c.insert_many([
        {"_id": 1, "title": "dog", "body": "a dog and a cat"},  # 10 x 1.1 + 0.75
        {"_id": 2, "title": "cat", "body": "dog"},              # 1.1
        {"_id": 3, "title": "dog cat"},                         # 10 x 0.75
    ])
    assert scores(db.c, "dog") == pytest.approx({1: 11.75, 2: 1.1, 3: 7.5})
    assert scores(db.c, "dog cat") == pytest.approx({1: 12.5, 2: 12.1, 3: 15.0})
    ordered = list(db.c.find(text("dog cat"), {"score": SCORE}).sort(BY_SCORE))
    assert [d["_id"] for d in ordered] == [3, 1, 2]


def test_each_array_element_is_scored_on_its_own_and_the_scores_add_up(db):
    db.c.create_index([("tags", "text")])
    db.c.insert_many([{"_id": 1, "tags": ["dog", "dog cat"]}, {"_id": 2, "tags": ["dog cat"]}])
    assert scores(db.c, "dog") == pytest.approx({1: 1.1 + 0.75, 2: 0.75})


def test_a_score_only_projection_keeps_the_other_fields_and_overwrites_the_named_one(db):
    # As on MongoDB's $text page: {score: {$meta: "textScore"}} alone adds the score to the
    # whole document.
    db.c.create_index([("a", "text")])
    db.c.insert_many([{"_id": 1, "a": "test", "n": 1, "score": "old"},
                      {"_id": 2, "a": "drive"}])
    assert list(db.c.find(text("test"), {"score": SCORE})) == [
        {"_id": 1, "a": "test", "n": 1, "score": pytest.approx(1.1)}]


def test_a_score_with_an_inclusion_projection_or_only_in_the_sort(db):
    db.c.create_index([("a", "text")])
    db.c.insert_many([{"_id": 1, "a": "test", "n": 1, "score": "old"},
                      {"_id": 2, "a": "drive"}])
    assert list(db.c.find(text("test"), {"a": 1, "s": SCORE})) == [
        {"_id": 1, "a": "test", "s": pytest.approx(1.1)}]
    # Sorting by the score needs no projection of it.
    assert list(db.c.find(text("test")).sort(BY_SCORE)) == [
        {"_id": 1, "a": "test", "n": 1, "score": "old"}]


def test_sort_by_score_is_highest_first_with_limit_and_skip(db):
    db.c.create_index([("a", "text")])
    db.c.insert_many([
        {"_id": 1, "a": "dog"},                # 1.1
        {"_id": 2, "a": "dog dog"},            # 1.5
        {"_id": 3, "a": "dog cat"},            # 0.75
        {"_id": 4, "a": "dog cat fish bird"},  # 0.625
        {"_id": 5, "a": "dog dog dog"},        # 1.75
        {"_id": 6, "a": "the DOG"},            # 1 token, not the whole string: 1.0
        {"_id": 7, "a": "cat"},
    ])

    def ranked(**window):
        cursor = db.c.find(text("dog"), {"score": SCORE}).sort(BY_SCORE)
        if "skip" in window:
            cursor = cursor.skip(window["skip"])
        if "limit" in window:
            cursor = cursor.limit(window["limit"])
        docs = list(cursor)
        return [d["_id"] for d in docs], [d["score"] for d in docs]

    ids = [5, 2, 1, 6, 3, 4]
    expected = [1.75, 1.5, 1.1, 1.0, 0.75, 0.625]
    for window, part in (({}, slice(None)), ({"limit": 2}, slice(0, 2)),
                         ({"skip": 2, "limit": 2}, slice(2, 4)), ({"skip": 5}, slice(5, None))):
        got_ids, got_scores = ranked(**window)
        assert got_ids == ids[part], window
        assert got_scores == pytest.approx(expected[part]), window
    # The score may follow another sort key.
    db.c.update_many({}, {"$set": {"g": 1}})
    db.c.update_many({"_id": {"$in": [3, 4]}}, {"$set": {"g": 0}})
    both = db.c.find(text("dog")).sort([("g", 1), ("s", SCORE)])
    assert [d["_id"] for d in both] == [3, 4, 5, 2, 1, 6]


# --- what matches ---------------------------------------------------------------------------


def test_english_stemming_matches_word_forms(db):
    db.c.create_index([("a", "text")])
    db.c.insert_many([{"_id": 1, "a": "running dogs"}, {"_id": 2, "a": "the dog runs"},
                      {"_id": 3, "a": "cats ran away"}])
    assert found(db.c, "run") == [1, 2]
    assert found(db.c, "running") == [1, 2]
    assert found(db.c, "dogs") == [1, 2]
    assert found(db.c, "cat") == [3]
    assert found(db.c, "ran") == [3]  # Porter2 does not know irregular forms


def test_stop_words_are_neither_indexed_nor_searched(db):
    db.c.create_index([("a", "text")])
    db.c.insert_many([{"_id": 1, "a": "the quick fox"}, {"_id": 2, "a": "of mice and men"}])
    assert found(db.c, "the") == []
    assert found(db.c, "the and of") == []
    assert found(db.c, '"the"') == []
    assert found(db.c, "") == []
    assert db.c.count_documents(text("the")) == 0
    assert found(db.c, "the fox") == [1]
    # "the" is not a token: "quick fox" has two.
    assert scores(db.c, "fox") == pytest.approx({1: 0.75})


def test_phrases_are_case_and_diacritic_insensitive_substrings(db):
    db.c.create_index([("subject", "text")])
    db.c.insert_many([{"_id": 1, "subject": "coffee"}, {"_id": 2, "subject": "Coffee Shopping"},
                      {"_id": 3, "subject": "coffee and cream"},
                      {"_id": 4, "subject": "Café Con Leche"},
                      {"_id": 5, "subject": "Cafe con Leche"}])
    assert found(db.c, '"coffee shop"') == [2]
    assert found(db.c, '"CAFE CON"') == [4, 5]
    assert found(db.c, '"café con"') == [4, 5]
    # Every phrase must be there.
    assert found(db.c, '"coffee" "cream"') == [3]
    assert found(db.c, '"coffee" "leche"') == []
    # A phrase with other terms: the terms find, the phrase filters.
    assert found(db.c, 'leche "con leche"') == [4, 5]
    assert found(db.c, 'coffee -"and cream"') == [1, 2]


def test_phrases_may_be_found_in_different_fields_but_each_in_one_string(db):
    db.c.create_index([("title", "text"), ("body", "text")])
    db.c.insert_many([{"_id": 1, "title": "red fish", "body": "blue fish"},
                      {"_id": 2, "title": "red fish"},
                      {"_id": 3, "title": "red", "body": "fish"}])
    assert found(db.c, '"red fish" "blue fish"') == [1]
    assert found(db.c, '"red fish"') == [1, 2]


def test_negated_terms_exclude_documents(db):
    db.c.create_index([("subject", "text")])
    db.c.insert_many([{"_id": 1, "subject": "coffee"}, {"_id": 2, "subject": "Coffee Shopping"},
                      {"_id": 3, "subject": "coffee and cream"}])
    assert found(db.c, "coffee -shopping") == [1, 3]
    assert found(db.c, "coffee -shop") == [1, 3]  # stemmed like the positive terms
    assert found(db.c, "coffee -cream -shop") == [1]
    assert found(db.c, "-coffee") == []
    # A hyphen inside a word only separates two positive terms.
    assert found(db.c, "cream-shop") == [2, 3]


def test_case_sensitive_search_needs_a_term_in_that_case(db):
    db.c.create_index([("subject", "text")])
    db.c.insert_many([{"_id": 1, "subject": "coffee"}, {"_id": 2, "subject": "Coffee Shopping"},
                      {"_id": 3, "subject": "COFFEE"}])
    assert found(db.c, "coffee") == [1, 2, 3]
    assert found(db.c, "Coffee", caseSensitive=True) == [2]
    assert found(db.c, "COFFEE", caseSensitive=True) == [3]
    assert found(db.c, "coffee", caseSensitive=False) == [1, 2, 3]
    assert found(db.c, '"Coffee Shop"', caseSensitive=True) == [2]
    assert found(db.c, '"coffee shop"', caseSensitive=True) == []


def test_diacritic_sensitive_search_needs_a_term_with_those_accents(db):
    db.c.create_index([("subject", "text")])
    db.c.insert_many([{"_id": 4, "subject": "Café Con Leche"},
                      {"_id": 5, "subject": "Cafe con Leche"}])
    assert found(db.c, "café") == [4, 5]
    assert found(db.c, "cafe") == [4, 5]
    assert found(db.c, "café", diacriticSensitive=True) == [4]
    assert found(db.c, "cafe", diacriticSensitive=True) == [5]
    assert found(db.c, "leches -cafés", diacriticSensitive=True) == [5]
    assert found(db.c, '"Café Con"', diacriticSensitive=True) == [4]
    # Three tokens, "café" is one: 0.5 + 0.5 / 3, with the flag or without.
    assert scores(db.c, "café", diacriticSensitive=True) == pytest.approx({4: 2 / 3})
    assert scores(db.c, "café") == pytest.approx({4: 2 / 3, 5: 2 / 3})


def test_language_none_per_document_turns_off_stemming_and_stop_words(db):
    db.c.create_index([("a", "text")])
    db.c.insert_many([{"_id": 1, "a": "running the show"},
                      {"_id": 2, "a": "running the show", "language": "none"},
                      {"_id": 3, "a": "running", "language": "EN"},
                      {"_id": 4, "a": "running", "language": "English"}])
    assert found(db.c, "run") == [1, 3, 4]
    assert found(db.c, "show") == [1, 2]
    assert found(db.c, "running", language="none") == [2]
    assert found(db.c, "the", language="none") == [2]
    assert found(db.c, "run", language="en") == [1, 3, 4]
    # "running the show" in "none" has three tokens; "running" is one of them.
    assert scores(db.c, "running", language="none") == pytest.approx({2: 0.5 + 0.5 / 3})


def test_a_sub_documents_language_field_applies_to_that_sub_document(db):
    db.c.create_index([("a", "text"), ("sub.a", "text")])
    db.c.insert_many([
        {"_id": 1, "a": "jumping", "sub": {"a": "jumping", "language": "none"}},
        {"_id": 2, "sub": {"a": "jumping"}},                     # inherits English
        {"_id": 3, "language": "none", "sub": {"a": "jumping"}},  # inherits "none"
    ])
    assert found(db.c, "jump") == [1, 2]
    assert found(db.c, "jumping", language="none") == [1, 3]
    # Document 1: "jump" from a (English, not the whole string), "jumping" from sub.a (1.1).
    assert scores(db.c, "jump") == pytest.approx({1: 1.0, 2: 1.0})
    assert scores(db.c, "jumping", language="none") == pytest.approx({1: 1.1, 3: 1.1})


def test_arrays_of_strings_and_sub_document_paths_are_indexed(db):
    db.c.create_index([("tags", "text"), ("a.b", "text")])
    db.c.insert_many([
        {"_id": 1, "tags": ["red fish", "blue"]},
        {"_id": 2, "a": {"b": "red"}},
        {"_id": 3, "a": [{"b": "red"}, {"b": "green"}]},
        {"_id": 4, "tags": [["red"]]},       # an array in an array is not walked
        {"_id": 5, "a": {"c": "red"}},       # not an indexed path
        {"_id": 6, "tags": 5, "a": {"b": 7}},  # only strings are indexed
        {"_id": 7, "red": "red"},
    ])
    assert found(db.c, "red") == [1, 2, 3]
    assert found(db.c, "green") == [3]
    assert found(db.c, "blue") == [1]
    assert found(db.c, "5") == []
    assert found(db.c, "7") == []


def test_text_with_other_conditions_at_the_top_level_and_under_and(db):
    db.c.create_index([("a", "text")])
    db.c.insert_many([{"_id": 1, "a": "dog", "n": 1}, {"_id": 2, "a": "dog", "n": 2},
                      {"_id": 3, "a": "dog cat", "n": 3}, {"_id": 4, "a": "cat", "n": 4}])

    def ids(filter):
        return sorted(d["_id"] for d in db.c.find(filter))

    assert ids({**text("dog"), "n": {"$gte": 2}}) == [2, 3]
    assert ids({"$and": [text("dog"), {"n": {"$lte": 2}}]}) == [1, 2]
    assert ids({"$and": [text("dog cat"), {"$or": [{"n": 1}, {"n": 4}]}]}) == [1, 4]
    assert ids({"$and": [{"n": {"$ne": 3}}, {"$and": [text("cat")]}]}) == [4]


# --- other commands -------------------------------------------------------------------------


@pytest.fixture
def pets(db):
    db.pets.create_index([("a", "text")])
    db.pets.insert_many([{"_id": 1, "a": "dog", "k": "x"}, {"_id": 2, "a": "dog cat", "k": "y"},
                         {"_id": 3, "a": "cat", "k": "y"}, {"_id": 4, "a": "fish", "k": "z"}])
    return db.pets


def test_count_and_distinct_take_a_text_filter(pets):
    assert pets.count_documents(text("dog")) == 2
    assert pets.database.command("count", "pets", query=text("cat"))["n"] == 2
    assert pets.database.command("count", "pets", query=text("cat -dog"))["n"] == 1
    assert sorted(pets.distinct("k", text("dog"))) == ["x", "y"]
    assert pets.distinct("k", text("fish")) == ["z"]


def test_update_and_delete_take_a_text_filter(pets):
    updated = pets.update_many(text("cat"), {"$set": {"seen": True}})
    assert (updated.matched_count, updated.modified_count) == (2, 2)
    assert sorted(d["_id"] for d in pets.find({"seen": True})) == [2, 3]
    one = pets.update_one(text("fish"), {"$inc": {"n": 1}})
    assert one.modified_count == 1
    assert pets.find_one({"_id": 4})["n"] == 1
    deleted = pets.delete_many(text("dog -cat"))
    assert deleted.deleted_count == 1
    assert sorted(d["_id"] for d in pets.find()) == [2, 3, 4]
    assert found(pets, "dog") == [2]


def test_find_and_modify_by_text_changes_a_match(pets):
    before = pets.find_one_and_update(text("fish"), {"$set": {"top": True}})
    assert before == {"_id": 4, "a": "fish", "k": "z"}
    assert [d["_id"] for d in pets.find({"top": True})] == [4]
    removed = pets.find_one_and_delete(text("fish"), sort=[("_id", -1)])
    assert removed == {"_id": 4, "a": "fish", "k": "z", "top": True}
    assert found(pets, "fish") == []


def test_find_one_and_update_by_text_takes_the_best_scored_document(pets):
    before = pets.find_one_and_update(text("cat"), {"$set": {"top": True}},
                                      sort=[("s", SCORE)])
    # "cat" alone scores 1.1, "dog cat" 0.75.
    assert before == {"_id": 3, "a": "cat", "k": "y"}
    assert [d["_id"] for d in pets.find({"top": True})] == [3]
    removed = pets.find_one_and_delete(text("cat"), sort=[("s", SCORE)])
    assert removed == {"_id": 3, "a": "cat", "k": "y", "top": True}
    assert found(pets, "cat") == [2]


def test_find_and_modify_projects_the_text_score(pets):
    # As in mongod's jstest fts_find_and_modify: `fields` may hold the score, with or without
    # a sort by it, for updates and removes.
    before = pets.find_one_and_update(text("cat"), {"$set": {"top": True}},
                                      projection={"s": SCORE}, sort=[("s", SCORE)])
    assert before == {"_id": 3, "a": "cat", "k": "y", "s": pytest.approx(1.1)}
    after = pets.find_one_and_update(text("fish"), {"$set": {"n": 1}}, projection={"s": SCORE},
                                     return_document=pymongo.ReturnDocument.AFTER)
    assert after == {"_id": 4, "a": "fish", "k": "z", "n": 1, "s": pytest.approx(1.1)}
    removed = pets.find_one_and_delete(text("dog"), projection={"s": SCORE})
    assert removed["s"] in (pytest.approx(1.1), pytest.approx(0.75))
    # An inclusion keeps the score beside the included fields.
    kept = pets.find_one_and_update(text("cat"), {"$set": {"m": 1}},
                                    projection={"k": 1, "s": SCORE}, sort=[("s", SCORE)])
    assert kept == {"_id": 3, "k": "y", "s": pytest.approx(1.1)}


def test_find_and_modify_without_text_has_no_score(pets):
    for call in (lambda: pets.find_one_and_update({}, {"$set": {"x": 1}}, sort=[("s", SCORE)]),
                 lambda: pets.find_one_and_delete({}, projection={"s": SCORE})):
        error = command_error(call)
        assert error.code == 40218, error.details
        assert NO_SCORE_METADATA in errmsg(error)
    assert pets.count_documents({}) == 4


def test_aggregate_matches_sorts_and_projects_the_score(db):
    db.c.create_index([("a", "text")])
    db.c.insert_many([{"_id": 1, "a": "dog", "g": "a"}, {"_id": 2, "a": "dog dog", "g": "b"},
                      {"_id": 3, "a": "dog cat", "g": "a"}, {"_id": 4, "a": "cat"}])
    out = list(db.c.aggregate([{"$match": text("dog")},
                               {"$sort": {"score": SCORE}},
                               {"$project": {"score": SCORE}}]))
    assert out == [{"_id": 2, "score": pytest.approx(1.5)},
                   {"_id": 1, "score": pytest.approx(1.1)},
                   {"_id": 3, "score": pytest.approx(0.75)}]
    added = list(db.c.aggregate([{"$match": text("dog")},
                                 {"$addFields": {"score": SCORE}},
                                 {"$match": {"score": {"$gt": 1}}},
                                 {"$sort": {"score": -1}}]))
    assert [(d["_id"], d["a"]) for d in added] == [(2, "dog dog"), (1, "dog")]
    grouped = list(db.c.aggregate([{"$match": text("dog")},
                                   {"$group": {"_id": "$g", "total": {"$sum": SCORE},
                                               "best": {"$max": SCORE}, "n": {"$sum": 1}}},
                                   {"$sort": {"_id": 1}}]))
    assert grouped == [{"_id": "a", "total": pytest.approx(1.85), "best": pytest.approx(1.1),
                        "n": 2},
                       {"_id": "b", "total": pytest.approx(1.5), "best": pytest.approx(1.5),
                        "n": 1}]
    counted = list(db.c.aggregate([{"$match": {"$and": [text("cat"), {"g": "a"}]}},
                                   {"$count": "n"}]))
    assert counted == [{"n": 1}]


# --- errors ---------------------------------------------------------------------------------


@pytest.fixture
def indexed(db):
    db.c.create_index([("a", "text")])
    db.c.insert_many([{"_id": 1, "a": "dog", "n": 1, "arr": [{"a": "dog"}]},
                      {"_id": 2, "a": "cat", "n": 2}])
    return db.c


def test_text_where_mongod_does_not_allow_it_fails_with_its_errors(indexed):
    dog = text("dog")
    cases = [
        ({"$nor": [dog, {"n": 5}]}, BAD_VALUE, "text expression not allowed in nor"),
        ({"$and": [{"$nor": [{"n": 5}, {"$and": [dog]}]}]}, BAD_VALUE,
         "text expression not allowed in nor"),
        ({"arr": {"$elemMatch": dog}}, BAD_VALUE,
         "$text can only be applied to the top-level document"),
        ({"$and": [dog, text("cat")]}, BAD_VALUE, "Too many text expressions"),
        ({**dog, "$and": [text("cat")]}, BAD_VALUE, "Too many text expressions"),
    ]
    assert wrong_errors([(filter, lambda filter=filter: list(indexed.find(filter)), code, message)
                         for filter, code, message in cases]) == []


def test_text_under_or_has_no_plan(indexed):
    # mongod plans $text under $or when an index serves every other branch (291 otherwise);
    # Quarry answers $text at the top of a filter or under $and only, with the same code.
    error = command_error(lambda: list(indexed.find({"$or": [text("dog"), {"n": 2}]})))
    assert error.code == NO_QUERY_EXECUTION_PLANS, error.details
    assert "$or" in errmsg(error)


def test_malformed_text_operators_fail_with_mongods_errors(indexed):
    cases = [
        ({"$text": "dog"}, BAD_VALUE, "$text expects an object"),
        ({"$text": {}}, NO_SUCH_KEY, 'Missing expected field "$search"'),
        ({"$text": {"$search": 5}}, TYPE_MISMATCH,
         '"$search" had the wrong type. Expected string, found '),
        ({"$text": {"$search": "dog", "$caseSensitive": "yes"}}, TYPE_MISMATCH,
         '"$caseSensitive" had the wrong type. Expected bool, found string'),
        ({"$text": {"$search": "dog", "$diacriticSensitive": 1}}, TYPE_MISMATCH,
         '"$diacriticSensitive" had the wrong type. Expected bool'),
        ({"$text": {"$search": "dog", "$language": 5}}, TYPE_MISMATCH,
         '"$language" had the wrong type'),
        ({"$text": {"$search": "dog", "$bogus": 1}}, BAD_VALUE, "extra fields in $text"),
        ({"$text": {"$search": "dog", "$language": "klingon"}}, BAD_VALUE,
         'unsupported language: "klingon" for text index version 3'),
    ]
    assert wrong_errors([(filter, lambda filter=filter: list(indexed.find(filter)), code, message)
                         for filter, code, message in cases]) == []


def test_a_query_in_another_language_reads_its_terms_in_it(db):
    # MongoDB's $text tutorial: $language reads the search in Spanish over an English index.
    db.c.insert_many([{"_id": 5, "subject": "Café Con Leche"},
                      {"_id": 8, "subject": "Cafe con Leche"}, {"_id": 9, "subject": "coffee"}])
    db.c.create_index([("subject", "text")])
    for language in ("spanish", "es", "ES"):
        assert found(db.c, "leche", language=language) == [5, 8], language
    # "con" is a Spanish stop word: alone it finds nothing in Spanish.
    assert found(db.c, "con", language="es") == []


def test_text_with_a_hint_or_a_natural_sort_is_refused(indexed):
    dog = text("dog")
    hinted = "text and hint not allowed in same query"
    natural = "text expression not allowed with $natural sort order"
    cases = [(f"find hint {hint}", lambda hint=hint: list(indexed.find(dog).hint(hint)),
              BAD_VALUE, hinted) for hint in ("_id_", [("_id", 1)], [("$natural", 1)])]
    cases.append(("count hint", lambda: indexed.database.command("count", "c", query=dog,
                                                                  hint="_id_"),
                  BAD_VALUE, hinted))
    cases += [(f"$natural {direction}",
               lambda direction=direction: list(indexed.find(dog).sort("$natural", direction)),
               BAD_VALUE, natural) for direction in (1, -1)]
    assert wrong_errors(cases) == []


def test_text_without_a_text_index_fails_with_index_not_found(db):
    db.plain.insert_one({"_id": 1, "a": "dog"})
    db.plain.create_index("a")
    for call in (lambda: list(db.plain.find(text("dog"))),
                 lambda: db.plain.count_documents(text("dog")),
                 lambda: list(db.plain.aggregate([{"$match": text("dog")}])),
                 lambda: db.plain.update_many(text("dog"), {"$set": {"x": 1}}),
                 lambda: list(db.missing.find(text("dog")))):
        error = command_error(call)
        assert error.code == INDEX_NOT_FOUND, error.details
        assert "text index required for $text query" in errmsg(error)
    assert db.plain.find_one({"_id": 1}) == {"_id": 1, "a": "dog"}


def test_a_text_match_must_be_the_first_pipeline_stage(indexed):
    for pipeline in ([{"$match": {"n": 1}}, {"$match": text("dog")}],
                     [{"$project": {"a": 1}}, {"$match": {"$and": [text("dog"), {"n": 1}]}}],
                     [{"$match": text("dog")}, {"$match": text("cat")}]):
        error = command_error(lambda: list(indexed.aggregate(pipeline)))
        assert error.code == 17313, (pipeline, error.details)
        assert "$match with $text is only allowed as the first pipeline stage" in errmsg(error)


def test_the_score_without_a_text_query_is_not_available(indexed):
    calls = [
        lambda: list(indexed.find({}, {"s": SCORE})),
        lambda: list(indexed.find({"n": 1}).sort([("s", SCORE)])),
        lambda: list(indexed.aggregate([{"$project": {"s": SCORE}}])),
        lambda: list(indexed.aggregate([{"$match": {"n": 1}}, {"$sort": {"s": SCORE}}])),
        lambda: list(indexed.aggregate([{"$addFields": {"s": SCORE}}])),
        lambda: list(indexed.aggregate([{"$group": {"_id": None, "s": {"$sum": SCORE}}}])),
    ]
    assert wrong_errors([(i, call, 40218, NO_SCORE_METADATA)
                         for i, call in enumerate(calls)]) == []


def test_text_through_a_view_is_refused(indexed):
    indexed.database.command("create", "v", viewOn="c", pipeline=[{"$match": {"n": 1}}])
    error = command_error(lambda: list(indexed.database.v.find(text("dog"))))
    assert error.code == 17313, error.details


def test_text_in_a_validator_is_refused(db):
    error = command_error(lambda: db.create_collection(
        "v", validator={"$text": {"$search": "dog"}}))
    assert error.code == BAD_VALUE, error.details
    assert "$text is not allowed in this context" in errmsg(error)


# --- documents with a language field --------------------------------------------------------


def test_documents_with_an_unsupported_or_non_string_language_are_not_written(db):
    db.c.create_index([("a", "text")])
    cases = [("klingon", 17262, "language override unsupported: klingon"),
             ("pt-BR", 17262, "language override unsupported: pt-BR"),
             (5, 17261, "found language override field in document with non-string type")]
    for language, code, message in cases:
        with pytest.raises(pymongo.errors.WriteError) as raised:
            db.c.insert_one({"_id": 1, "a": "hola", "language": language})
        assert raised.value.code == code, (language, raised.value.details)
        assert message in raised.value.details["errmsg"], language
    assert db.c.count_documents({}) == 0
    # Ordered inserts stop at the bad document; updates into a bad language change nothing.
    with pytest.raises(pymongo.errors.BulkWriteError) as raised:
        db.c.insert_many([{"_id": 1, "a": "dog"}, {"_id": 2, "a": "dog", "language": "klingon"},
                          {"_id": 3, "a": "dog"}])
    assert [e["code"] for e in raised.value.details["writeErrors"]] == [17262]
    assert sorted(d["_id"] for d in db.c.find()) == [1]
    with pytest.raises(pymongo.errors.WriteError) as raised:
        db.c.update_one({"_id": 1}, {"$set": {"language": "klingon", "a": "cat"}})
    assert raised.value.code == 17262
    assert db.c.find_one({"_id": 1}) == {"_id": 1, "a": "dog"}
    assert found(db.c, "dog") == [1]
    assert found(db.c, "cat") == []


def test_building_an_index_over_a_document_with_a_bad_language_fails(db):
    db.c.insert_many([{"_id": 1, "a": "dog"}, {"_id": 2, "a": "cat", "language": "klingon"}])
    error = command_error(lambda: db.c.create_index([("a", "text")]))
    assert "language override unsupported: klingon" in errmsg(error), error.details
    assert index_names(db.c) == ["_id_"]
    assert db.c.count_documents({}) == 2


# --- the index follows writes ---------------------------------------------------------------


def test_the_index_follows_updates_replacements_and_deletes(db):
    db.c.create_index([("a", "text")])
    db.c.insert_many([{"_id": 1, "a": "red fish"}, {"_id": 2, "a": "blue fish"}])
    assert found(db.c, "fish") == [1, 2]
    db.c.update_one({"_id": 1}, {"$set": {"a": "green frog"}})
    assert found(db.c, "red") == []
    assert found(db.c, "frog") == [1]
    assert found(db.c, "fish") == [2]
    db.c.replace_one({"_id": 2}, {"a": "frog"})
    assert found(db.c, "blue") == []
    assert scores(db.c, "frog") == pytest.approx({1: 0.75, 2: 1.1})
    db.c.update_one({"_id": 2}, {"$set": {"language": "none", "a": "frogs"}})
    assert found(db.c, "frog") == [1]
    assert found(db.c, "frogs", language="none") == [2]
    db.c.update_one({"_id": 1}, {"$set": {"a": 5}})
    assert found(db.c, "frog") == []
    db.c.delete_one({"_id": 2})
    assert found(db.c, "frogs", language="none") == []
    db.c.update_one({"_id": 3}, {"$set": {"a": "upserted frog"}}, upsert=True)
    assert found(db.c, "frog") == [3]


def test_a_text_index_survives_a_restart(own_server):
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        coll = c.t_text_restart.articles
        coll.create_index([("title", "text"), ("body", "text")], weights={"title": 3})
        coll.insert_many([{"_id": 1, "title": "dog", "body": "cat"},
                          {"_id": 2, "title": "cat", "body": "dog"},
                          {"_id": 3, "title": "bird", "body": "the running dogs"}])
        spec = text_index_spec(coll)
    own_server.restart()
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as c:
        coll = c.t_text_restart.articles
        assert text_index_spec(coll) == spec
        # title 3 x 1.1; body 1.1; "running dogs" has two tokens.
        assert scores(coll, "dog") == pytest.approx({1: 3.3, 2: 1.1, 3: 0.75})
        assert found(coll, "run") == [3]
        coll.insert_one({"_id": 4, "title": "dogs"})
        coll.delete_one({"_id": 2})
        # "dogs" is not the whole-string term: 3 x 1.0, between 3.3 and 0.75.
        ranked = [d["_id"] for d in coll.find(text("dog")).sort(BY_SCORE)]
        assert ranked == [1, 4, 3]


def test_facets_read_the_score_of_the_search_before_them(db):
    # As mongod's jstest of metadata in $facet: each facet sees the documents' scores.
    db.c.create_index([("a", "text")])
    db.c.insert_many([{"_id": 1, "a": "three"}, {"_id": 2, "a": "three four"}, {"_id": 3, "a": "x"}])
    out = list(db.c.aggregate([
        {"$match": text("three")},
        {"$facet": {"scored": [{"$project": {"score": SCORE}}, {"$sort": {"_id": 1}}],
                    "best": [{"$sort": {"s": SCORE}}, {"$limit": 1}, {"$project": {"_id": 1}}]}}]))
    assert out == [{"scored": [{"_id": 1, "score": pytest.approx(1.1)},
                               {"_id": 2, "score": pytest.approx(0.75)}],
                    "best": [{"_id": 1}]}]


def test_explain_of_a_find_with_text_shows_the_text_stage(db):
    db.c.create_index([("a", "text")])
    db.c.insert_many([{"_id": 1, "a": "dog"}, {"_id": 2, "a": "cat"}])
    explained = db.command("explain", {"find": "c", "filter": text("dog"),
                                       "projection": {"s": SCORE}})
    plan = str(explained)
    assert "TEXT_MATCH" in plan and "'terms': ['dog']" in plan, explained
    assert "'nReturned': 1" in plan, explained


def test_a_partial_text_index_answers_only_searches_within_its_filter(db):
    db.c.create_index([("a", "text")], partialFilterExpression={"k": {"$gt": 1}})
    db.c.insert_many([{"_id": 1, "a": "dog", "k": 1}, {"_id": 2, "a": "dog", "k": 2}])
    assert sorted(d["_id"] for d in db.c.find({"$text": {"$search": "dog"}, "k": {"$gt": 1}})) == [2]
    # Without the index's condition the index would miss _id 1: no index can answer.
    error = command_error(lambda: list(db.c.find(text("dog"))))
    assert error.code == INDEX_NOT_FOUND, error.details

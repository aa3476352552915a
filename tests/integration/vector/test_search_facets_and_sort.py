"""Atlas Search's facets, sort, $$SEARCH_META and term-level operators against a real quarryd.

Covers the `wildcard` and `regex` operators (whole terms of keyword-analyzed fields, analyzed words
with allowAnalyzedField), `near` over numbers and dates, `$search`'s `sort` (values held whole,
arrays, missing values, mixed types, the search score as a key), the token normalizer and the
option checks of the value types, `$searchMeta`'s facet collector (string, number and date facets,
the older stringFacet/numberFacet/dateFacet mapping types), `$$SEARCH_META` after `$search`, and
`exists` over paths mapped only as autocomplete; with the shapes of Atlas's tutorials ("How to Use
Facets", pagination with `count` and `$facet`, sorting by release date then score).

Expected answers are computed here from the inserted documents: the terms each analyzer makes,
the values each mapping holds whole, MongoDB's order of BSON types, facet counts, near's
pivot / (pivot + distance).
"""
import datetime
import functools
import re
import uuid
from collections import Counter

import pytest
from bson import Int64, ObjectId
from bson.binary import Binary, UUID_SUBTYPE

from test_full_text_search import (DYNAMIC, Field, Grams, add, assert_errors, assert_results,
                                   create_index, create_ready, error_of, ids, kind, leaves, ranked,
                                   standard, static)

NOT_IMPLEMENTED, BAD_VALUE, TYPE_MISMATCH = 238, 2, 14
EPOCH = datetime.datetime(1970, 1, 1)
NINETY_DAYS_MS = 7776000000  # the pivot of Atlas's facet tutorial


def day(year, month=1, date=1):
    return datetime.datetime(year, month, date)


def oid(n):
    return ObjectId(f"{n:024x}")


def uuid_of(n):
    return Binary(uuid.UUID(int=n).bytes, UUID_SUBTYPE)


# --- running stages --------------------------------------------------------------------------

def search(db, coll, operator, index="default", **options):
    """[(_id, score)] of `{$search: {index, <operator>, <options>}}` in the order returned."""
    docs = db[coll].aggregate([{"$search": {"index": index, **operator, **options}},
                               {"$project": {"_id": 1, "score": {"$meta": "searchScore"}}}])
    return [(d["_id"], d["score"]) for d in docs]


def search_meta(db, coll, spec, index="default"):
    return list(db[coll].aggregate([{"$searchMeta": {"index": index, **spec}}]))


def facet_meta(db, coll, facets, operator=None, index="default", **options):
    """The one document of `$searchMeta: {index, facet: {operator?, facets}, <options>}`."""
    facet = {"facets": facets, **({} if operator is None else {"operator": operator})}
    (meta,) = search_meta(db, coll, {"facet": facet, **options}, index=index)
    return meta


# --- what an index holds whole, and MongoDB's order of the values --------------------------

def holder(kinds, lowercase=()):
    """held(doc, path): the values an index holds whole at `path` of `doc`, kinds(path) saying
    which kinds of value ("number", "date", "string" for tokens...) the path holds."""
    def held(doc, path):
        values = [v for p, v in leaves(doc) if p == path and kind(v) in kinds(path)]
        return [v.lower() for v in values] if path in lowercase else values
    return held


WHOLE_KINDS = {"number", "date", "boolean", "objectId", "uuid"}  # a dynamic mapping's
dynamic_held = holder(lambda path: WHOLE_KINDS)

TYPE_RANK = {"number": 1, "string": 2, "uuid": 3, "objectId": 4, "boolean": 5, "date": 6}
LOWEST, HIGHEST = (0,), (99,)  # where documents without a value sort


def bson_key(value):
    """A key that orders values as MongoDB orders BSON: numbers < strings < binData < ObjectId <
    booleans < dates; binData by length, subtype, then bytes."""
    k = kind(value)
    if k == "uuid":
        return (TYPE_RANK[k], (len(value), value.subtype, bytes(value)))
    if k == "objectId":
        return (TYPE_RANK[k], value.binary)
    if k == "boolean":
        return (TYPE_RANK[k], int(value))
    return (TYPE_RANK[k], value)


def sort_fields(sort):
    """[(path or None for the score, descending, no data highest)] of a $search.sort."""
    fields = []
    for path, spec in sort.items():
        if isinstance(spec, dict) and "$meta" in spec:
            fields.append((None, spec.get("order", -1) == -1, False))
        elif isinstance(spec, dict):
            fields.append((path, spec["order"] == -1, spec.get("noData") == "highest"))
        else:
            fields.append((path, spec == -1, False))
    return fields


def sorted_ids(docs, scores, sort, held):
    """The _ids of `scores` (the matches) as `sort` orders them: per field the least (ascending)
    or greatest (descending) value held, documents without one lowest unless noData is
    "highest"; ties in the order of `docs` (the order they were indexed)."""
    by_id = {d["_id"]: d for d in docs}
    order = {d["_id"]: n for n, d in enumerate(docs)}
    fields = sort_fields(sort)

    def key(doc_id, path, descending, high):
        if path is None:
            return scores[doc_id]
        values = [bson_key(v) for v in held(by_id[doc_id], path)]
        if not values:
            return HIGHEST if high else LOWEST
        return max(values) if descending else min(values)

    def compare(a, b):
        for path, descending, high in fields:
            ka, kb = key(a, path, descending, high), key(b, path, descending, high)
            if ka != kb:
                c = -1 if ka < kb else 1
                return -c if descending else c
        return order[a] - order[b]

    return sorted(scores, key=functools.cmp_to_key(compare))


# --- facets, counted here ------------------------------------------------------------------

def string_buckets(docs, matched, path, held, num_buckets=10):
    """Each distinct value counted once per document, most frequent first, ties by value."""
    counts = Counter(v for d in docs if d["_id"] in matched for v in set(held(d, path)))
    top = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:num_buckets]
    return [{"_id": value, "count": n} for value, n in top]


def range_buckets(docs, matched, path, held, boundaries, default=None):
    """[b_i, b_i+1) in boundary order, a document counted once per range it has a value in;
    then the default bucket: the documents with a value outside every range."""
    counts, outside = [0] * (len(boundaries) - 1), 0
    for doc in docs:
        if doc["_id"] not in matched:
            continue
        values = held(doc, path)
        hit = {i for v in values for i in range(len(counts))
               if boundaries[i] <= v < boundaries[i + 1]}
        for i in hit:
            counts[i] += 1
        outside += any(not boundaries[0] <= v < boundaries[-1] for v in values)
    buckets = [{"_id": b, "count": n} for b, n in zip(boundaries, counts)]
    return buckets + ([{"_id": default, "count": outside}] if default is not None else [])


def of_kind(held, wanted):
    return lambda doc, path: [v for v in held(doc, path) if kind(v) == wanted]


# --- near, computed here -------------------------------------------------------------------

def position(value):
    """A number as itself, a date as its milliseconds since the epoch."""
    if isinstance(value, datetime.datetime):
        return (value - EPOCH) / datetime.timedelta(milliseconds=1)
    return float(value)


def near_scores(docs, paths, origin, pivot, held):
    """{_id: score}: per path, pivot / (pivot + |nearest value of the origin's kind - origin|),
    summed over the paths holding one."""
    paths = paths if isinstance(paths, list) else [paths]
    scores = {}
    for doc in docs:
        for path in paths:
            values = [v for v in held(doc, path) if kind(v) == kind(origin)]
            if values:
                nearest = min(abs(position(v) - position(origin)) for v in values)
                scores[doc["_id"]] = scores.get(doc["_id"], 0) + pivot / (pivot + nearest)
    return scores


# --- wildcard and regex patterns, as Python regular expressions ----------------------------

def wildcard_regex(pattern):
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        else:
            if c == "\\" and i + 1 < len(pattern):
                i += 1
                c = pattern[i]
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out), re.S)


SHORTHANDS = {"d": "[0-9]", "D": "[^0-9]", "w": "[a-zA-Z0-9_]", "W": "[^a-zA-Z0-9_]",
              "s": "[ \\t\\n\\r\\f\\v]", "S": "[^ \\t\\n\\r\\f\\v]"}


def lucene_regex(pattern):
    """Lucene's syntax for the patterns these tests use: a quoted string is one unit, `@` any
    string, `#` nothing, `^` and `$` plain characters; classes are copied as written."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        i += 1
        if c == "\\":
            out.append(SHORTHANDS.get(pattern[i], re.escape(pattern[i])))
            i += 1
        elif c == '"':
            end = pattern.index('"', i)
            out.append("(?:" + re.escape(pattern[i:end]) + ")")
            i = end + 1
        elif c == "[":
            end = pattern.index("]", i + 1)
            out.append(pattern[i - 1:end + 1])
            i = end + 1
        elif c in ".?*+(){}|,0123456789":
            out.append(c)
        elif c == "@":
            out.append(".*")
        elif c == "#":
            out.append("(?!)")
        else:
            out.append(re.escape(c))
    return re.compile("".join(out), re.S)


def pattern_scores(docs, terms_at, paths, patterns, compile_):
    """{_id: number of paths where a term matches one of the patterns whole}."""
    patterns = [compile_(p) for p in (patterns if isinstance(patterns, list) else [patterns])]
    scores = {}
    for doc in docs:
        for path in paths:
            if any(p.fullmatch(t) for t in terms_at(doc, path) for p in patterns):
                scores[doc["_id"]] = scores.get(doc["_id"], 0) + 1.0
    return scores


def strings_at(doc, path):
    return [v for p, v in leaves(doc) if p == path and isinstance(v, str)]


def keyword_terms(doc, path):
    return strings_at(doc, path)


def standard_terms(doc, path):
    return [t for s in strings_at(doc, path) for t in standard(s)]


def whitespace_terms(doc, path):
    return [t for s in strings_at(doc, path) for t in s.split()]


# --- the documents -------------------------------------------------------------------------
# Movies in the shape of Atlas's sample_mflix.movies: genres an array (or a lone string, empty,
# repeated, missing), year an int (or Int64, double, array, string, missing), released a date (or
# an array of dates, a string, missing). Inserted in _id order, so the order they are indexed in.

MOVIES = [
    {"_id": 1, "title": "The Great Train Robbery", "genres": ["Short", "Western"], "year": 1903,
     "released": day(1903, 12, 1), "runtime": 11, "plot": "A gang of bandits rob a train"},
    {"_id": 2, "title": "A Corner in Wheat", "genres": ["Short", "Drama"], "year": 1909,
     "released": day(1909, 12, 13), "runtime": 14, "plot": "A greedy tycoon corners the wheat"},
    {"_id": 3, "title": "Traffic in Souls", "genres": ["Crime", "Drama"], "year": 1913,
     "released": day(1913, 11, 24), "runtime": 88, "plot": "A young woman is sold by a gang"},
    {"_id": 4, "title": "The Perils of Pauline", "genres": ["Action"], "year": 1914,
     "released": day(1914, 3, 23), "runtime": 199, "plot": "Pauline faces the perils of a train"},
    {"_id": 5, "title": "The Four Horsemen of the Apocalypse",
     "genres": ["Drama", "Romance", "War"], "year": 1921, "released": day(1921, 3, 6),
     "runtime": 150.5, "plot": "An epic of the war and of a family torn apart"},
    {"_id": 6, "title": "The Kid", "genres": ["Comedy", "Drama", "Family"], "year": 1921,
     "released": day(1921, 3, 6), "runtime": Int64(68),
     "plot": "The tramp cares for a kid left in the street"},
    {"_id": 7, "title": "Nosferatu", "genres": "Horror", "year": Int64(1922),
     "released": day(1922, 3, 4), "runtime": 94, "plot": "A vampire comes to the town"},
    {"_id": 8, "title": "Safety Last!", "genres": ["Comedy", "Thriller", "Comedy"], "year": 1923.0,
     "released": day(1923, 4, 1), "runtime": [70, 73], "plot": "A boy climbs the clock of a tower"},
    {"_id": 9, "title": "Sherlock Jr.", "genres": ["Action", "Comedy"], "year": [1924, 1925],
     "released": [day(1924, 4, 21), day(1925, 1, 1)], "runtime": 45,
     "plot": "A projectionist dreams he is a detective on the train"},
    {"_id": 10, "title": "The Gold Rush", "genres": [], "year": 1925.5,
     "released": day(1925, 6, 26), "runtime": 95, "plot": "The tramp seeks gold in the cold"},
    {"_id": 11, "title": "The General", "genres": ["Action", "Comedy"], "year": "1926",
     "released": "1927-02-05", "plot": "An engineer chases the train that was his"},
    {"_id": 12, "title": "metropolis", "genres": ["drama", "Sci-Fi"], "year": 1927,
     "runtime": 153, "plot": "The city of the future and the workers below it"},
    {"_id": 13, "title": "Wings", "year": 1927, "released": day(1927, 8, 12),
     "plot": "Two pilots of the war and a girl"},
    {"_id": 14, "title": "Sunrise", "genres": ["Drama", "Romance"], "year": 1910,
     "released": day(1927, 10, 6), "runtime": 94,
     "plot": "A farmer takes his wife to the city by train"},
    {"_id": 15, "title": "The Jazz Singer", "genres": ["Drama", "Music", "Romance"], "year": 1940,
     "released": day(1927, 10, 6), "runtime": 96, "plot": "The son of a cantor sings jazz"},
    {"_id": 16, "genres": ["Documentary"], "year": 1899, "released": day(1899, 1, 1),
     "plot": "A film of a train in a station"},
]

# The index of Atlas's "How to Use Facets" tutorial, with the older facet types.
FACET_TUTORIAL = {"mappings": {"dynamic": False, "fields": {
    "genres": {"type": "stringFacet"},
    "year": {"type": "numberFacet"},
    "released": [{"type": "date"}, {"type": "dateFacet"}]}}}
FACET_TUTORIAL_KINDS = {"genres": {"string"}, "year": {"number"}, "released": {"date"}}
facet_tutorial_held = holder(lambda path: FACET_TUTORIAL_KINDS.get(path, set()))

MAPPED = {"mappings": {"dynamic": False, "fields": {
    "title": [{"type": "token", "normalizer": "lowercase"}, {"type": "string"}],
    "genres": {"type": "token"},
    "year": {"type": "number"},
    "runtime": {"type": "number", "representation": "double", "indexIntegers": True,
                "indexDoubles": True},
    "released": {"type": "date"},
    "plot": {"type": "string"}}}}
MAPPED_KINDS = {"title": {"string"}, "genres": {"string"}, "year": {"number"},
                "runtime": {"number"}, "released": {"date"}}
mapped_held = holder(lambda path: MAPPED_KINDS.get(path, set()), lowercase={"title"})

AUTOCOMPLETE_ONLY = static(title={"type": "autocomplete"}, genres={"type": "token"})

# Terms for wildcard and regex: codes and tags analyzed by lucene.keyword (one term per string),
# names by lucene.standard, labels by lucene.whitespace.
WORDS = [
    {"_id": 1, "code": "AB-100", "name": "Prince of Persia", "tags": ["red fox", "Blue"],
     "label": "Big Red"},
    {"_id": 2, "code": "ab-200", "name": "The Princess Bride", "tags": ["fox"], "label": "big"},
    {"_id": 3, "code": "AB-1000", "name": "Prancer", "tags": [], "label": "RED-ish"},
    {"_id": 4, "code": "XY?9", "name": "Dance Dance Revolution", "tags": "dance"},
    {"_id": 5, "code": "a*b", "name": "prince", "tags": ["x^y", "a$"], "label": "a*b"},
    {"_id": 6, "code": ["CD-300", "ab-300"], "name": 42},
    {"_id": 7, "name": "Ab ab AB", "tags": ["ab", "abab"]},
    {"_id": 8, "code": "abab", "name": "Cafe Society 2049", "tags": ["AB-100"]},
    {"_id": 9, "code": "a\\b", "name": "Princes and paupers", "tags": ["ab.b"]},
]
WORD_FIELDS = {"code": {"type": "string", "analyzer": "lucene.keyword"},
               "tags": {"type": "string", "analyzer": "lucene.keyword"},
               "name": {"type": "string"},
               "label": {"type": "string", "analyzer": "lucene.whitespace"}}
WORD_TERMS = {"code": keyword_terms, "tags": keyword_terms, "name": standard_terms,
              "label": whitespace_terms}


def word_terms(doc, path):
    return WORD_TERMS[path](doc, path)


DATABASE = "t_search_facets_and_sort"


@pytest.fixture(scope="module")
def movies(client):
    """One database for the module, loaded and indexed once: the movies under the facet
    tutorial's index, a static index ("default"), a dynamic one and one mapping titles only as
    autocomplete; the words under an index of keyword, standard and whitespace fields
    ("default") and a dynamic lucene.keyword one."""
    client.drop_database(DATABASE)
    db = client[DATABASE]
    db.movies.insert_many([dict(m) for m in MOVIES])
    db.words.insert_many([dict(w) for w in WORDS])
    create_ready(db, "movies", FACET_TUTORIAL, name="facet-tutorial")
    create_ready(db, "movies", MAPPED)
    create_ready(db, "movies", DYNAMIC, name="dynamic")
    create_ready(db, "movies", AUTOCOMPLETE_ONLY, name="titles")
    create_ready(db, "words", static(**WORD_FIELDS))
    create_ready(db, "words", {"analyzer": "lucene.keyword", "mappings": {"dynamic": True}},
                 name="keywords")
    yield db
    client.drop_database(DATABASE)


def all_ids(docs):
    return {d["_id"]: 1.0 for d in docs}


EVERY_MOVIE = {"exists": {"path": "plot"}}  # every movie has a plot: scores 1


# --- wildcard --------------------------------------------------------------------------------

def wildcard(query, path, **options):
    return {"wildcard": {"query": query, "path": path, **options}}


def regex(query, path, **options):
    return {"regex": {"query": query, "path": path, **options}}


def check_patterns(db, cases, index="default"):
    """Each case (operator, expected {_id: score}) is what $search on the words answers, best
    first, ties in insertion order."""
    wrong = []
    for operator, expected in cases:
        got = search(db, "words", operator, index=index)
        want = ranked(expected, WORDS)
        if ids(got) != ids(want) or [s for _, s in got] != pytest.approx(
                [s for _, s in want], rel=1e-12):
            wrong.append(f"{operator!r}: want {want}, got {got}")
    assert not wrong, "\n".join(wrong)


def pattern_cases(op, compile_, queries, paths, **options):
    """(operator, expected scores) of `op` with each query over `paths` of the words."""
    cases = []
    for query in queries:
        operator = {op: {"query": query, "path": paths, **options}}
        plist = paths if isinstance(paths, list) else [paths]
        cases.append((operator, pattern_scores(WORDS, word_terms, plist, query, compile_)))
    return cases


def test_wildcard_matches_whole_keyword_terms_with_star_question_mark_and_escapes(movies):
    queries = ["AB-*", "ab-*", "AB-1??", "AB-1?0", "*00", "a\\*b", "a*b", "XY\\?9", "XY?9", "*",
               "??-???", "*-*", "a\\\\b", "A*", "x^y", "a$", "ab.b", ["AB-*", "ab-*"],
               ["*0", "*9", "zzz"], "red fox", "red*", "nothing*"]
    cases = pattern_cases("wildcard", wildcard_regex, queries, "code")
    cases += pattern_cases("wildcard", wildcard_regex, queries, "tags")
    check_patterns(movies, cases)
    # Case matters, and `?` is exactly one character, `*` any run (none too).
    assert ids(search(movies, "words", wildcard("ab-*", "code"))) == [2, 6]
    assert ids(search(movies, "words", wildcard("AB-1?0", "code"))) == [1]
    assert ids(search(movies, "words", wildcard("AB-100*", "code"))) == [1, 3]
    assert ids(search(movies, "words", wildcard("a\\*b", "code"))) == [5]
    assert ids(search(movies, "words", wildcard("a*b", "code"))) == [5, 8, 9]


def test_wildcard_scores_one_per_matching_path_times_the_boost_or_a_constant(movies):
    paths = ["code", "tags"]
    for query in ["AB-1*", "ab*", "*", ["ab", "*0"], "*b"]:
        expected = pattern_scores(WORDS, word_terms, paths, query, wildcard_regex)
        assert_results(search(movies, "words", wildcard(query, paths)), ranked(expected, WORDS))
        boosted = wildcard(query, paths, score={"boost": {"value": 2.5}})
        assert_results(search(movies, "words", boosted),
                       ranked({i: 2.5 * s for i, s in expected.items()}, WORDS))
        constant = wildcard(query, paths, score={"constant": {"value": 0.5}})
        assert_results(search(movies, "words", constant),
                       ranked({i: 0.5 for i in expected}, WORDS))
    # "AB-100" is a code of 1 and a tag of 8; "ab" and "abab" are tags of 7, "abab" a code of 8.
    assert search(movies, "words", wildcard("AB-100", paths)) == [(1, 1.0), (8, 1.0)]
    assert search(movies, "words", wildcard(["abab", "AB-100"], paths)) == [
        (8, 2.0), (1, 1.0), (7, 1.0)]


def test_wildcard_on_analyzed_fields_needs_allow_analyzed_field_and_matches_their_words(movies):
    for path in ["name", "label", ["code", "name"], {"wildcard": "*"}]:
        code, message = error_of(lambda: search(movies, "words", wildcard("prince*", path)))
        assert code == BAD_VALUE and "allowAnalyzedField" in message, (path, message)
        code, message = error_of(lambda: search(movies, "words", regex("prince.*", path)))
        assert code == BAD_VALUE and "allowAnalyzedField" in message, (path, message)
    queries = ["prince*", "princ?", "prin*s", "*a*", "dance", "20??", "society", "persia",
               "ab", "the", "big", "red*", "RED*", "*-ish", "a\\*b"]
    cases = pattern_cases("wildcard", wildcard_regex, queries, "name", allowAnalyzedField=True)
    cases += pattern_cases("wildcard", wildcard_regex, queries, "label", allowAnalyzedField=True)
    cases += pattern_cases("wildcard", wildcard_regex, queries, ["name", "label", "code"],
                           allowAnalyzedField=True)
    check_patterns(movies, cases)
    # lucene.standard's words are lowercase; lucene.whitespace keeps case and punctuation.
    assert ids(search(movies, "words", wildcard("prince*", "name", allowAnalyzedField=True))) == \
        [1, 2, 5, 9]
    assert ids(search(movies, "words", wildcard("red*", "label", allowAnalyzedField=True))) == []
    assert ids(search(movies, "words", wildcard("RED*", "label", allowAnalyzedField=True))) == [3]
    # allowAnalyzedField changes nothing on a keyword field.
    assert search(movies, "words", wildcard("ab-*", "code", allowAnalyzedField=True)) == \
        search(movies, "words", wildcard("ab-*", "code"))


def test_wildcard_query_on_an_analyzed_field_goes_through_its_token_filters(movies):
    # Atlas's wildcard docs ("Behavior"): with allowAnalyzedField: true the query goes through
    # the field analyzer's character and token filters but not its tokenizer (one term stays
    # one term), as Lucene normalizes multi-term queries: lucene.standard lowercases it.
    lowercase = search(movies, "words", wildcard("prince*", "name", allowAnalyzedField=True))
    assert ids(lowercase) == [1, 2, 5, 9]
    assert search(movies, "words", wildcard("Prince*", "name", allowAnalyzedField=True)) == \
        lowercase
    assert search(movies, "words", wildcard("PRINCE?", "name", allowAnalyzedField=True)) == \
        search(movies, "words", wildcard("prince?", "name", allowAnalyzedField=True))
    # lucene.whitespace has no lowercase filter: case still matters there.
    assert search(movies, "words", wildcard("red*", "label", allowAnalyzedField=True)) == []


def test_a_keyword_analyzed_index_needs_no_allow_analyzed_field_even_for_wildcard_paths(movies):
    for query in ["ab*", "*0", "Prince*", "*", "dance"]:
        expected = pattern_scores(WORDS, keyword_terms, ["code", "name", "tags", "label"], query,
                                  wildcard_regex)
        assert_results(search(movies, "words", wildcard(query, {"wildcard": "*"}),
                              index="keywords"), ranked(expected, WORDS))
        expected = pattern_scores(WORDS, keyword_terms, ["name"], query, wildcard_regex)
        assert_results(search(movies, "words", wildcard(query, "name"), index="keywords"),
                       ranked(expected, WORDS))
    assert ids(search(movies, "words", wildcard("Prince*", "name"), index="keywords")) == [1, 9]


# --- regex -----------------------------------------------------------------------------------

REGEXES = ["AB-[0-9]+", "[a-z]{2}-\\d{3}", "(AB|CD)-.*", "ab-(100|200|300)", "a.b", "a\\*b",
           "XY\\?9", "XY.9", "@", "ab@", ".*00", "[^a]B-.*", "a(ba)*b", "\\w\\w-\\d+", "#",
           "ab#|abab", "AB-1{1,2}0+", "AB-10{2,}", "AB-10{3}", "x^y", "a$", "^AB.*", "AB.*$",
           "[A-Z]+-[0-9]+", "\\D\\D-\\d00", "AB-\\S*", "red\\sfox", "red fox", "a\\\\b",
           "ab\\.b", "ab.b", "(ab)+", "a?b?", "ab?ab", ["AB.*", "CD.*"], ["#", "fox"]]


def test_regex_matches_whole_keyword_terms_in_lucene_syntax(movies):
    cases = pattern_cases("regex", lucene_regex, REGEXES, "code")
    cases += pattern_cases("regex", lucene_regex, REGEXES, "tags")
    cases += pattern_cases("regex", lucene_regex, REGEXES, ["code", "tags"])
    check_patterns(movies, cases)
    # Anchored at both ends; ^ and $ are characters like any other.
    assert ids(search(movies, "words", regex("AB", "code"))) == []
    assert ids(search(movies, "words", regex("AB-1.*", "code"))) == [1, 3]
    assert ids(search(movies, "words", regex("^AB.*", "code"))) == []
    assert ids(search(movies, "words", regex("x^y", "tags"))) == [5]
    assert ids(search(movies, "words", regex("a$", "tags"))) == [5]
    assert ids(search(movies, "words", regex("@", "code"))) == [1, 2, 3, 4, 5, 6, 8, 9]
    assert search(movies, "words", regex("#", "code")) == []


def test_regex_quoted_strings_are_one_unit_for_the_operators_after_them(movies):
    # Lucene: "abc" matches the characters literally, and as one unit: "ab"+ is (ab)+.
    cases = pattern_cases("regex", lucene_regex, ['"ab"+', '"ab"*', '"ab"{2}', '"ab"?ab',
                                                 '"a*b"', '"XY?9"', '"AB-"1+0*'],
                          ["code", "tags"])
    check_patterns(movies, cases)
    assert ids(search(movies, "words", regex('"ab"+', "tags"))) == [7]
    assert ids(search(movies, "words", regex('"ab"{2}', ["code", "tags"]))) == [7, 8]


def test_regex_on_analyzed_words_and_its_score(movies):
    queries = ["prince.*", "prince(ss)?", "[a-z]+", "\\d+", "da.ce", "(dance|society)",
               "RED-.*", "red-.*", "big|Big", "p.*s"]
    cases = pattern_cases("regex", lucene_regex, queries, "name", allowAnalyzedField=True)
    cases += pattern_cases("regex", lucene_regex, queries, ["name", "label"],
                           allowAnalyzedField=True)
    check_patterns(movies, cases)
    expected = pattern_scores(WORDS, word_terms, ["name", "label"], "[a-z]+", lucene_regex)
    boosted = regex("[a-z]+", ["name", "label"], allowAnalyzedField=True,
                    score={"boost": {"value": 3}})
    assert_results(search(movies, "words", boosted),
                   ranked({i: 3 * s for i, s in expected.items()}, WORDS))
    constant = regex("[a-z]+", ["name", "label"], allowAnalyzedField=True,
                     score={"constant": {"value": 7}})
    assert_results(search(movies, "words", constant), ranked({i: 7.0 for i in expected}, WORDS))


def test_wildcard_and_regex_as_compound_clauses(movies):
    codes = pattern_scores(WORDS, word_terms, ["code"], "AB-.*", lucene_regex)
    tags = pattern_scores(WORDS, word_terms, ["tags"], "*fox*", wildcard_regex)
    names = pattern_scores(WORDS, word_terms, ["name"], "prince*", wildcard_regex)
    got = search(movies, "words", {"compound": {"should": [regex("AB-.*", "code"),
                                                           wildcard("*fox*", "tags")]}})
    assert_results(got, ranked(add(codes, tags), WORDS))
    got = search(movies, "words", {"compound": {
        "must": [wildcard("prince*", "name", allowAnalyzedField=True)],
        "mustNot": [regex("ab-.*", "code")]}})
    assert_results(got, ranked({i: s for i, s in names.items()
                                if i not in pattern_scores(WORDS, word_terms, ["code"], "ab-.*",
                                                           lucene_regex)}, WORDS))
    got = search(movies, "words", {"compound": {"filter": [regex("AB-.*", "code")],
                                                "should": [wildcard("*fox*", "tags")]}})
    assert_results(got, ranked({i: tags.get(i, 0.0) for i in codes}, WORDS))


def test_malformed_wildcard_and_regex_answer_bad_value_and_lucene_extras_not_implemented(movies):
    cases = [
        (regex("a&b", "code"), NOT_IMPLEMENTED, "&"),
        (regex("~a", "code"), NOT_IMPLEMENTED, "~"),
        (regex("<1-5>", "code"), NOT_IMPLEMENTED, "<"),
        (regex(["ab", "a&b"], "code"), NOT_IMPLEMENTED, ""),
        (regex("(ab", "code"), BAD_VALUE, ""),
        (regex("ab)", "code"), BAD_VALUE, ""),
        (regex("[ab", "code"), BAD_VALUE, ""),
        (regex("[]", "code"), BAD_VALUE, ""),
        (regex("a{2", "code"), BAD_VALUE, ""),
        (regex("a{,2}", "code"), BAD_VALUE, ""),
        (regex("a{x}", "code"), BAD_VALUE, ""),
        (regex('a"b', "code"), BAD_VALUE, ""),
        (regex("ab\\", "code"), BAD_VALUE, ""),
        (regex(["ab", "(x"], "code"), BAD_VALUE, ""),
        ({"regex": {"path": "code"}}, BAD_VALUE, "query"),
        ({"regex": {"query": "ab"}}, BAD_VALUE, "path"),
        ({"wildcard": {"path": "code"}}, BAD_VALUE, "query"),
        ({"wildcard": {"query": "ab*"}}, BAD_VALUE, "path"),
        (wildcard(5, "code"), BAD_VALUE, ""),
        (regex({"x": 1}, "code"), BAD_VALUE, ""),
        (wildcard("ab*", 5), BAD_VALUE, ""),
        (wildcard("ab*", "code", allowAnalyzedField="yes"), BAD_VALUE, ""),
        (regex("ab", "code", allowAnalyzedField=1), BAD_VALUE, ""),
        (wildcard("ab*", "code", bogus=1), BAD_VALUE, ""),
        (regex("ab", "code", fuzzy={}), BAD_VALUE, ""),
        ({"wildcard": "ab*"}, BAD_VALUE, ""),
        (wildcard("ab*", "name"), BAD_VALUE, "allowAnalyzedField"),
        (regex("ab", ["code", "name"]), BAD_VALUE, "allowAnalyzedField"),
        ({"compound": {"must": [regex("ab", "name")]}}, BAD_VALUE, "allowAnalyzedField"),
    ]
    assert_errors(cases, lambda operator: search(movies, "words", operator))


# --- near ------------------------------------------------------------------------------------

def near(path, origin, pivot, **options):
    return {"near": {"path": path, "origin": origin, "pivot": pivot, **options}}


def test_near_scores_pivot_over_pivot_plus_distance_to_the_nearest_number(movies):
    cases = [("year", 1921, 2), ("year", 1921.5, 10), ("year", Int64(1900), 1), ("year", 0, 1e6),
             ("runtime", 72, 5), ("runtime", 150.5, 0.5), ("year", 2000, 3)]
    for path, origin, pivot in cases:
        expected = near_scores(MOVIES, path, origin, pivot, mapped_held)
        assert expected
        assert_results(search(movies, "movies", near(path, origin, pivot)),
                       ranked(expected, MOVIES))
    # A year of 1921 is exactly at the origin; [1924, 1925] is 3 away; "1926" is no number.
    got = dict(search(movies, "movies", near("year", 1921, 2)))
    assert got[5] == got[6] == 1.0
    assert got[9] == pytest.approx(2 / (2 + 3))
    assert 11 not in got and len(got) == 15


def test_near_sums_over_paths_and_a_date_origin_measures_milliseconds(movies):
    expected = near_scores(MOVIES, ["year", "runtime"], 1921, 10, mapped_held)
    assert_results(search(movies, "movies", near(["year", "runtime"], 1921, 10)),
                   ranked(expected, MOVIES))
    assert expected[5] == pytest.approx(1 + 10 / (10 + 1921 - 150.5))
    origin = day(1921, 11, 1)
    expected = near_scores(MOVIES, "released", origin, NINETY_DAYS_MS, mapped_held)
    assert_results(search(movies, "movies", near("released", origin, NINETY_DAYS_MS)),
                   ranked(expected, MOVIES))
    # Numbers are never near a date, nor dates near a number.
    assert_results(search(movies, "movies", near(["released", "year"], origin, 1000)),
                   ranked(near_scores(MOVIES, "released", origin, 1000, mapped_held), MOVIES))
    assert search(movies, "movies", near("year", day(1921), 1000)) == []
    assert search(movies, "movies", near("released", 1921, 1000)) == []
    # The dynamic index holds the same numbers and dates.
    for path, origin, pivot in [("year", 1930, 5), ("released", day(1925), NINETY_DAYS_MS)]:
        expected = near_scores(MOVIES, path, origin, pivot, dynamic_held)
        assert_results(search(movies, "movies", near(path, origin, pivot), index="dynamic"),
                       ranked(expected, MOVIES))


def test_near_boost_constant_and_compound(movies):
    base = near_scores(MOVIES, "year", 1925, 4, mapped_held)
    assert_results(search(movies, "movies", near("year", 1925, 4, score={"boost": {"value": 2}})),
                   ranked({i: 2 * s for i, s in base.items()}, MOVIES))
    assert_results(search(movies, "movies",
                          near("year", 1925, 4, score={"constant": {"value": 3}})),
                   ranked({i: 3.0 for i in base}, MOVIES))
    train = Field(MOVIES, "plot").text("train")
    got = search(movies, "movies", {"compound": {"must": [{"text": {"query": "train",
                                                                     "path": "plot"}}],
                                                 "should": [near("year", 1925, 4)]}})
    assert_results(got, ranked({i: s + base.get(i, 0) for i, s in train.items()}, MOVIES))


def test_malformed_near_answers_bad_value(movies):
    cases = [
        ({"near": {"path": "year", "origin": 1921}}, BAD_VALUE, "pivot"),
        ({"near": {"path": "year", "pivot": 2}}, BAD_VALUE, "origin"),
        ({"near": {"origin": 1921, "pivot": 2}}, BAD_VALUE, "path"),
        (near("year", 1921, 0), BAD_VALUE, "pivot"),
        (near("year", 1921, -5), BAD_VALUE, "pivot"),
        (near("year", 1921, "2"), BAD_VALUE, "pivot"),
        (near("year", "1921", 2), BAD_VALUE, "origin"),
        (near("year", True, 2), BAD_VALUE, "origin"),
        (near("year", 1921, 2, bogus=1), BAD_VALUE, ""),
        (near("location", {"type": "Point", "coordinates": [-73.9, 91]}, 1000), BAD_VALUE,
         "GeoJSON Point"),
    ]
    assert_errors(cases, lambda operator: search(movies, "movies", operator))


# --- $search.sort --------------------------------------------------------------------------

def sorted_search(db, operator, sort, index="default", coll="movies", extra=()):
    docs = db[coll].aggregate([{"$search": {"index": index, **operator, "sort": sort}},
                               *extra,
                               {"$project": {"_id": 1, "score": {"$meta": "searchScore"}}}])
    return [(d["_id"], d["score"]) for d in docs]


def check_sorts(db, operator, sorts, scores, held, index="default", coll="movies", docs=MOVIES):
    wrong = []
    for sort in sorts:
        got = sorted_search(db, operator, sort, index=index, coll=coll)
        want = sorted_ids(docs, scores, sort, held)
        if ids(got) != want:
            wrong.append(f"sort {sort}: want {want}, got {ids(got)}")
        elif [s for _, s in got] != pytest.approx([scores[i] for i in want], rel=1e-9):
            wrong.append(f"sort {sort}: scores {got}")
    assert not wrong, "\n".join(wrong)


def test_sort_by_numbers_dates_and_tokens_with_arrays_and_missing_values(movies):
    sorts = [{"year": 1}, {"year": -1}, {"runtime": 1}, {"runtime": -1}, {"released": 1},
             {"released": -1}, {"title": 1}, {"title": -1}, {"genres": 1}, {"genres": -1},
             {"genres": 1, "year": -1}, {"released": -1, "runtime": 1},
             {"year": {"order": 1}}, {"year": {"order": -1, "noData": "lowest"}},
             {"year": {"order": 1, "noData": "highest"}},
             {"year": {"order": -1, "noData": "highest"}},
             {"genres": {"order": -1, "noData": "highest"}, "title": 1},
             {"plot": 1}, {"missing": -1}]
    check_sorts(movies, EVERY_MOVIE, sorts, all_ids(MOVIES), mapped_held)
    # Arrays: [1924, 1925] sorts as 1924 ascending and as 1925 descending; the string "1926"
    # is no number; Int64(1922), 1923.0 and 1925.5 order by value; no year is lowest.
    by_year = ids(sorted_search(movies, EVERY_MOVIE, {"year": 1}))
    assert by_year == [11, 16, 1, 2, 14, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 15]
    assert ids(sorted_search(movies, EVERY_MOVIE, {"year": -1}))[:4] == [15, 12, 13, 10]
    assert ids(sorted_search(movies, EVERY_MOVIE, {"year": -1}))[-2:] == [16, 11]
    assert ids(sorted_search(movies, EVERY_MOVIE,
                             {"year": {"order": 1, "noData": "highest"}}))[-1] == 11
    # Titles sort by their lowercase tokens: "metropolis" among the capitalized ones.
    titles = ids(sorted_search(movies, EVERY_MOVIE, {"title": 1}))
    assert titles[:4] == [16, 2, 12, 7]


def test_sort_picks_the_matches_of_the_operator_and_keeps_their_scores(movies):
    plot = Field(MOVIES, "plot")
    for query in ["train", "the war", "tramp gold city"]:
        scores = plot.text(query)
        sorts = [{"year": 1}, {"released": -1}, {"title": -1},
                 {"score": {"$meta": "searchScore"}},
                 {"score": {"$meta": "searchScore", "order": 1}},
                 {"genres": 1, "s": {"$meta": "searchScore"}},
                 {"s": {"$meta": "searchScore", "order": -1}, "year": -1}]
        check_sorts(movies, {"text": {"query": query, "path": "plot"}}, sorts, scores,
                    mapped_held)
    # Sorting by score alone is the order $search gives without sort.
    scores = plot.text("the war")
    assert ids(sorted_search(movies, {"text": {"query": "the war", "path": "plot"}},
                             {"score": {"$meta": "searchScore"}})) == ids(ranked(scores, MOVIES))


def test_atlas_sort_tutorial_released_descending_then_score(movies):
    # In the shape of Atlas's "Sort Atlas Search Results" examples: a compound query sorted by
    # release date, newest first, the score breaking ties and read back as searchScore.
    operator = {"compound": {"should": [
        wildcard("the*", "title", allowAnalyzedField=True),
        wildcard("*in*", "title", allowAnalyzedField=True),
        {"text": {"query": "train war", "path": "plot"}}]}}
    sort = {"released": -1, "score": {"$meta": "searchScore"}}
    scores = add(pattern_scores(MOVIES, standard_terms, ["title"], "the*", wildcard_regex),
                 pattern_scores(MOVIES, standard_terms, ["title"], "*in*", wildcard_regex),
                 Field(MOVIES, "plot").text("train war"))
    got = list(movies.movies.aggregate([
        {"$search": {"index": "default", **operator, "sort": sort}},
        {"$limit": 8},
        {"$project": {"_id": 0, "title": 1, "released": 1, "score": {"$meta": "searchScore"}}}]))
    want = sorted_ids(MOVIES, scores, sort, mapped_held)[:8]
    by_id = {m["_id"]: m for m in MOVIES}
    assert [d.get("title") for d in got] == [by_id[i].get("title") for i in want]
    assert [d["score"] for d in got] == pytest.approx([scores[i] for i in want], rel=1e-9)
    # Sunrise and The Jazz Singer share a release date: the better score comes first.
    assert {14, 15} <= set(want) and abs(want.index(14) - want.index(15)) == 1
    assert scores[14] != scores[15]


def test_sort_on_a_dynamic_index_orders_mixed_types_as_bson_and_strings_have_no_data(db):
    docs = [
        {"_id": 1, "k": 1, "v": 5, "b": True, "o": oid(3), "u": uuid_of(2), "d": day(2001)},
        {"_id": 2, "k": 1, "v": day(2001), "b": False, "o": oid(1), "u": uuid_of(1),
         "d": [day(1999), day(2005)]},
        {"_id": 3, "k": 1, "v": [7, day(2003)], "b": [True, False], "o": [oid(2), oid(5)],
         "u": [uuid_of(3), uuid_of(0)], "d": day(2002)},
        {"_id": 4, "k": 1, "v": "text", "b": "true", "o": str(oid(0)), "d": "2001-01-01"},
        {"_id": 5, "k": 1, "v": True, "b": False},
        {"_id": 6, "k": 1, "v": oid(9), "o": oid(1)},
        {"_id": 7, "k": 1, "v": uuid_of(4), "u": uuid_of(1)},
        {"_id": 8, "k": 1, "v": Int64(5), "d": day(1999)},
        {"_id": 9, "k": 1, "v": 4.5},
        {"_id": 10, "k": 1},
        {"_id": 11, "k": 1, "v": []},
        {"_id": 12, "k": 1, "v": [None, "x", 2]},
    ]
    db.docs.insert_many(docs)
    create_ready(db, "docs", DYNAMIC)
    sorts = [{path: order} for path in ["v", "b", "o", "u", "d", "k", "missing"]
             for order in (1, -1)]
    sorts += [{"v": {"order": 1, "noData": "highest"}}, {"b": -1, "o": 1}, {"d": 1, "v": -1}]
    check_sorts(db, {"exists": {"path": "k"}}, sorts, all_ids(docs), dynamic_held,
                coll="docs", docs=docs)
    # numbers < UUIDs (binData) < ObjectIds < booleans < dates; 5 and Int64(5) tie.
    assert ids(sorted_search(db, {"exists": {"path": "k"}}, {"v": 1}, coll="docs")) == \
        [4, 10, 11, 12, 9, 1, 8, 3, 7, 6, 5, 2]
    assert ids(sorted_search(db, {"exists": {"path": "k"}}, {"v": -1}, coll="docs")) == \
        [3, 2, 5, 6, 7, 1, 8, 9, 12, 4, 10, 11]


def test_strings_sort_only_where_a_token_mapping_holds_them(movies):
    # The dynamic index holds titles as text only: every title is "no data", so ties keep the
    # order of indexing, whichever the direction.
    for sort in [{"title": 1}, {"title": -1}, {"genres": {"order": 1, "noData": "highest"}}]:
        assert ids(sorted_search(movies, EVERY_MOVIE, sort, index="dynamic")) == \
            [m["_id"] for m in MOVIES]
    check_sorts(movies, EVERY_MOVIE, [{"year": 1}, {"released": -1}, {"title": 1, "year": -1}],
                all_ids(MOVIES), dynamic_held, index="dynamic")


def test_sort_ties_keep_the_order_documents_were_first_indexed(db):
    db.create_collection("ties")
    create_ready(db, "ties", static(n={"type": "number"}, s={"type": "token"}))
    for doc_id in [5, 3, 9, 1, 7]:
        db.ties.insert_one({"_id": doc_id, "n": 1, "s": "same"})
    for sort in [{"n": 1}, {"n": -1}, {"s": 1}, {"s": -1}, {"missing": 1},
                 {"score": {"$meta": "searchScore"}}]:
        assert ids(sorted_search(db, {"exists": {"path": "n"}}, sort, coll="ties")) == \
            [5, 3, 9, 1, 7], sort
    # An update keeps a document's place; one deleted and inserted again comes last.
    db.ties.update_one({"_id": 3}, {"$set": {"extra": True}})
    db.ties.delete_one({"_id": 9})
    db.ties.insert_one({"_id": 9, "n": 1, "s": "same"})
    assert ids(sorted_search(db, {"exists": {"path": "n"}}, {"n": -1}, coll="ties")) == \
        [5, 3, 1, 7, 9]


def test_sort_with_limit_skip_and_later_stages(movies):
    sort = {"released": -1}
    want = sorted_ids(MOVIES, all_ids(MOVIES), sort, mapped_held)
    assert ids(sorted_search(movies, EVERY_MOVIE, sort, extra=[{"$limit": 3}])) == want[:3]
    assert ids(sorted_search(movies, EVERY_MOVIE, sort,
                             extra=[{"$skip": 4}, {"$limit": 5}])) == want[4:9]
    got = list(movies.movies.aggregate([
        {"$search": {"index": "default", **EVERY_MOVIE, "sort": sort}},
        {"$match": {"genres": "Drama"}},
        {"$project": {"_id": 1}}]))
    drama = {m["_id"] for m in MOVIES if "Drama" in strings_at(m, "genres")}
    assert [d["_id"] for d in got] == [i for i in want if i in drama]


def test_malformed_sorts_answer_bad_value_or_type_mismatch(movies):
    cases = [
        ("year", TYPE_MISMATCH, ""),
        ([{"year": 1}], TYPE_MISMATCH, ""),
        ({}, BAD_VALUE, ""),
        ({"year": 0}, BAD_VALUE, "year"),
        ({"year": 2}, BAD_VALUE, "year"),
        ({"year": "asc"}, BAD_VALUE, "year"),
        ({"year": True}, BAD_VALUE, "year"),
        ({"year": {"order": 0}}, BAD_VALUE, "year"),
        ({"year": {"order": "desc"}}, BAD_VALUE, "year"),
        ({"year": {"order": 1, "noData": "first"}}, BAD_VALUE, "noData"),
        ({"year": {"order": 1, "noData": 1}}, BAD_VALUE, "noData"),
        ({"year": {"order": 1, "bogus": 1}}, BAD_VALUE, "bogus"),
        ({"score": {"$meta": "textScore"}}, BAD_VALUE, "searchScore"),
        ({"score": {"$meta": "searchScore", "order": 2}}, BAD_VALUE, ""),
        ({"score": {"$meta": "searchScore", "bogus": 1}}, BAD_VALUE, "bogus"),
        ({"year": 1, "title": "x"}, BAD_VALUE, "title"),
    ]
    assert_errors(cases, lambda sort: sorted_search(movies, EVERY_MOVIE, sort))
    for option, value in [("sort", {"year": 1}), ("highlight", {"path": "plot"})]:
        code, message = error_of(lambda: search_meta(movies, "movies",
                                                     {**EVERY_MOVIE, option: value}))
        assert code == BAD_VALUE and option in message


# --- the token normalizer and the options of value types -----------------------------------

def test_lowercase_normalizer_holds_lowercase_strings_for_sort_facets_and_equals(movies):
    # Titles are mapped {type: token, normalizer: lowercase}: what is held is lowercase.
    lowered = {m["_id"]: m["title"].lower() for m in MOVIES if "title" in m}
    got = facet_meta(movies, "movies", {"t": {"type": "string", "path": "title",
                                              "numBuckets": 100}})
    assert got["facet"]["t"]["buckets"] == [{"_id": t, "count": 1} for t in sorted(
        lowered.values())]
    for title in ["the kid", "metropolis", "sunrise"]:
        (doc_id,) = [i for i, t in lowered.items() if t == title]
        assert search(movies, "movies", {"equals": {"path": "title", "value": title}}) == \
            [(doc_id, 1.0)]
    assert search(movies, "movies", {"in": {"path": "title", "value": ["wings", "the kid"]}}) \
        == [(6, 1.0), (13, 1.0)]
    assert ids(sorted_search(movies, EVERY_MOVIE, {"title": -1}))[:3] == [13, 3, 4]
    # genres has no normalizer: case is kept, and "Drama" and "drama" are two values.
    genres = facet_meta(movies, "movies", {"g": {"type": "string", "path": "genres",
                                                 "numBuckets": 100}})["facet"]["g"]["buckets"]
    assert {"_id": "drama", "count": 1} in genres and {"_id": "Drama", "count": 6} in genres
    assert ids(search(movies, "movies", {"equals": {"path": "genres", "value": "drama"}})) == \
        [12]


def test_value_type_options_are_checked(db):
    db.create_collection("docs")
    cases = [
        (static(t={"type": "token", "normalizer": "uppercase"}), BAD_VALUE, "normalizer"),
        (static(t={"type": "token", "normalizer": 1}), BAD_VALUE, "normalizer"),
        (static(t={"type": "token", "analyzer": "lucene.keyword"}), BAD_VALUE, "analyzer"),
        (static(t={"type": "token", "bogus": True}), BAD_VALUE, "bogus"),
        (static(n={"type": "number", "representation": "int64"}), NOT_IMPLEMENTED,
         "representation"),
        (static(n={"type": "number", "representation": "float"}), BAD_VALUE, "representation"),
        (static(n={"type": "number", "indexIntegers": False}), NOT_IMPLEMENTED, "indexIntegers"),
        (static(n={"type": "number", "indexDoubles": False}), NOT_IMPLEMENTED, "indexDoubles"),
        (static(n={"type": "number", "indexDoubles": "no"}), BAD_VALUE, "indexDoubles"),
        (static(n={"type": "number", "normalizer": "lowercase"}), BAD_VALUE, "normalizer"),
        (static(d={"type": "date", "bogus": 1}), BAD_VALUE, "bogus"),
        (static(b={"type": "boolean", "normalizer": "none"}), BAD_VALUE, "normalizer"),
        (static(o={"type": "objectId", "bogus": 1}), BAD_VALUE, "bogus"),
        (static(u={"type": "uuid", "bogus": 1}), BAD_VALUE, "bogus"),
        (static(g={"type": "stringFacet", "bogus": 1}), BAD_VALUE, "bogus"),
        (static(g={"type": "dateFacet", "bogus": 1}), BAD_VALUE, "bogus"),
    ]
    assert_errors(cases, lambda definition: create_index(db, "docs", definition))
    accepted = [static(t={"type": "token", "normalizer": "none"}),
                static(n={"type": "number", "representation": "double", "indexIntegers": True,
                          "indexDoubles": True}),
                static(g={"type": "stringFacet"}, n={"type": "numberFacet"},
                       d={"type": "dateFacet"})]
    for n, definition in enumerate(accepted):
        create_ready(db, "docs", definition, name=f"ok{n}")


# --- $searchMeta facets ---------------------------------------------------------------------

TUTORIAL_FACETS = {
    "genresFacet": {"type": "string", "path": "genres"},
    "yearFacet": {"type": "number", "path": "year", "boundaries": [1910, 1920, 1930, 1940]},
}
TUTORIAL_OPERATOR = near("released", day(1921, 11, 1), NINETY_DAYS_MS)


def test_atlas_how_to_use_facets_tutorial(movies):
    meta = facet_meta(movies, "movies", TUTORIAL_FACETS, operator=TUTORIAL_OPERATOR,
                      index="facet-tutorial")
    matched = near_scores(MOVIES, "released", day(1921, 11, 1), NINETY_DAYS_MS,
                          facet_tutorial_held)
    held = facet_tutorial_held
    assert meta == {
        "count": {"lowerBound": len(matched)},
        "facet": {
            "genresFacet": {"buckets": string_buckets(MOVIES, matched, "genres", held)},
            "yearFacet": {"buckets": range_buckets(MOVIES, matched, "year", held,
                                                   [1910, 1920, 1930, 1940])}}}
    # By hand: 14 movies have a release date; Drama is the most frequent genre, counted once per
    # movie; 1910 <= year < 1920 holds 1913, 1914 and 1910, the end boundary 1940 is outside.
    assert len(matched) == 14
    assert meta["facet"]["genresFacet"]["buckets"][:2] == [{"_id": "Drama", "count": 6},
                                                           {"_id": "Comedy", "count": 3}]
    assert meta["facet"]["yearFacet"]["buckets"] == [
        {"_id": 1910, "count": 3}, {"_id": 1920, "count": 7}, {"_id": 1930, "count": 0}]
    # The same with count total, and with a date facet beside them.
    boundaries = [day(1900), day(1915), day(1925), day(1930)]
    facets = {**TUTORIAL_FACETS, "releasedFacet": {"type": "date", "path": "released",
                                                   "boundaries": boundaries, "default": "other"}}
    meta = facet_meta(movies, "movies", facets, operator=TUTORIAL_OPERATOR,
                      index="facet-tutorial", count={"type": "total"})
    assert meta["count"] == {"total": 14}
    assert meta["facet"]["releasedFacet"]["buckets"] == range_buckets(
        MOVIES, matched, "released", held, boundaries, default="other")
    assert meta["facet"]["releasedFacet"]["buckets"] == [
        {"_id": day(1900), "count": 4}, {"_id": day(1915), "count": 5},
        {"_id": day(1925), "count": 5}, {"_id": "other", "count": 1}]


def test_string_facets_keep_the_most_frequent_values_ties_by_value(movies):
    every = all_ids(MOVIES)
    for num_buckets in [1, 2, 3, 5, 10, 1000]:
        for index, path, held in [("default", "genres", mapped_held),
                                  ("facet-tutorial", "genres", facet_tutorial_held),
                                  ("default", "title", mapped_held)]:
            meta = facet_meta(movies, "movies", {"f": {"type": "string", "path": path,
                                                       "numBuckets": num_buckets}}, index=index)
            assert meta == {"count": {"lowerBound": len(MOVIES)}, "facet": {"f": {
                "buckets": string_buckets(MOVIES, every, path, held, num_buckets)}}}, \
                (index, path, num_buckets)
    # Default numBuckets is 10; Comedy, counted once for ["Comedy", "Thriller", "Comedy"].
    meta = facet_meta(movies, "movies", {"g": {"type": "string", "path": "genres"}})
    buckets = meta["facet"]["g"]["buckets"]
    assert len(buckets) == 10
    assert buckets[:4] == [{"_id": "Drama", "count": 6}, {"_id": "Comedy", "count": 4},
                           {"_id": "Action", "count": 3}, {"_id": "Romance", "count": 3}]


def test_number_and_date_facets_count_documents_per_range_then_the_default(movies):
    cases = [
        ("year", [1900, 1920, 1925.5, 2000], None),
        ("year", [1910, 1920, 1930, 1940], "other"),
        ("year", [Int64(1921), 1922.5, 1925], "outside"),
        ("year", [1925.5, 1925.6], "rest"),
        ("runtime", [0, 60, 90, 120, 500], None),
        ("runtime", [70, 73, 74], "else"),
        ("runtime", [1000, 2000], "none in range"),
    ]
    every = all_ids(MOVIES)
    numbers = of_kind(mapped_held, "number")
    for path, boundaries, default in cases:
        spec = {"type": "number", "path": path, "boundaries": boundaries,
                **({} if default is None else {"default": default})}
        meta = facet_meta(movies, "movies", {"f": spec})
        want = range_buckets(MOVIES, every, path, numbers, boundaries, default)
        assert meta["facet"]["f"]["buckets"] == want, (path, boundaries)
        # Each range bucket's _id is its boundary as given: int, Int64 or double.
        got_types = [type(b["_id"]) for b in meta["facet"]["f"]["buckets"][:len(boundaries) - 1]]
        assert got_types == [type(b) for b in boundaries[:-1]], (path, boundaries)
    # [70, 73] falls in [70, 73) and [73, 74): counted once in each.
    meta = facet_meta(movies, "movies", {"f": {"type": "number", "path": "runtime",
                                               "boundaries": [70, 73, 74], "default": "else"}})
    assert meta["facet"]["f"]["buckets"] == [{"_id": 70, "count": 1}, {"_id": 73, "count": 1},
                                             {"_id": "else", "count": 12}]
    dates = of_kind(mapped_held, "date")
    for boundaries, default in [([day(1900), day(1921, 3, 6), day(1921, 3, 7), day(1950)], None),
                                ([day(1924), day(1925)], "other"),
                                ([day(1800), day(1900), day(2000)], "never")]:
        spec = {"type": "date", "path": "released", "boundaries": boundaries,
                **({} if default is None else {"default": default})}
        meta = facet_meta(movies, "movies", {"f": spec})
        assert meta["facet"]["f"]["buckets"] == range_buckets(MOVIES, every, "released", dates,
                                                              boundaries, default)


def test_facets_count_the_matches_of_the_operator(movies):
    plot = Field(MOVIES, "plot")
    facets = {"genres": {"type": "string", "path": "genres", "numBuckets": 4},
              "years": {"type": "number", "path": "year", "boundaries": [1900, 1915, 1930],
                        "default": "other"},
              "released": {"type": "date", "path": "released",
                           "boundaries": [day(1900), day(1920), day(1930)]}}
    operators = [
        ({"text": {"query": "train", "path": "plot"}}, plot.text("train")),
        ({"text": {"query": "the war", "path": "plot"}}, plot.text("the war")),
        ({"compound": {"must": [{"range": {"path": "year", "gte": 1920}}],
                       "mustNot": [{"equals": {"path": "genres", "value": "Comedy"}}]}},
         {m["_id"]: 1 for m in MOVIES
          if any(v >= 1920 for v in of_kind(mapped_held, "number")(m, "year"))
          and "Comedy" not in mapped_held(m, "genres")}),
        ({"text": {"query": "zebra", "path": "plot"}}, {}),
    ]
    for operator, matched in operators:
        meta = facet_meta(movies, "movies", facets, operator=operator, count={"type": "total"})
        held = mapped_held
        assert meta == {"count": {"total": len(matched)}, "facet": {
            "genres": {"buckets": string_buckets(MOVIES, matched, "genres", held, 4)},
            "years": {"buckets": range_buckets(MOVIES, matched, "year", of_kind(held, "number"),
                                               [1900, 1915, 1930], "other")},
            "released": {"buckets": range_buckets(MOVIES, matched, "released",
                                                   of_kind(held, "date"),
                                                   [day(1900), day(1920), day(1930)])}}}, operator


def test_the_older_facet_types_hold_values_for_every_operator_and_sort(movies):
    # facet-tutorial maps genres as stringFacet, year as numberFacet, released also as dateFacet:
    # held like token, number and date, so equals, range, in, exists and sort read them too.
    held = facet_tutorial_held
    cases = [({"equals": {"path": "genres", "value": "Drama"}},
              {m["_id"]: 1.0 for m in MOVIES if "Drama" in held(m, "genres")}),
             ({"in": {"path": "genres", "value": ["Horror", "War"]}},
              {m["_id"]: 1.0 for m in MOVIES if {"Horror", "War"} & set(held(m, "genres"))}),
             ({"range": {"path": "year", "gte": 1920, "lt": 1925}},
              {m["_id"]: 1.0 for m in MOVIES if any(1920 <= v < 1925 for v in held(m, "year"))}),
             # exists finds the key whatever it holds (an empty array too).
             ({"exists": {"path": "genres"}}, {m["_id"]: 1.0 for m in MOVIES if "genres" in m})]
    for operator, expected in cases:
        assert expected
        assert_results(search(movies, "movies", operator, index="facet-tutorial"),
                       ranked(expected, MOVIES))
    check_sorts(movies, {"exists": {"path": "year"}},
                [{"genres": 1}, {"genres": -1}, {"year": -1}, {"released": 1, "genres": 1}],
                {m["_id"]: 1.0 for m in MOVIES if "year" in m}, held,
                index="facet-tutorial")


def test_a_dynamic_index_with_a_token_field_facets_it_as_the_readme_shows(db):
    db.movies.insert_many([dict(m) for m in MOVIES])
    create_ready(db, "movies", {"mappings": {"dynamic": True, "fields": {
        "genres": {"type": "token"}, "year": {"type": "number"}}}})
    held = holder(lambda path: {"genres": {"string"}}.get(path, WHOLE_KINDS))
    plot = Field(MOVIES, "plot")
    matched = plot.text("train")
    meta = facet_meta(db, "movies", {
        "genres": {"type": "string", "path": "genres", "numBuckets": 5},
        "decades": {"type": "number", "path": "year", "boundaries": [1900, 1910, 1920, 1930],
                    "default": "other"}}, operator={"text": {"query": "train", "path": "plot"}})
    assert meta == {"count": {"lowerBound": len(matched)}, "facet": {
        "genres": {"buckets": string_buckets(MOVIES, matched, "genres", held, 5)},
        "decades": {"buckets": range_buckets(MOVIES, matched, "year", of_kind(held, "number"),
                                             [1900, 1910, 1920, 1930], "other")}}}
    got = list(db.movies.aggregate([
        {"$search": {"text": {"query": "train", "path": "plot"}, "sort": {"year": -1},
                     "count": {"type": "total"}}},
        {"$limit": 3},
        {"$project": {"title": 1, "year": 1, "meta": "$$SEARCH_META"}}]))
    want = sorted_ids(MOVIES, matched, {"year": -1}, held)[:3]
    assert [d["_id"] for d in got] == want
    assert all(d["meta"] == {"count": {"total": len(matched)}} for d in got)
    # Titles stay text only: a string facet on them is refused.
    code, message = error_of(lambda: facet_meta(db, "movies", {
        "t": {"type": "string", "path": "title"}}))
    assert code == BAD_VALUE and "Cannot facet on field" in message


def test_facets_on_a_dynamic_index_count_numbers_and_dates_but_not_strings(movies):
    every = all_ids(MOVIES)
    meta = facet_meta(movies, "movies", {
        "y": {"type": "number", "path": "year", "boundaries": [1900, 1920, 1940]},
        "r": {"type": "date", "path": "released", "boundaries": [day(1900), day(1950)],
              "default": "other"}}, index="dynamic")
    assert meta == {"count": {"lowerBound": len(MOVIES)}, "facet": {
        "y": {"buckets": range_buckets(MOVIES, every, "year", of_kind(dynamic_held, "number"),
                                       [1900, 1920, 1940])},
        "r": {"buckets": range_buckets(MOVIES, every, "released",
                                       of_kind(dynamic_held, "date"),
                                       [day(1900), day(1950)], "other")}}}
    code, message = error_of(lambda: facet_meta(
        movies, "movies", {"g": {"type": "string", "path": "genres"}}, index="dynamic"))
    assert code == BAD_VALUE and "Cannot facet on field" in message


def test_facets_of_an_unknown_index_or_collection_count_nothing(movies):
    facets = {"g": {"type": "string", "path": "genres"},
              "y": {"type": "number", "path": "year", "boundaries": [1, 2, 3], "default": "d"},
              "r": {"type": "date", "path": "released", "boundaries": [day(1900), day(2000)]}}
    zero = {"count": {"lowerBound": 0}, "facet": {
        "g": {"buckets": []},
        "y": {"buckets": [{"_id": 1, "count": 0}, {"_id": 2, "count": 0},
                          {"_id": "d", "count": 0}]},
        "r": {"buckets": [{"_id": day(1900), "count": 0}]}}}
    assert facet_meta(movies, "movies", facets, index="missing") == zero
    assert facet_meta(movies, "no_such_collection", facets) == zero
    assert facet_meta(movies, "movies", facets, operator=EVERY_MOVIE, index="missing") == zero


def test_malformed_facets_answer_bad_value(movies):
    string_facet = {"type": "string", "path": "genres"}
    number_facet = {"type": "number", "path": "year", "boundaries": [1900, 2000]}
    date_facet = {"type": "date", "path": "released", "boundaries": [day(1900), day(2000)]}
    cases = [
        ({"facet": {"facets": {"f": {**string_facet, "numBuckets": 0}}}}, BAD_VALUE,
         "numBuckets"),
        ({"facet": {"facets": {"f": {**string_facet, "numBuckets": 1001}}}}, BAD_VALUE,
         "numBuckets"),
        ({"facet": {"facets": {"f": {**string_facet, "numBuckets": "5"}}}}, BAD_VALUE,
         "numBuckets"),
        ({"facet": {"facets": {"f": {**string_facet, "boundaries": [1, 2]}}}}, BAD_VALUE,
         "boundaries"),
        ({"facet": {"facets": {"f": {"type": "string"}}}}, BAD_VALUE, "path"),
        ({"facet": {"facets": {"f": {"type": "string", "path": 5}}}}, BAD_VALUE, "path"),
        ({"facet": {"facets": {"f": {"path": "genres"}}}}, BAD_VALUE, "type"),
        ({"facet": {"facets": {"f": {"type": "boolean", "path": "genres"}}}}, BAD_VALUE, "type"),
        ({"facet": {"facets": {"f": "genres"}}}, BAD_VALUE, ""),
        ({"facet": {"facets": {"f": {"type": "number", "path": "year"}}}}, BAD_VALUE,
         "boundaries"),
        ({"facet": {"facets": {"f": {**number_facet, "boundaries": [1900]}}}}, BAD_VALUE,
         "boundaries"),
        ({"facet": {"facets": {"f": {**number_facet, "boundaries": []}}}}, BAD_VALUE,
         "boundaries"),
        ({"facet": {"facets": {"f": {**number_facet, "boundaries": [2000, 1900]}}}}, BAD_VALUE,
         "boundaries"),
        ({"facet": {"facets": {"f": {**number_facet, "boundaries": [1900, 1900, 2000]}}}},
         BAD_VALUE, "boundaries"),
        ({"facet": {"facets": {"f": {**number_facet, "boundaries": [1900, "2000"]}}}},
         BAD_VALUE, "boundaries"),
        ({"facet": {"facets": {"f": {**number_facet, "boundaries": [day(1900), day(2000)]}}}},
         BAD_VALUE, "boundaries"),
        ({"facet": {"facets": {"f": {**number_facet, "boundaries": 1900}}}}, BAD_VALUE,
         "boundaries"),
        ({"facet": {"facets": {"f": {**date_facet, "boundaries": [1900, 2000]}}}}, BAD_VALUE,
         "boundaries"),
        ({"facet": {"facets": {"f": {**date_facet, "boundaries": [day(2000), day(1900)]}}}},
         BAD_VALUE, "boundaries"),
        ({"facet": {"facets": {"f": {**number_facet, "default": 5}}}}, BAD_VALUE, "default"),
        ({"facet": {"facets": {"f": {**number_facet, "numBuckets": 5}}}}, BAD_VALUE,
         "numBuckets"),
        ({"facet": {"facets": {"f": {**string_facet, "bogus": 1}}}}, BAD_VALUE, "bogus"),
        ({"facet": {"operator": EVERY_MOVIE}}, BAD_VALUE, "facets"),
        ({"facet": {"facets": {}}}, BAD_VALUE, "facets"),
        ({"facet": {"facets": []}}, BAD_VALUE, "facets"),
        ({"facet": "genres"}, BAD_VALUE, "facet"),
        ({"facet": {"operator": {}, "facets": {"f": string_facet}}}, BAD_VALUE, "operator"),
        ({"facet": {"operator": {**EVERY_MOVIE, "text": {"query": "x", "path": "plot"}},
                    "facets": {"f": string_facet}}}, BAD_VALUE, "operator"),
        ({"facet": {"facets": {"f": string_facet}, "bogus": 1}}, BAD_VALUE, "bogus"),
        ({**EVERY_MOVIE, "facet": {"facets": {"f": string_facet}}}, BAD_VALUE, "operator"),
        ({"facet": {"facets": {"f": string_facet}}, **EVERY_MOVIE}, BAD_VALUE, "operator"),
        # A facet over a path the index does not hold that way.
        ({"facet": {"facets": {"f": {"type": "string", "path": "plot"}}}}, BAD_VALUE,
         "Cannot facet on field"),
        ({"facet": {"facets": {"f": {"type": "string", "path": "year"}}}}, BAD_VALUE,
         "Cannot facet on field"),
        ({"facet": {"facets": {"f": {"type": "string", "path": "missing"}}}}, BAD_VALUE,
         "Cannot facet on field"),
        ({"facet": {"facets": {"f": {**number_facet, "path": "genres"}}}}, BAD_VALUE, ""),
        ({"facet": {"facets": {"f": {**date_facet, "path": "year"}}}}, BAD_VALUE, ""),
        ({"facet": {"facets": {"f": {**number_facet, "path": "released"}}}}, BAD_VALUE, ""),
    ]
    assert_errors(cases, lambda spec: search_meta(movies, "movies", spec))


# --- $$SEARCH_META ------------------------------------------------------------------------

def test_search_meta_variable_holds_the_count_of_the_search(movies):
    plot = Field(MOVIES, "plot")
    for query in ["train", "the war", "tramp"]:
        n = len(plot.text(query))
        stage = {"$search": {"text": {"query": query, "path": "plot"}, "count": {"type": "total"}}}
        got = list(movies.movies.aggregate([stage, {"$project": {"meta": "$$SEARCH_META"}}]))
        assert [d["_id"] for d in got] == ids(ranked(plot.text(query), MOVIES))
        assert all(d["meta"] == {"count": {"total": n}} for d in got)
        # Without count (or with lowerBound), a lower bound; dotted paths read into it.
        for count in [{}, {"count": {"type": "lowerBound"}}]:
            got = list(movies.movies.aggregate([
                {"$search": {"text": {"query": query, "path": "plot"}, **count}},
                {"$limit": 1},
                {"$project": {"_id": 0, "meta": "$$SEARCH_META",
                              "n": "$$SEARCH_META.count.lowerBound"}}]))
            assert got == [{"meta": {"count": {"lowerBound": n}}, "n": n}]


def test_atlas_pagination_tutorial_reads_the_total_beside_a_page(movies):
    plot = Field(MOVIES, "plot")
    expected = ids(ranked(plot.text("the a"), MOVIES))
    assert len(expected) > 8
    for skip, limit in [(0, 5), (5, 5), (10, 5), (100, 5)]:
        got = list(movies.movies.aggregate([
            {"$search": {"index": "default", "text": {"query": "the a", "path": "plot"},
                         "count": {"type": "total"}}},
            {"$skip": skip}, {"$limit": limit},
            {"$facet": {"docs": [], "meta": [{"$replaceWith": "$$SEARCH_META"}, {"$limit": 1}]}},
            {"$set": {"meta": {"$arrayElemAt": ["$meta", 0]}}}]))
        page = expected[skip:skip + limit]
        assert [d["_id"] for d in got[0]["docs"]] == page
        if page:
            assert got[0]["meta"] == {"count": {"total": len(expected)}}
        else:  # nothing reaches $facet: meta has no document to read
            assert "meta" not in got[0]


def test_search_with_a_facet_collector_returns_its_documents_and_the_facets_in_search_meta(movies):
    # Atlas's facet docs: $search with facet, the documents in "docs" and the facets in "meta".
    operator = near("released", day(1999, 7, 1), NINETY_DAYS_MS)
    facets = {"genresFacet": {"type": "string", "path": "genres"}}
    got = list(movies.movies.aggregate([
        {"$search": {"index": "facet-tutorial", "facet": {"operator": operator,
                                                         "facets": facets}}},
        {"$limit": 2},
        {"$facet": {"docs": [{"$project": {"title": 1, "released": 1}}],
                    "meta": [{"$replaceWith": "$$SEARCH_META"}, {"$limit": 1}]}},
        {"$set": {"meta": {"$arrayElemAt": ["$meta", 0]}}}]))
    matched = near_scores(MOVIES, "released", day(1999, 7, 1), NINETY_DAYS_MS,
                          facet_tutorial_held)
    top = ids(ranked(matched, MOVIES))[:2]
    by_id = {m["_id"]: m for m in MOVIES}
    assert got == [{
        "docs": [{"_id": i, "title": by_id[i]["title"], "released": by_id[i]["released"]}
                 for i in top],
        "meta": {"count": {"lowerBound": len(matched)}, "facet": {"genresFacet": {
            "buckets": string_buckets(MOVIES, matched, "genres", facet_tutorial_held)}}}}]
    # With count total, and the scores of the operator on the documents.
    got = list(movies.movies.aggregate([
        {"$search": {"index": "facet-tutorial", "count": {"type": "total"},
                     "facet": {"operator": operator, "facets": facets}}},
        {"$project": {"score": {"$meta": "searchScore"}, "meta": "$$SEARCH_META"}}]))
    assert_results([(d["_id"], d["score"]) for d in got], ranked(matched, MOVIES))
    assert got[0]["meta"]["count"] == {"total": len(matched)}
    assert got[0]["meta"]["facet"]["genresFacet"]["buckets"] == string_buckets(
        MOVIES, matched, "genres", facet_tutorial_held)
    # With sort, the facet's operator's documents in the sort's order.
    with_genres = {m["_id"]: 1.0 for m in MOVIES if "genres" in m}
    got = list(movies.movies.aggregate([
        {"$search": {"index": "facet-tutorial", "count": {"type": "total"}, "sort": {"year": -1},
                     "facet": {"operator": {"exists": {"path": "genres"}},
                               "facets": {"g": {"type": "string", "path": "genres",
                                                "numBuckets": 2}}}}},
        {"$project": {"meta": "$$SEARCH_META"}}]))
    assert [d["_id"] for d in got] == sorted_ids(MOVIES, with_genres, {"year": -1},
                                                 facet_tutorial_held)
    assert got[0]["meta"] == {"count": {"total": len(with_genres)}, "facet": {"g": {
        "buckets": string_buckets(MOVIES, with_genres, "genres", facet_tutorial_held, 2)}}}


def test_search_meta_variable_is_missing_without_a_search(movies):
    got = list(movies.movies.aggregate([{"$match": {"_id": {"$lte": 2}}},
                                        {"$project": {"meta": "$$SEARCH_META"}}]))
    assert got == [{"_id": 1}, {"_id": 2}]
    got = list(movies.movies.aggregate([{"$limit": 1},
                                        {"$set": {"m": {"$ifNull": ["$$SEARCH_META", "none"]}}},
                                        {"$project": {"m": 1}}]))
    assert got == [{"_id": 1, "m": "none"}]


@pytest.mark.parametrize("outer", ["$search", "$match"])
@pytest.mark.parametrize("stage", ["$unionWith", "$lookup"])
def test_search_meta_variable_in_a_sub_pipeline_is_that_searchs(movies, stage, outer):
    # Each $search sets $$SEARCH_META for the pipeline it starts: mongod gives a $unionWith's or
    # $lookup's sub-pipeline an expression context of its own, which its $search fills.
    words_n = len(pattern_scores(WORDS, word_terms, ["code"], "ab.*", lucene_regex))
    movies_n = len(Field(MOVIES, "plot").text("train"))
    assert words_n != movies_n
    sub = [{"$search": {**regex("ab.*", "code"), "count": {"type": "total"}}},
           {"$project": {"_id": 0, "meta": "$$SEARCH_META"}}]
    first = ({"$search": {"text": {"query": "train", "path": "plot"},
                          "count": {"type": "total"}}} if outer == "$search"
             else {"$match": {}})
    inner = [{"meta": {"count": {"total": words_n}}}] * words_n
    outer_meta = {"meta": {"count": {"total": movies_n}}} if outer == "$search" else {}
    if stage == "$unionWith":
        got = list(movies.movies.aggregate([
            first, {"$limit": 1}, {"$project": {"_id": 0, "meta": "$$SEARCH_META"}},
            {"$unionWith": {"coll": "words", "pipeline": sub}}]))
        assert got == [outer_meta] + inner
    else:
        got = list(movies.movies.aggregate([
            first, {"$limit": 1},
            {"$lookup": {"from": "words", "pipeline": sub, "as": "found"}},
            {"$project": {"_id": 0, "meta": "$$SEARCH_META", "found": 1}}]))
        assert got == [{**outer_meta, "found": inner}]


def test_search_facet_needs_an_operator_of_its_own(movies):
    facets = {"g": {"type": "string", "path": "genres"}}
    code, message = error_of(lambda: list(movies.movies.aggregate(
        [{"$search": {"facet": {"facets": facets}}}])))
    assert code == NOT_IMPLEMENTED, message
    code, _ = error_of(lambda: list(movies.movies.aggregate(
        [{"$search": {**EVERY_MOVIE, "facet": {"operator": EVERY_MOVIE, "facets": facets}}}])))
    assert code == BAD_VALUE


def test_search_facet_the_index_cannot_count_fails_even_when_search_meta_is_not_read(movies):
    # mongot checks the facet collector with the query and answers "Cannot facet on field ...",
    # whether or not a later stage reads $$SEARCH_META.
    bad = {"facet": {"operator": EVERY_MOVIE, "facets": {"p": {"type": "string", "path": "plot"}}}}
    for later in [[{"$project": {"meta": "$$SEARCH_META"}}], [{"$project": {"_id": 1}}]]:
        code, message = error_of(lambda: list(movies.movies.aggregate([{"$search": bad}] + later)))
        assert code == BAD_VALUE and "Cannot facet on field" in message, later


# --- exists over autocomplete ----------------------------------------------------------------

def test_exists_matches_paths_mapped_only_as_autocomplete(movies):
    titled = {m["_id"]: 1.0 for m in MOVIES if "title" in m}
    assert_results(search(movies, "movies", {"exists": {"path": "title"}}, index="titles"),
                   ranked(titled, MOVIES))
    grams = Grams(MOVIES, "title")
    for query in ["the", "tra", "sun", "kid gold"]:
        autocomplete = {"autocomplete": {"query": query, "path": "title"}}
        expected = grams.any(query)
        assert expected, query
        # exists as a filter keeps the autocomplete scores, as a should clause adds 1 ...
        got = search(movies, "movies", {"compound": {"must": [autocomplete],
                                                     "filter": [{"exists": {"path": "title"}}]}},
                     index="titles")
        assert_results(got, ranked(expected, MOVIES))
        got = search(movies, "movies", {"compound": {"must": [autocomplete],
                                                     "should": [{"exists": {"path": "title"}}]}},
                     index="titles")
        assert_results(got, ranked({i: s + 1 for i, s in expected.items()}, MOVIES))
        # ... and mustNot exists of a token path drops the movies with genres (an empty array
        # too: the key exists).
        with_genres = {m["_id"] for m in MOVIES if "genres" in m}
        got = search(movies, "movies", {"compound": {"must": [autocomplete],
                                                     "mustNot": [{"exists": {"path": "genres"}}]}},
                     index="titles")
        assert_results(got, ranked({i: s for i, s in expected.items() if i not in with_genres},
                                   MOVIES))
    assert search_meta(movies, "movies", {"exists": {"path": "title"}, "count": {"type": "total"}},
                       index="titles") == [{"count": {"total": len(titled)}}]


# --- sub-documents, writes and restarts -----------------------------------------------------

REVIEWED = [
    {"_id": 1, "imdb": {"rating": 8.1, "votes": 1200}, "cast": [{"name": "Ann"}, {"name": "Bo"}],
     "awards": {"won": day(2001, 5, 1)}},
    {"_id": 2, "imdb": {"rating": 6}, "cast": [{"name": "Bo"}], "awards": {"won": day(1999)}},
    {"_id": 3, "imdb": [{"rating": 7.5}, {"rating": 9}], "cast": {"name": "Cy"}},
    {"_id": 4, "imdb": {"votes": 10}, "cast": [{"name": "Ann"}, {"name": "Ann"}, {"role": "x"}]},
    {"_id": 5, "imdb": {"rating": Int64(7)}, "cast": [], "awards": {"won": [day(2010), day(1990)]}},
]
REVIEWED_INDEX = static(
    imdb={"type": "document", "fields": {"rating": {"type": "number"}}},
    cast={"type": "document", "fields": {"name": {"type": "token"}}},
    awards={"type": "document", "dynamic": True})
REVIEWED_KINDS = {"imdb.rating": {"number"}, "cast.name": {"string"}, "awards.won": WHOLE_KINDS}
reviewed_held = holder(lambda path: REVIEWED_KINDS.get(path, set()))


def test_sub_document_paths_sort_facet_and_near(db):
    db.docs.insert_many(REVIEWED)
    create_ready(db, "docs", REVIEWED_INDEX)
    every = all_ids(REVIEWED)
    everything = {"compound": {"should": [{"exists": {"path": "imdb"}},
                                          {"exists": {"path": "cast"}}]}}
    # Every document has both keys (4 holds no rating and 5 an empty cast, which exist still).
    scores = {1: 2.0, 2: 2.0, 3: 2.0, 4: 2.0, 5: 2.0}
    assert ids(search(db, "docs", everything)) == [1, 2, 3, 4, 5]
    sorts = [{"imdb.rating": 1}, {"imdb.rating": -1}, {"cast.name": 1}, {"cast.name": -1},
             {"awards.won": -1}, {"awards.won": {"order": 1, "noData": "highest"}},
             {"cast.name": 1, "imdb.rating": -1}]
    check_sorts(db, everything, sorts, scores, reviewed_held, coll="docs", docs=REVIEWED)
    meta = facet_meta(db, "docs", {
        "names": {"type": "string", "path": "cast.name"},
        "ratings": {"type": "number", "path": "imdb.rating", "boundaries": [6, 7, 8, 10]},
        "won": {"type": "date", "path": "awards.won", "boundaries": [day(1995), day(2005)],
                "default": "other"}})
    assert meta == {"count": {"lowerBound": 5}, "facet": {
        "names": {"buckets": string_buckets(REVIEWED, every, "cast.name", reviewed_held)},
        "ratings": {"buckets": range_buckets(REVIEWED, every, "imdb.rating", reviewed_held,
                                             [6, 7, 8, 10])},
        "won": {"buckets": range_buckets(REVIEWED, every, "awards.won", reviewed_held,
                                         [day(1995), day(2005)], "other")}}}
    assert meta["facet"]["names"]["buckets"] == [{"_id": "Ann", "count": 2},
                                                 {"_id": "Bo", "count": 2},
                                                 {"_id": "Cy", "count": 1}]
    assert_results(search(db, "docs", near("imdb.rating", 8, 1)),
                   ranked(near_scores(REVIEWED, "imdb.rating", 8, 1, reviewed_held), REVIEWED))
    assert_results(search(db, "docs", near("awards.won", day(2000), NINETY_DAYS_MS)),
                   ranked(near_scores(REVIEWED, "awards.won", day(2000), NINETY_DAYS_MS,
                                      reviewed_held), REVIEWED))


def test_sort_facets_and_search_meta_see_each_acknowledged_write(db):
    docs = {}
    db.create_collection("live")
    create_ready(db, "live", static(genre={"type": "token", "normalizer": "lowercase"},
                                    year={"type": "number"}, title={"type": "string"}))
    facets = {"g": {"type": "string", "path": "genre"},
              "y": {"type": "number", "path": "year", "boundaries": [1990, 2000, 2010],
                    "default": "other"}}
    held = holder(lambda path: {"genre": {"string"}, "year": {"number"}}.get(path, set()),
                  lowercase={"genre"})

    def check():
        current = list(docs.values())
        every = all_ids(current)
        assert facet_meta(db, "live", facets) == {"count": {"lowerBound": len(current)},
                                                   "facet": {
            "g": {"buckets": string_buckets(current, every, "genre", held)},
            "y": {"buckets": range_buckets(current, every, "year", held, [1990, 2000, 2010],
                                           "other")}}}
        for sort in [{"year": 1}, {"year": -1}, {"genre": 1, "year": -1}]:
            got = sorted_search(db, {"exists": {"path": "title"}}, sort, coll="live")
            titled = {d["_id"]: 1.0 for d in current if "title" in d}
            assert ids(got) == sorted_ids(current, titled, sort, held), sort
        got = list(db.live.aggregate([
            {"$search": {"exists": {"path": "title"}, "count": {"type": "total"}}},
            {"$limit": 1}, {"$project": {"_id": 0, "m": "$$SEARCH_META"}}]))
        n = sum("title" in d for d in current)
        assert got == ([{"m": {"count": {"total": n}}}] if n else [])

    check()
    for doc in [{"_id": 1, "title": "a", "genre": "Drama", "year": 1995},
                {"_id": 2, "title": "b", "genre": ["drama", "Comedy", "DRAMA"],
                 "year": [2005, 1985]},
                {"_id": 3, "title": "c", "genre": "COMEDY"},
                {"_id": 4, "genre": "War", "year": 2001.5}]:
        docs[doc["_id"]] = doc
        db.live.insert_one(dict(doc))
        check()
    docs[1] = {"_id": 1, "title": "a", "genre": "War", "year": 2012}
    db.live.replace_one({"_id": 1}, docs[1])
    check()
    docs[2]["year"] = Int64(1999)
    db.live.update_one({"_id": 2}, {"$set": {"year": Int64(1999)}})
    check()
    del docs[3]
    db.live.delete_one({"_id": 3})
    check()


def test_sort_and_facets_answer_the_same_after_a_restart_and_a_crash(own_server):
    import pymongo

    from quarry_server import CLIENT_OPTIONS
    from test_full_text_search import wait_ready

    facets = {"genresFacet": {"type": "string", "path": "genres"},
              "yearFacet": {"type": "number", "path": "year",
                            "boundaries": [1910, 1920, 1930, 1940], "default": "other"}}
    sort = {"released": -1, "title": 1}

    def answers(db):
        return (facet_meta(db, "movies", facets, operator=TUTORIAL_OPERATOR,
                           index="facet-tutorial"),
                facet_meta(db, "movies", {"t": {"type": "string", "path": "title"}}),
                sorted_search(db, EVERY_MOVIE, sort),
                sorted_search(db, EVERY_MOVIE, {"year": 1}, index="dynamic"),
                search(db, "movies", wildcard("the*", "title", allowAnalyzedField=True)),
                search(db, "movies", near("released", day(1921), NINETY_DAYS_MS)))

    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as client:
        db = client.facets
        db.movies.insert_many([dict(m) for m in MOVIES])
        create_ready(db, "movies", FACET_TUTORIAL, name="facet-tutorial")
        create_ready(db, "movies", MAPPED)
        create_ready(db, "movies", DYNAMIC, name="dynamic")
        before = answers(db)
    matched = near_scores(MOVIES, "released", day(1921, 11, 1), NINETY_DAYS_MS,
                          facet_tutorial_held)
    assert before[0]["facet"]["yearFacet"]["buckets"] == range_buckets(
        MOVIES, matched, "year", facet_tutorial_held, [1910, 1920, 1930, 1940], "other")
    assert ids(before[2]) == sorted_ids(MOVIES, all_ids(MOVIES), sort, mapped_held)
    for crash in (False, True):
        own_server.restart(crash=crash)
        with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as client:
            for name in ("facet-tutorial", "default", "dynamic"):
                wait_ready(client.facets, "movies", name=name)
            assert answers(client.facets) == before, f"crash={crash}"

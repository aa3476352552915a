"""Atlas Search's `score: {function: <expression>}` and compound's `score: {dismax: ...}` against a
real quarryd.

A function score replaces an operator's score, for each document it matches, by an expression
over the operator's own score (`{score: "relevance"}`), constants and the numbers the document
holds (`path`, with `undefined` where it holds none), combined by `add`, `multiply`, `log`
(base 10), `log1p` (log10(1 + x)) and `gauss` (decay ** ((distance beyond offset / scale) ** 2)).
A result that is negative or not a number scores 0, and the document still matches. A number in
an array (or under a document in an array) counts as absent, as Lucene keeps only single values;
a path the index does not map as numbers fails the search. `score.boost.path` reads paths by the
same rules. `dismax` scores a compound of should clauses by the best matching clause's score
plus tieBreakerScore times the other matching clauses' scores; its clauses form one Lucene
clause, so minimumShouldMatch 2 matches nothing.

Covered: each kind of expression and nested combinations, gauss on both sides of its origin with
and without offset and decay, `undefined` by default and given, numbers in arrays, strings and
missing fields at a path, dynamic and static mappings, negative and NaN results, functions on
compound (relevance is the compound's sum), in a should clause, on equals and range, inside
embeddedDocument's outerScore, $searchMeta counts, boost by path, dismax with tie breakers 0,
0.3, 0.75 and 1 (the plain compound's sum), one should clause, minimumShouldMatch, and the errors
of both.

Expected scores are computed here: BM25 by test_full_text_search's Field, the numbers each
document holds by reading it (NUMBERS spells them out for the corpus), and each expression with
Python's math, compared with rel=1e-6; equal scores come in insertion order.
"""
import copy
import math

import pytest
from bson import Int64

from test_full_text_search import (DYNAMIC, STRING, Field, assert_errors, create_ready, equals,
                                   ids, range_, ranked, search, search_meta, static, text)

BAD_VALUE = 2

DOCS = [
    {"_id": 1, "t": "fox", "n": 4, "label": "red", "sub": {"n": 2}},
    {"_id": 2, "t": "fox fox dog", "n": 0.5, "label": "blue", "arr": [3, 9], "sub": {"n": -1}},
    {"_id": 3, "t": "the quick fox jumps over a dog", "n": -2, "label": "red",
     "subs": [{"n": 7}]},
    {"_id": 4, "t": "a dog and a river", "n": Int64(10), "label": "green", "arr": [6]},
    {"_id": 5, "t": "fox river fox river", "label": "blue", "sub": {"n": 5.5}},  # no n
    {"_id": 6, "t": "river cat", "n": 100, "label": "red"},
    # A string is no number; a document in an array holds none either.
    {"_id": 7, "t": "cat dog fox", "n": "12", "label": "green", "sub": [{"n": 8}]},
    # An array at the path holds no single number.
    {"_id": 8, "t": "quick brown dog", "n": 0, "label": "red", "sub": {"n": [1, 2]}},
]
BY_ID = {d["_id"]: d for d in DOCS}
# What a score reads at each path: None where the document holds no single number.
NUMBERS = {
    "n": {1: 4, 2: 0.5, 3: -2, 4: 10, 5: None, 6: 100, 7: None, 8: 0},
    "sub.n": {1: 2, 2: -1, 3: None, 4: None, 5: 5.5, 6: None, 7: None, 8: None},
    "arr": {i: None for i in BY_ID},
    "subs.n": {i: None for i in BY_ID},
}

NUMBER = {"type": "number"}
INDEXES = {
    "default": DYNAMIC,
    "static": static(t=STRING, n=NUMBER, label={"type": "token"},
                     sub={"type": "document", "fields": {"n": NUMBER}}),
}
BOTH = ["default", "static"]
DATABASE = "t_search_score_functions"

T = Field(DOCS, "t")
# Every document holds one of these words.
EVERYTHING = "fox dog river cat"
REL = {"score": "relevance"}


# --- expected scores -------------------------------------------------------------------------

def number_at(doc, path, undefined=0.0):
    """The single number `doc` holds at dotted `path`, or `undefined`."""
    value = doc
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            return undefined
        value = value[key]
        if isinstance(value, list):
            return undefined
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return undefined
    return float(value)


def log10(x):
    return math.log10(x) if x > 0 else -math.inf if x == 0 else math.nan


def gauss(v, origin, scale, offset=0.0, decay=0.5):
    return decay ** ((max(0.0, abs(v - origin) - offset) / scale) ** 2)


def final(score):
    """A negative result, or one that is not a number (NaN fails every comparison), is 0."""
    return score if score >= 0 else 0.0


def functioned(matched, expression):
    """{_id: final(expression(doc, relevance))} over `matched` ({_id: relevance})."""
    return {i: final(expression(BY_ID[i], rel)) for i, rel in matched.items()}


def dismax(clause_scores, tie):
    """{_id: best + tie * (sum - best)} over the clauses each document matches."""
    out = {}
    for i in set().union(*clause_scores):
        matched = [scores[i] for scores in clause_scores if i in scores]
        best = max(matched)
        out[i] = best + tie * (sum(matched) - best)
    return out


# --- operators ---------------------------------------------------------------------------------

def scored(operator, function):
    """`operator` with score: {function: function}."""
    (name, body), = operator.items()
    return {name: {**body, "score": {"function": function}}}


def with_score(operator, score):
    (name, body), = operator.items()
    return {name: {**body, "score": score}}


def words(query, **options):
    return text(query, "t", **options)


def at(field, undefined=None):
    """A path as an expression or gauss read it: the field, or {value, undefined}."""
    return field if undefined is None else {"value": field, "undefined": undefined}


def path(field, undefined=None):
    return {"path": at(field, undefined)}


def compound(must=(), should=(), must_not=(), filter_=(), **options):
    clauses = {"must": must, "should": should, "mustNot": must_not, "filter": filter_}
    return {"compound": {**{k: list(v) for k, v in clauses.items() if v}, **options}}


def assert_same(got, want):
    """Same _ids in the same order, scores equal to within rel=1e-6."""
    assert ids(got) == ids(want)
    assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-6)


@pytest.fixture(scope="module")
def docs(client):
    """One database for the module: DOCS under each index of INDEXES."""
    client.drop_database(DATABASE)
    db = client[DATABASE]
    db.docs.insert_many(copy.deepcopy(DOCS))
    for name, definition in INDEXES.items():
        create_ready(db, "docs", definition, name=name)
    yield db
    client.drop_database(DATABASE)


def found(db, operator, index="default"):
    return search(db, "docs", operator, index=index)


def check(db, operator, expected, index="default"):
    assert_same(found(db, operator, index=index), ranked(expected, DOCS))


def test_the_corpus_is_as_described():
    for field, numbers in NUMBERS.items():
        assert {i: number_at(d, field, None) for i, d in BY_ID.items()} == numbers, field
    assert set(T.text(EVERYTHING)) == set(BY_ID)
    assert sorted(T.text("fox")) == [1, 2, 3, 5, 7]
    assert sorted(T.text("dog")) == [2, 3, 4, 7, 8]
    assert sorted(T.text("river")) == [4, 5, 6]


# --- constant, relevance and path --------------------------------------------------------------

@pytest.mark.parametrize("index", BOTH)
def test_a_constant_replaces_the_score_of_every_matching_document(docs, index):
    fox = T.text("fox")
    got = found(docs, scored(words("fox"), {"constant": 2.5}), index=index)
    assert got == [(i, 2.5) for i in sorted(fox)]
    got = found(docs, scored(words("fox dog"), {"constant": Int64(3)}), index=index)
    assert got == [(i, 3.0) for i in sorted(T.text("fox dog"))]


@pytest.mark.parametrize("index", BOTH)
def test_relevance_is_the_operators_own_score(docs, index):
    for query in ["fox", "dog river", "quick"]:
        check(docs, scored(words(query), REL), T.text(query), index=index)
    # equals scores 1.
    check(docs, scored(equals("n", 4), REL), {1: 1.0}, index=index)


@pytest.mark.parametrize("index", BOTH)
def test_path_scores_the_number_the_document_holds(docs, index):
    got = found(docs, scored(words(EVERYTHING), path("n")), index=index)
    # 100, 10 (an Int64), 4, 0.5; then -2 (negative: 0), absent, the string "12" and 0.
    assert got == [(6, 100.0), (4, 10.0), (1, 4.0), (2, 0.5), (3, 0.0), (5, 0.0), (7, 0.0),
                   (8, 0.0)]
    check(docs, scored(words("fox"), path("n")),
          functioned(T.text("fox"), lambda d, rel: number_at(d, "n")), index=index)


@pytest.mark.parametrize("index", BOTH)
def test_undefined_is_zero_unless_given_and_may_be_negative_inside_an_expression(docs, index):
    everything = T.text(EVERYTHING)
    # {value} alone is the same as the plain path: absent is 0.
    check(docs, scored(words(EVERYTHING), {"path": {"value": "n"}}),
          functioned(everything, lambda d, rel: number_at(d, "n")), index=index)
    got = found(docs, scored(words(EVERYTHING), path("n", undefined=7)), index=index)
    assert got == [(6, 100.0), (4, 10.0), (5, 7.0), (7, 7.0), (1, 4.0), (2, 0.5), (3, 0.0),
                   (8, 0.0)]
    # Only the final result is held to 0: absent is -5 here, and -5 + 10 = 5.
    function = {"add": [path("n", undefined=-5), {"constant": 10}]}
    expected = functioned(everything, lambda d, rel: number_at(d, "n", -5.0) + 10)
    assert expected[5] == expected[7] == 5 and expected[3] == 8
    check(docs, scored(words(EVERYTHING), function), expected, index=index)


@pytest.mark.parametrize("index", BOTH)
def test_numbers_in_arrays_count_as_absent(docs, index):
    everything = T.text(EVERYTHING)
    # sub.n: 2, -1, 5.5 are single; [{"n": 8}] and {"n": [1, 2]} hold none.
    got = found(docs, scored(words(EVERYTHING), path("sub.n", undefined=50)), index=index)
    want = functioned(everything, lambda d, rel: number_at(d, "sub.n", 50.0))
    assert want == {1: 2, 2: 0, 3: 50, 4: 50, 5: 5.5, 6: 50, 7: 50, 8: 50}
    assert_same(got, ranked(want, DOCS))


def test_with_dynamic_mappings_any_path_reads_numbers_or_undefined(docs):
    everything = T.text(EVERYTHING)
    # Arrays of numbers, numbers under documents in arrays, strings and missing fields.
    for field in ["arr", "subs.n", "t", "label", "nowhere"]:
        got = found(docs, scored(words(EVERYTHING), path(field, undefined=1.5)))
        assert got == [(i, 1.5) for i in sorted(everything)], field
        assert [s for _, s in found(docs, scored(words(EVERYTHING), path(field)))] == [0.0] * 8


# --- add, multiply, log, log1p -----------------------------------------------------------------

@pytest.mark.parametrize("index", BOTH)
def test_add_and_multiply_combine_two_or_more_expressions(docs, index):
    fox = T.text("fox")
    check(docs, scored(words("fox"), {"add": [REL, path("n"), {"constant": 1}]}),
          functioned(fox, lambda d, rel: rel + number_at(d, "n") + 1), index=index)
    check(docs, scored(words("fox"), {"multiply": [REL, {"constant": 2}, path("n", 1)]}),
          functioned(fox, lambda d, rel: rel * 2 * number_at(d, "n", 1.0)), index=index)
    check(docs, scored(words("fox"), {"multiply": [REL, REL]}),
          {i: s * s for i, s in fox.items()}, index=index)
    check(docs, scored(words("fox"), {"add": [{"constant": 0.25}, {"constant": Int64(2)}]}),
          {i: 2.25 for i in fox}, index=index)


@pytest.mark.parametrize("index", BOTH)
def test_log_is_base_ten_and_log1p_adds_one_first(docs, index):
    everything = T.text(EVERYTHING)
    got = found(docs, scored(words(EVERYTHING), {"log": path("n")}), index=index)
    # log10(100) = 2, log10(10) = 1, log10(4); log10(0.5) < 0, log of -2 or 0 (absent too): 0.
    assert_same(got, [(6, 2.0), (4, 1.0), (1, math.log10(4))] +
                [(i, 0.0) for i in [2, 3, 5, 7, 8]])
    check(docs, scored(words(EVERYTHING), {"log1p": path("n")}),
          functioned(everything, lambda d, rel: log10(1 + number_at(d, "n"))), index=index)
    check(docs, scored(words("fox"), {"log": REL}),
          functioned(T.text("fox"), lambda d, rel: log10(rel)), index=index)
    check(docs, scored(words("fox"), {"log1p": {"constant": 999}}), {i: 3.0 for i in T.text("fox")},
          index=index)


@pytest.mark.parametrize("index", BOTH)
def test_nested_expressions(docs, index):
    fox, dog = T.text("fox"), T.text("dog")
    check(docs, scored(words("fox"), {"multiply": [REL, {"log1p": path("n")}]}),
          functioned(fox, lambda d, rel: rel * log10(1 + number_at(d, "n"))), index=index)
    function = {"add": [
        {"multiply": [REL, {"constant": 0.5}]},
        {"log": {"add": [path("n", undefined=9), {"constant": 1}]}},
        {"multiply": [path("sub.n", undefined=3), {"log1p": REL}]}]}
    check(docs, scored(words("dog"), function),
          functioned(dog, lambda d, rel: rel * 0.5 + log10(number_at(d, "n", 9.0) + 1) +
                     number_at(d, "sub.n", 3.0) * log10(1 + rel)), index=index)


def test_a_deep_expression_is_evaluated_and_one_too_deep_answers_bad_value(docs):
    function, value = {"constant": 5}, 5.0
    for _ in range(30):
        function, value = {"log1p": function}, log10(1 + value)
    assert_same(found(docs, scored(words("cat"), function)), [(6, value), (7, value)])
    for _ in range(40):
        function = {"log1p": function}
    assert_errors([(scored(words("cat"), function), BAD_VALUE, "64")],
                  lambda operator: found(docs, operator))


# --- gauss -------------------------------------------------------------------------------------

@pytest.mark.parametrize("index", BOTH)
def test_gauss_decays_alike_on_both_sides_of_the_origin(docs, index):
    everything = T.text(EVERYTHING)
    function = {"gauss": {"path": at("n"), "origin": 3, "scale": 4}}
    want = functioned(everything, lambda d, rel: gauss(number_at(d, "n"), 3, 4))
    # 4 is 1 above the origin, 0.5 2.5 below, -2 5 below, 10 7 above; absent and 0 are 3 below.
    assert want[1] == pytest.approx(0.5 ** (1 / 16)) and want[3] == pytest.approx(0.5 ** (25 / 16))
    assert want[5] == want[7] == want[8]
    check(docs, scored(words(EVERYTHING), function), want, index=index)
    # A scale of 4 away scores decay: 0.5.
    got = found(docs, scored(words("river"), {"gauss": {"path": at("n"), "origin": 14,
                                                        "scale": 4}}), index=index)
    assert_same(got, ranked({4: 0.5, 5: gauss(0, 14, 4), 6: gauss(100, 14, 4)}, DOCS))
    # At the origin, 1.
    got = found(docs, scored(words("fox"), {"gauss": {"path": at("n"), "origin": 0.5,
                                                      "scale": 1}}), index=index)
    assert got[0] == (2, 1.0)


@pytest.mark.parametrize("index", BOTH)
def test_gauss_offset_and_decay(docs, index):
    everything = T.text(EVERYTHING)
    function = {"gauss": {"path": at("n"), "origin": 4, "scale": 4, "offset": 4,
                          "decay": 0.25}}
    want = functioned(everything, lambda d, rel: gauss(number_at(d, "n"), 4, 4, 4, 0.25))
    # Within the offset (4, 0.5, and 0 for absent), 1; 2 beyond it (10, and -2 on the other
    # side), 0.25 ** (2 / 4) ** 2.
    assert want[1] == want[2] == want[5] == want[7] == want[8] == 1.0
    assert want[3] == want[4] == pytest.approx(0.25 ** 0.25)
    check(docs, scored(words(EVERYTHING), function), want, index=index)
    # Where the path is missing, gauss reads its undefined.
    function = {"gauss": {"path": at("n", undefined=3.5), "origin": 3, "scale": 4,
                          "decay": 0.9}}
    check(docs, scored(words(EVERYTHING), function),
          functioned(everything, lambda d, rel: gauss(number_at(d, "n", 3.5), 3, 4, 0, 0.9)),
          index=index)
    # And gauss composes: relevance times closeness.
    function = {"multiply": [REL, {"gauss": {"path": at("n"), "origin": 5, "scale": 2,
                                             "offset": 1}}]}
    check(docs, scored(words("dog"), function),
          functioned(T.text("dog"), lambda d, rel: rel * gauss(number_at(d, "n"), 5, 2, 1)),
          index=index)


# --- negative and NaN --------------------------------------------------------------------------

@pytest.mark.parametrize("function", [
    {"constant": -1},
    {"log": {"constant": 0}},  # -inf
    {"log": {"constant": -1}},  # NaN
    {"log1p": {"constant": -3}},  # NaN
    {"multiply": [REL, {"constant": -2}]},
    {"add": [REL, {"constant": -1000}]},
    {"log": {"multiply": [REL, {"constant": 0}]}},
])
def test_negative_or_nan_results_score_zero_and_the_documents_still_match(docs, function):
    for index in BOTH:
        operator = scored(words("fox dog"), function)
        matched = T.text("fox dog")
        assert found(docs, operator, index=index) == [(i, 0.0) for i in sorted(matched)]
        assert search_meta(docs, "docs", operator, index=index, count={"type": "total"}) == \
            [{"count": {"total": len(matched)}}]


def test_search_meta_counts_are_unaffected_by_function_scores(docs):
    for query in ["fox", "river", EVERYTHING]:
        n = len(T.text(query))
        for function in [path("n"), {"log": path("n")}, {"gauss": {"path": at("n"),
                                                                   "origin": 0, "scale": 1}}]:
            for index in BOTH:
                assert search_meta(docs, "docs", scored(words(query), function), index=index,
                                   count={"type": "total"}) == [{"count": {"total": n}}]


# --- functions on compound and in its clauses -------------------------------------------------

@pytest.mark.parametrize("index", BOTH)
def test_a_function_on_compound_reads_the_compounds_summed_score(docs, index):
    fox, dog, cat = T.text("fox"), T.text("dog"), T.text("cat")
    summed = {i: s + dog.get(i, 0) for i, s in fox.items() if i not in cat}
    plain = compound(must=[words("fox")], should=[words("dog")], must_not=[words("cat")])
    check(docs, plain, summed, index=index)
    check(docs, scored(plain, REL), summed, index=index)
    function = {"multiply": [REL, {"log1p": path("n", undefined=9)}]}
    check(docs, scored(plain, function),
          functioned(summed, lambda d, rel: rel * log10(1 + number_at(d, "n", 9.0))),
          index=index)
    # A filter clause adds nothing to the relevance.
    filtered = compound(must=[words("dog")], filter_=[words("fox")])
    check(docs, scored(filtered, {"add": [REL, {"constant": 1}]}),
          {i: s + 1 for i, s in dog.items() if i in fox}, index=index)


@pytest.mark.parametrize("index", BOTH)
def test_a_function_scored_should_clause_adds_its_value_to_the_sum(docs, index):
    fox, dog = T.text("fox"), T.text("dog")
    got = found(docs, compound(must=[words("fox")], should=[scored(words("dog"), path("n"))]),
                index=index)
    assert_same(got, ranked({i: s + (final(number_at(BY_ID[i], "n")) if i in dog else 0)
                             for i, s in fox.items()}, DOCS))
    got = found(docs, compound(should=[scored(words("fox"), {"constant": 3}),
                                       scored(words("dog"), {"multiply": [REL, path("n", 1)]})]),
                index=index)
    expected = {i: 3.0 for i in fox}
    for i, s in dog.items():
        expected[i] = expected.get(i, 0) + final(s * number_at(BY_ID[i], "n", 1.0))
    assert_same(got, ranked(expected, DOCS))


@pytest.mark.parametrize("index", BOTH)
def test_a_should_clause_scoring_zero_still_counts_as_matched(docs, index):
    cat, river = T.text("cat"), T.text("river")
    zero_cat = scored(words("cat"), {"log": {"constant": 0}})
    got = found(docs, compound(should=[zero_cat, words("river")], minimumShouldMatch=1),
                index=index)
    assert_same(got, ranked({**{i: 0.0 for i in cat}, **river}, DOCS))
    assert 7 in ids(got)  # "cat dog fox" matches only the zero-scored clause
    got = found(docs, compound(should=[zero_cat, words("river")], minimumShouldMatch=2),
                index=index)
    assert_same(got, [(6, river[6])])


def test_functions_on_equals_and_range(docs):
    red = [i for i, d in BY_ID.items() if d["label"] == "red"]
    got = found(docs, scored(equals("label", "red"), {"add": [REL, path("n")]}), index="static")
    assert_same(got, ranked({i: final(1 + number_at(BY_ID[i], "n")) for i in red}, DOCS))
    assert ids(got) == [6, 1, 8, 3]  # 101, 5, 1 and -2 + 1 held to 0
    in_range = {i: 1.0 for i, v in NUMBERS["n"].items() if v is not None and 0 <= v <= 10}
    for index in BOTH:
        function = {"gauss": {"path": at("n"), "origin": 10, "scale": 5, "decay": 0.1}}
        check(docs, scored(range_("n", gte=0, lte=10), function),
              functioned(in_range, lambda d, rel: gauss(number_at(d, "n"), 10, 5, 0, 0.1)),
              index=index)


def test_a_function_as_embedded_documents_outer_score(db):
    docs = [{"_id": 1, "n": 3, "items": [{"color": "red"}, {"color": "red"}, {"color": "blue"}]},
            {"_id": 2, "n": 10, "items": [{"color": "blue"}]},
            {"_id": 3, "items": [{"color": "red"}]},
            {"_id": 4, "n": 0.5, "items": {"color": "red"}}]
    db.orders.insert_many(docs)
    create_ready(db, "orders", static(n=NUMBER, items={
        "type": "embeddedDocuments", "fields": {"color": {"type": "token"}}}))
    operator = {"embeddedDocument": {"path": "items", "operator": equals("items.color", "red"),
                                     "score": {"embedded": {"outerScore": {"function": {
                                         "multiply": [REL, path("n", undefined=7)]}}}}}}
    # Each red element scores 1 and they add up; then times n (7 where there is none).
    assert_same(search(db, "orders", operator), [(3, 7.0), (1, 6.0), (4, 0.5)])


# --- errors ------------------------------------------------------------------------------------

def test_paths_a_static_mapping_holds_no_numbers_at_fail_the_search(docs):
    cases = []
    for field in ["t", "label", "arr", "subs.n", "nowhere"]:
        for function in [path(field), path(field, undefined=1),
                         {"add": [REL, {"log1p": path(field)}]},
                         {"gauss": {"path": at(field), "origin": 0, "scale": 1}}]:
            cases.append((scored(words("fox"), function), BAD_VALUE, field))
            cases.append((compound(must=[words("dog")], should=[scored(words("fox"), function)]),
                          BAD_VALUE, field))
        # Even where nothing matches.
        cases.append((scored(words("zebra"), path(field)), BAD_VALUE, field))
        cases.append((scored(compound(should=[words("fox")]), path(field)), BAD_VALUE, field))
    assert_errors(cases, lambda operator: found(docs, operator, index="static"))


def test_malformed_functions_answer_bad_value(docs):
    def gauss_without(key, **changes):
        spec = {"path": at("n"), "origin": 0, "scale": 1, **changes}
        return {"gauss": {k: v for k, v in spec.items() if k != key}}

    functions = [
        ({}, "function"),
        ({"constant": 1, "score": "relevance"}, "function"),
        ({"sqrt": {"constant": 4}}, "sqrt"),
        ({"add": [{"constant": 1}]}, "add"),
        ({"add": []}, "add"),
        ({"add": {"constant": 1}}, "add"),
        ({"multiply": [{"constant": 1}]}, "multiply"),
        ({"multiply": {"constant": 1}}, "multiply"),
        ({"add": [{"constant": 1}, {"bogus": 1}]}, "bogus"),
        ({"constant": "1"}, "constant"),
        ({"constant": float("inf")}, "constant"),
        ({"constant": float("-inf")}, "constant"),
        ({"constant": float("nan")}, "constant"),
        ({"constant": None}, "constant"),
        ({"score": "boost"}, "score"),
        ({"score": 1}, "score"),
        ({"path": ""}, "path"),
        ({"path": 5}, "path"),
        ({"path": {"undefined": 1}}, "value"),
        ({"path": {"value": ""}}, "value"),
        ({"path": {"value": "n", "default": 1}}, "default"),
        ({"path": {"value": "n", "undefined": "1"}}, "undefined"),
        ({"log": 5}, "log"),
        ({"log1p": {}}, "log1p"),
        ({"log": {"constant": 1, "path": "n"}}, "log"),
        (gauss_without("path"), "path"),
        (gauss_without("origin"), "origin"),
        (gauss_without("scale"), "scale"),
        (gauss_without(None, scale=0), "scale"),
        (gauss_without(None, decay=0), "decay"),
        (gauss_without(None, decay=1), "decay"),
        (gauss_without(None, decay=1.5), "decay"),
        (gauss_without(None, decay=-0.5), "decay"),
        (gauss_without(None, origin="0"), "origin"),
        (gauss_without(None, offset="1"), "offset"),
        (gauss_without(None, sigma=1), "sigma"),
        ({"gauss": 5}, "gauss"),
        ("relevance", "function"),
        ([{"constant": 1}], "function"),
    ]
    cases = [(scored(words("fox"), function), BAD_VALUE, named)
             for function, named in functions]
    cases += [(compound(should=[scored(words("fox"), function)]), BAD_VALUE, named)
              for function, named in functions[:5]]
    assert_errors(cases, lambda operator: found(docs, operator))


def test_score_takes_one_of_boost_constant_function_and_dismax(docs):
    function = {"function": {"constant": 1}}
    cases = [
        (with_score(words("fox"), {"boost": {"value": 2}, **function}), BAD_VALUE, "one of"),
        (with_score(words("fox"), {**function, "constant": {"value": 2}}), BAD_VALUE, "one of"),
        (with_score(words("fox"), {"boost": {"path": "n"}, **function}), BAD_VALUE, "one of"),
        (with_score(compound(should=[words("fox")]), {**function, "dismax": {}}), BAD_VALUE,
         "one of"),
        (with_score(compound(should=[words("fox")]), {"dismax": {}, "boost": {"value": 2}}),
         BAD_VALUE, "one of"),
    ]
    assert_errors(cases, lambda operator: found(docs, operator))


# --- boost by a path ---------------------------------------------------------------------------

@pytest.mark.parametrize("index", BOTH)
def test_boost_by_path_reads_numbers_as_functions_do_and_holds_negatives_to_zero(docs, index):
    everything = T.text(EVERYTHING)
    for field, undefined in [("n", None), ("n", 2), ("sub.n", 4)]:
        boost = {"path": field, **({} if undefined is None else {"undefined": undefined})}
        got = found(docs, with_score(words(EVERYTHING), {"boost": boost}), index=index)
        want = functioned(everything,
                          lambda d, rel: rel * number_at(d, field, float(undefined or 0)))
        assert_same(got, ranked(want, DOCS))
        assert sorted(ids(got)) == sorted(everything)
    # -2 and -1 (sub.n) become 0, and their documents still match.
    got = dict(found(docs, with_score(words(EVERYTHING), {"boost": {"path": "n"}}), index=index))
    assert got[3] == 0.0
    got = dict(found(docs, with_score(words(EVERYTHING), {"boost": {"path": "sub.n"}}),
                     index=index))
    assert got[2] == 0.0


def test_boost_by_path_reads_only_paths_mapped_as_numbers(docs):
    cases = [(with_score(words("fox"), {"boost": {"path": field}}), BAD_VALUE, field)
             for field in ["t", "label", "arr", "subs.n"]]
    assert_errors(cases, lambda operator: found(docs, operator, index="static"))
    # In the dynamic index arrays of numbers hold no single number: undefined, 0 by default.
    got = found(docs, with_score(words("fox"), {"boost": {"path": "arr", "undefined": 2}}))
    assert_same(got, ranked({i: 2 * s for i, s in T.text("fox").items()}, DOCS))


# --- dismax ------------------------------------------------------------------------------------

CLAUSES = ["fox", "dog", "river"]


def dismax_compound(tie=None, should=None, **options):
    spec = {} if tie is None else {"tieBreakerScore": tie}
    should = [words(w) for w in CLAUSES] if should is None else should
    return compound(should=should, score={"dismax": spec}, **options)


@pytest.mark.parametrize("index", BOTH)
def test_dismax_scores_the_best_clause_plus_the_tie_breaker_times_the_others(docs, index):
    clause_scores = [T.text(w) for w in CLAUSES]
    for tie in [0, 0.3, 0.75, Int64(0)]:
        want = dismax(clause_scores, tie)
        check(docs, dismax_compound(tie), want, index=index)
    # Tie breaker 0: the best clause alone.
    got = dict(found(docs, dismax_compound(0), index=index))
    assert got[2] == pytest.approx(max(T.text("fox")[2], T.text("dog")[2]), rel=1e-6)
    assert got[4] == pytest.approx(max(T.text("dog")[4], T.text("river")[4]), rel=1e-6)
    # Every document matching any clause matches.
    assert sorted(got) == sorted(set().union(*clause_scores))


@pytest.mark.parametrize("index", BOTH)
def test_dismax_with_tie_breaker_one_is_the_plain_compounds_sum(docs, index):
    should = [words(w) for w in CLAUSES]
    plain = found(docs, compound(should=should), index=index)
    summed = {}
    for w in CLAUSES:
        for i, s in T.text(w).items():
            summed[i] = summed.get(i, 0) + s
    assert_same(plain, ranked(summed, DOCS))
    for tie in [1, 1.0, None]:  # None: the default
        assert_same(found(docs, dismax_compound(tie), index=index), plain)
    assert found(docs, dismax_compound(0.3), index=index) != plain


def test_dismax_of_one_should_clause_is_that_clauses_score(docs):
    for tie in [0, 0.3, None]:
        score = {"dismax": {} if tie is None else {"tieBreakerScore": tie}}
        for should in [words("dog"), [words("dog")]]:
            check(docs, {"compound": {"should": should, "score": score}}, T.text("dog"))
    check(docs, dismax_compound(0.5, should=[words("fox dog")], minimumShouldMatch=1),
          T.text("fox dog"))


def test_dismax_over_function_scored_and_compound_clauses(docs):
    fox, dog, river, cat = (T.text(w) for w in ["fox", "dog", "river", "cat"])
    should = [scored(words("fox"), {"constant": 3}), words("dog"),
              compound(must=[words("river")], should=[words("cat")])]
    third = {i: s + cat.get(i, 0) for i, s in river.items()}
    check(docs, dismax_compound(0.3, should=should),
          dismax([{i: 3.0 for i in fox}, dog, third], 0.3))
    # A function on a compound around a dismax one reads the dismax score as its relevance.
    inner = dismax_compound(0.3)
    want = dismax([fox, dog, river], 0.3)
    check(docs, scored(compound(must=[inner]), {"multiply": [REL, path("n", undefined=1)]}),
          functioned(want, lambda d, rel: rel * number_at(d, "n", 1.0)))


@pytest.mark.parametrize("index", BOTH)
def test_dismax_makes_its_should_clauses_one_clause_for_minimum_should_match(docs, index):
    clause_scores = [T.text(w) for w in CLAUSES]
    want = dismax(clause_scores, 0.3)
    for minimum in [0, 1]:
        check(docs, dismax_compound(0.3, minimumShouldMatch=minimum), want, index=index)
    # Documents 2, 3, 4, 5 and 7 match two of the clauses, yet the one dismax clause is one.
    assert found(docs, dismax_compound(0.3, minimumShouldMatch=2), index=index) == []
    assert found(docs, dismax_compound(0.3, minimumShouldMatch=3), index=index) == []
    assert search_meta(docs, "docs", dismax_compound(0.3, minimumShouldMatch=2), index=index,
                       count={"type": "total"}) == [{"count": {"total": 0}}]
    # Without dismax, minimumShouldMatch 2 counts the clauses.
    two = [i for i in want if sum(i in s for s in clause_scores) >= 2]
    assert sorted(two) == [2, 3, 4, 5, 7]
    assert sorted(ids(found(docs, compound(should=[words(w) for w in CLAUSES],
                                           minimumShouldMatch=2), index=index))) == two
    assert search_meta(docs, "docs", dismax_compound(0.3), index=index,
                       count={"type": "total"}) == [{"count": {"total": len(want)}}]


def test_malformed_dismax_answers_bad_value(docs):
    fox, dog = words("fox"), words("dog")
    dismax_score = {"dismax": {"tieBreakerScore": 0.5}}
    cases = [
        (compound(must=[fox], should=[dog], score=dismax_score), BAD_VALUE, "should"),
        (compound(must_not=[fox], should=[dog], score=dismax_score), BAD_VALUE, "should"),
        (compound(filter_=[fox], should=[dog], score=dismax_score), BAD_VALUE, "should"),
        (compound(filter_=[fox], score=dismax_score), BAD_VALUE, "should"),
        (compound(must=[fox], score=dismax_score), BAD_VALUE, "should"),
        (with_score(fox, dismax_score), BAD_VALUE, "dismax"),
        (with_score(equals("n", 4), dismax_score), BAD_VALUE, "dismax"),
        (dismax_compound(-0.1), BAD_VALUE, "tieBreakerScore"),
        (dismax_compound(1.5), BAD_VALUE, "tieBreakerScore"),
        (dismax_compound("0.5"), BAD_VALUE, "tieBreakerScore"),
        (dismax_compound(float("nan")), BAD_VALUE, "tieBreakerScore"),
        (compound(should=[fox, dog], score={"dismax": {"tieBreaker": 0.5}}), BAD_VALUE,
         "tieBreaker"),
        (compound(should=[fox, dog], score={"dismax": 0.5}), BAD_VALUE, "dismax"),
    ]
    assert_errors(cases, lambda operator: found(docs, operator))
    assert_errors([(compound(must=[dog], should=[operator]), code, named)
                   for operator, code, named in cases],
                  lambda operator: found(docs, operator))

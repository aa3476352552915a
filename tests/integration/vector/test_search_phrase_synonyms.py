"""The Atlas Search `phrase` operator with `synonyms: "<mapping name>"` against a real quarryd.

The query is expanded as `text` with synonyms expands it (test_search_synonyms' `Synonyms`: the
longest input at each position, whose alternatives are the original tokens and then each synonym,
an equivalent input being its own synonym) and quoted as Lucene's QueryBuilder quotes the synonym
graph, as mongot builds it; per query string and per path, the scores adding up:

- no synonym applies: the plain phrase;
- one word with synonyms: a SynonymQuery over its alternatives (term frequencies summed, a
  repeated alternative counting again, idf of the largest document frequency), plus twice the
  word's own term score;
- two or more stretches whose alternatives are all one token: a MultiPhraseQuery (at each place
  any of the stretch's alternatives; idf summed over every alternative, repeats included, terms
  no document holds adding nothing; an occurrence counted once per copy of its first term in the
  first place's list), plus twice the plain phrase;
- an alternative of several tokens: every path through the alternatives (a repeated alternative
  making a repeated path) as a phrase, or a term query when it is one token, summed, plus twice
  the plain phrase.

`slop` applies to each of those phrases; its tests assert which documents match and in which
order, not sloppy scores. Exact scores are BM25 (k1 = 1.2, b = 0.75) over test_full_text_search's
Field, computed by `phrase_with_synonyms` and, for a few, spelled out by hand.
"""
import itertools

import pytest

from test_full_text_search import (DYNAMIC, STRING, Field, add, assert_errors, create_ready,
                                   english, ids, phrase, search, static)
from test_search_synonyms import (BAD_VALUE, Synonyms, bm25, check, idf, query_tokens,
                                  sequence_scores, synonym_query)


# --- the expected scores -------------------------------------------------------------------------

def multi_phrase(field, stretches):
    """{_id: score} of Lucene's MultiPhraseQuery (slop 0) over one-token alternatives."""
    places = [[alt[0] for alt in alternatives] for alternatives in stretches]
    if any(not any(field.df(t) for t in place) for place in places):
        return {}
    idf_sum = sum(idf(field, t) for place in places for t in place if field.df(t))
    scores = {}
    for doc_id, values in field.values.items():
        freq = 0
        for value in values:
            for start in range(len(value) - len(places) + 1):
                if all(value[start + k] in places[k] for k in range(1, len(places))):
                    freq += places[0].count(value[start])
        if freq:
            scores[doc_id] = bm25(field, doc_id, freq, idf_sum)
    return scores


def phrase_with_synonyms(field, synonyms, query):
    """{_id: score} of the phrase operator with synonyms and no slop."""
    if isinstance(query, list):
        return add(*(phrase_with_synonyms(field, synonyms, q) for q in query))
    plain = field.phrase(query)
    stretches = synonyms.stretches(query_tokens(field, query))
    if all(len(alternatives) == 1 for alternatives in stretches):
        return plain
    twice_plain = {d: 2 * s for d, s in plain.items()}
    if all(len(alt) == 1 for alternatives in stretches for alt in alternatives):
        if len(stretches) == 1:
            return add(synonym_query(field, stretches[0]), twice_plain)
        return add(multi_phrase(field, stretches), twice_plain)
    paths = [sum(path, ()) for path in itertools.product(*stretches)]
    return add(*(sequence_scores(field, path) for path in paths), twice_plain)


def indexed(db, docs, mappings, definition=DYNAMIC, analyzer="lucene.standard"):
    """Insert `docs` into docs and each mapping's synonym documents into a collection named as
    the mapping (none for an empty list), then index docs with those mappings."""
    db.docs.insert_many([dict(d) for d in docs])
    synonyms = []
    for name, synonym_docs in mappings.items():
        if synonym_docs:
            db[name].insert_many([dict(d) for d in synonym_docs])
        synonyms.append({"name": name, "analyzer": analyzer, "source": {"collection": name}})
    create_ready(db, "docs", {**definition, "synonyms": synonyms})
    return db


def syn_phrase(query, mapping, path="t", **options):
    return phrase(query, path, synonyms=mapping, **options)


SPEED = [{"_id": "speed", "mappingType": "equivalent", "synonyms": ["fast", "quick"]}]


# --- single-token synonyms in a phrase -----------------------------------------------------------

ADJACENT_DOCS = [
    {"_id": 1, "t": "a fast car"},
    {"_id": 2, "t": "a quick car"},
    {"_id": 3, "t": "car fast"},
    {"_id": 4, "t": "fast red car"},
    {"_id": 5, "t": "quick red car"},
    {"_id": 6, "t": "fast and quick"},
    {"_id": 7, "t": "a car"},
    {"_id": 8, "t": "speedy car"},
]


def test_a_synonym_may_stand_for_a_word_of_the_phrase_in_its_place(db):
    indexed(db, ADJACENT_DOCS, {"speed": SPEED})
    field, mapping = Field(ADJACENT_DOCS, "t"), Synonyms(SPEED)
    # Each word in its place: "car fast" and "fast red car" are no "fast car".
    for query, matched in [("fast car", [1, 2]), ("quick car", [1, 2]), ("Quick, CAR!", [1, 2]),
                           ("car fast", [3]), ("car quick", [3]), ("fast red car", [4, 5]),
                           ("speedy car", [8]), ("red fast", [])]:
        got = search(db, "docs", syn_phrase(query, "speed"))
        assert sorted(ids(got)) == matched, (query, got)
        check(db, syn_phrase(query, "speed"), phrase_with_synonyms(field, mapping, query),
              docs=ADJACENT_DOCS)
    # The original wording outranks its synonym's.
    assert ids(search(db, "docs", syn_phrase("fast car", "speed"))) == [1, 2]
    assert ids(search(db, "docs", syn_phrase("quick car", "speed"))) == [2, 1]
    # Without synonyms, the phrase finds only itself.
    assert ids(search(db, "docs", phrase("fast car", "t"))) == [1]


# --- exact scores --------------------------------------------------------------------------------

SCORE_DOCS = [
    {"_id": 1, "t": "fast car"},
    {"_id": 2, "t": "quick car"},
    {"_id": 3, "t": "a fast car and a quick car"},
    {"_id": 4, "t": "quick quick car"},
    {"_id": 5, "t": "a fast boat"},
    {"_id": 6, "t": "car car"},
    {"_id": 7, "t": "red car"},
]
# No document says automobile.
SCORE_SYNONYMS = SPEED + [{"_id": "cars", "mappingType": "equivalent",
                           "synonyms": ["car", "automobile"]}]


def test_a_multi_phrase_sums_idf_over_every_alternative_and_counts_first_place_copies(db):
    indexed(db, SCORE_DOCS, {"words": SCORE_SYNONYMS})
    t, mapping = Field(SCORE_DOCS, "t"), Synonyms(SCORE_SYNONYMS)
    assert mapping.stretches(["fast", "car"]) == [[("fast",), ("fast",), ("quick",)],
                                                 [("car",), ("car",), ("automobile",)]]
    assert [t.df(w) for w in ["fast", "quick", "car", "automobile"]] == [3, 3, 6, 0]
    # fast, fast, quick, car, car: automobile adds nothing.
    multi_idf = 2 * idf(t, "fast") + idf(t, "quick") + 2 * idf(t, "car")
    plain_idf = idf(t, "fast") + idf(t, "car")
    # "fast car" counts twice (fast is twice in the first place), "quick car" once; the car
    # repeated in the second place does not count again.
    want = {1: multi_idf * t.tf(1, 2) + 2 * plain_idf * t.tf(1, 1),
            2: multi_idf * t.tf(2, 1),
            3: multi_idf * t.tf(3, 3) + 2 * plain_idf * t.tf(3, 1),
            4: multi_idf * t.tf(4, 1)}
    assert phrase_with_synonyms(t, mapping, "fast car") == pytest.approx(want, rel=1e-12)
    check(db, syn_phrase("fast car", "words"), want, docs=SCORE_DOCS)
    # From quick: quick, fast, quick in the first place, so "quick car" counts twice.
    want = {1: multi_idf * t.tf(1, 1),
            2: multi_idf * t.tf(2, 2) + 2 * (idf(t, "quick") + idf(t, "car")) * t.tf(2, 1),
            3: multi_idf * t.tf(3, 3) + 2 * (idf(t, "quick") + idf(t, "car")) * t.tf(3, 1),
            4: multi_idf * t.tf(4, 2) + 2 * (idf(t, "quick") + idf(t, "car")) * t.tf(4, 1)}
    assert phrase_with_synonyms(t, mapping, "quick car") == pytest.approx(want, rel=1e-12)
    check(db, syn_phrase("quick car", "words"), want, docs=SCORE_DOCS)
    # Only the second word has synonyms (automobile, car, automobile: automobile, twice, adds
    # nothing), and the original phrase is in no document: red's and car's idf, "red car" once.
    want = {7: (idf(t, "red") + idf(t, "car")) * t.tf(7, 1)}
    assert phrase_with_synonyms(t, mapping, "red automobile") == pytest.approx(want, rel=1e-12)
    check(db, syn_phrase("red automobile", "words"), want, docs=SCORE_DOCS)
    # A place none of whose terms any document holds matches nothing.
    check(db, syn_phrase("fast zebra", "words"), {}, docs=SCORE_DOCS)


def test_one_word_is_a_synonym_query_plus_twice_its_own_term_score(db):
    indexed(db, SCORE_DOCS, {"words": SCORE_SYNONYMS})
    t, mapping = Field(SCORE_DOCS, "t"), Synonyms(SCORE_SYNONYMS)
    # fast -> fast, fast, quick: tf 2 per fast and 1 per quick, idf of df 3 (both have 3).
    pseudo = t.idf_of(3)
    own = idf(t, "fast")
    want = {1: pseudo * t.tf(1, 2) + 2 * own * t.tf(1, 1),
            2: pseudo * t.tf(2, 1),
            3: pseudo * t.tf(3, 3) + 2 * own * t.tf(3, 1),
            4: pseudo * t.tf(4, 2),
            5: pseudo * t.tf(5, 2) + 2 * own * t.tf(5, 1)}
    assert phrase_with_synonyms(t, mapping, "fast") == pytest.approx(want, rel=1e-12)
    check(db, syn_phrase("fast", "words"), want, docs=SCORE_DOCS)
    check(db, syn_phrase("Quick", "words"), phrase_with_synonyms(t, mapping, "quick"),
          docs=SCORE_DOCS)
    # automobile -> automobile, car, automobile: car's counts with car's idf (the largest df),
    # and no term score of its own (no document says automobile).
    want = {d: t.idf_of(6) * t.tf(d, n)
            for d, n in [(1, 1), (2, 1), (3, 2), (4, 1), (6, 2), (7, 1)]}
    assert phrase_with_synonyms(t, mapping, "automobile") == pytest.approx(want, rel=1e-12)
    check(db, syn_phrase("automobile", "words"), want, docs=SCORE_DOCS)
    # A word without synonyms is its plain term score.
    check(db, syn_phrase("boat", "words"), t.phrase("boat"), docs=SCORE_DOCS)


# --- multi-word synonyms -------------------------------------------------------------------------

MIND = [{"_id": "mind", "mappingType": "equivalent", "synonyms": ["fast", "with speed in mind"]}]
MIND_DOCS = [
    {"_id": 1, "t": "built fast"},
    {"_id": 2, "t": "built with speed in mind"},
    {"_id": 3, "t": "fast built"},
    {"_id": 4, "t": "built with speed"},
    {"_id": 5, "t": "built with care in mind"},
    {"_id": 6, "t": "built fast and built with speed in mind"},
    {"_id": 7, "t": "speed in mind"},
]


def test_a_multi_word_synonym_makes_a_phrase_of_each_path(db):
    indexed(db, MIND_DOCS, {"mind": MIND})
    t, mapping = Field(MIND_DOCS, "t"), Synonyms(MIND)
    assert mapping.stretches(["built", "fast"]) == [
        [("built",)], [("fast",), ("fast",), ("with", "speed", "in", "mind")]]
    built_fast = t.phrase("built fast")
    built_mind = t.phrase("built with speed in mind")
    # Paths: "built fast" twice and "built with speed in mind"; and twice "built fast".
    want = add(built_fast, built_fast, built_mind, built_fast, built_fast)
    assert sorted(want) == [1, 2, 6]
    assert phrase_with_synonyms(t, mapping, "built fast") == pytest.approx(want, rel=1e-12)
    check(db, syn_phrase("built fast", "mind"), want, docs=MIND_DOCS)
    got = ids(search(db, "docs", syn_phrase("built fast", "mind")))
    assert got.index(1) < got.index(2), got  # the original phrase outranks the synonym's
    # The other way: "built with speed in mind" twice, "built fast" once, twice the original.
    want = add(built_mind, built_mind, built_fast, built_mind, built_mind)
    query = "Built with speed in mind"
    assert phrase_with_synonyms(t, mapping, query) == pytest.approx(want, rel=1e-12)
    check(db, syn_phrase(query, "mind"), want, docs=MIND_DOCS)
    got = ids(search(db, "docs", syn_phrase(query, "mind")))
    assert sorted(got) == [1, 2, 6] and got.index(2) < got.index(1), got
    # A multi-word synonym alone: its phrase, fast's term query (twice), twice the phrase.
    check(db, syn_phrase("with speed in mind", "mind"),
          phrase_with_synonyms(t, mapping, "with speed in mind"), docs=MIND_DOCS)
    assert sorted(phrase_with_synonyms(t, mapping, "with speed in mind")) == [1, 2, 3, 6]
    # Part of the input is no input.
    check(db, syn_phrase("speed in mind", "mind"), t.phrase("speed in mind"), docs=MIND_DOCS)
    assert sorted(t.phrase("speed in mind")) == [2, 6, 7]


# --- explicit mappings ---------------------------------------------------------------------------

EXPLICIT = [
    {"_id": "beer", "mappingType": "explicit", "input": ["beer"], "synonyms": ["brew", "pint"]},
    {"_id": "car", "mappingType": "explicit", "input": ["motor vehicle"], "synonyms": ["car"]},
]
EXPLICIT_DOCS = [
    {"_id": 1, "t": "cold beer"},
    {"_id": 2, "t": "cold brew"},
    {"_id": 3, "t": "a cold pint"},
    {"_id": 4, "t": "beer cold"},
    {"_id": 5, "t": "an old motor vehicle"},
    {"_id": 6, "t": "an old car"},
    {"_id": 7, "t": "old vehicle motor"},
    {"_id": 8, "t": "cold brew and cold beer"},
]


def test_an_explicit_mapping_works_one_way(db):
    indexed(db, EXPLICIT_DOCS, {"drinks": EXPLICIT})
    t, mapping = Field(EXPLICIT_DOCS, "t"), Synonyms(EXPLICIT)
    # beer -> beer, brew, pint (beer once).
    idf_sum = idf(t, "cold") + idf(t, "beer") + idf(t, "brew") + idf(t, "pint")
    plain_idf = idf(t, "cold") + idf(t, "beer")
    want = {1: idf_sum * t.tf(1, 1) + 2 * plain_idf * t.tf(1, 1),
            2: idf_sum * t.tf(2, 1),
            3: idf_sum * t.tf(3, 1),
            8: idf_sum * t.tf(8, 2) + 2 * plain_idf * t.tf(8, 1)}
    assert phrase_with_synonyms(t, mapping, "cold beer") == pytest.approx(want, rel=1e-12)
    check(db, syn_phrase("cold beer", "drinks"), want, docs=EXPLICIT_DOCS)
    # brew and pint stand for nothing: plain phrases.
    for query, matched in [("cold brew", [2, 8]), ("cold pint", [3]), ("brew", [2, 8])]:
        check(db, syn_phrase(query, "drinks"), t.phrase(query), docs=EXPLICIT_DOCS)
        assert sorted(t.phrase(query)) == matched
    # A multi-word input: "old motor vehicle" and "old car"; car is no input.
    want = add(t.phrase("old motor vehicle"), t.phrase("old car"),
               {d: 2 * s for d, s in t.phrase("old motor vehicle").items()})
    assert sorted(want) == [5, 6]
    assert phrase_with_synonyms(t, mapping, "old motor vehicle") == \
        pytest.approx(want, rel=1e-12)
    check(db, syn_phrase("old motor vehicle", "drinks"), want, docs=EXPLICIT_DOCS)
    assert ids(search(db, "docs", syn_phrase("old motor vehicle", "drinks"))) == [5, 6]
    check(db, syn_phrase("old car", "drinks"), t.phrase("old car"), docs=EXPLICIT_DOCS)
    assert sorted(t.phrase("old car")) == [6]
    # The words of the input apart are no input.
    check(db, syn_phrase("vehicle motor", "drinks"), t.phrase("vehicle motor"),
          docs=EXPLICIT_DOCS)
    assert sorted(t.phrase("vehicle motor")) == [7]


def test_a_mapping_without_documents_leaves_a_plain_phrase(db):
    indexed(db, ADJACENT_DOCS, {"speed": []})
    t = Field(ADJACENT_DOCS, "t")
    for query in ["fast car", "quick car", "fast", "car fast"]:
        check(db, syn_phrase(query, "speed"), t.phrase(query), docs=ADJACENT_DOCS)
    assert sorted(t.phrase("fast car")) == [1]
    # The source collection is read at each search.
    db.speed.insert_many([dict(d) for d in SPEED])
    check(db, syn_phrase("fast car", "speed"),
          phrase_with_synonyms(t, Synonyms(SPEED), "fast car"), docs=ADJACENT_DOCS)
    assert sorted(ids(search(db, "docs", syn_phrase("fast car", "speed")))) == [1, 2]


def test_several_queries_and_paths_add_up(db):
    docs = [{"_id": 1, "t": "a fast car", "u": "quick car"},
            {"_id": 2, "t": "quick car", "u": "cold brew"},
            {"_id": 3, "t": "cold beer", "u": "nothing here"},
            {"_id": 4, "t": "car fast", "u": "fast car"}]
    mapping_docs = SPEED + EXPLICIT[:1]
    indexed(db, docs, {"words": mapping_docs})
    mapping = Synonyms(mapping_docs)
    t, u = Field(docs, "t"), Field(docs, "u")
    check(db, syn_phrase(["fast car", "cold beer"], "words", ["t", "u"]),
          add(phrase_with_synonyms(t, mapping, ["fast car", "cold beer"]),
              phrase_with_synonyms(u, mapping, ["fast car", "cold beer"])), docs=docs)
    assert sorted(ids(search(db, "docs", syn_phrase(["fast car", "cold beer"], "words",
                                                    ["t", "u"])))) == [1, 2, 3, 4]


# --- errors --------------------------------------------------------------------------------------

def test_the_paths_search_analyzer_must_be_the_mappings_and_the_name_known(db):
    docs = [{"_id": 1, "t": "a fast car", "e": "a fast car", "s": "a fast car"}]
    fields = static(t=STRING, e={"type": "string", "analyzer": "lucene.english"},
                    s={"type": "string", "searchAnalyzer": "lucene.english"},
                    i={"type": "string", "analyzer": "lucene.english",
                       "searchAnalyzer": "lucene.standard"})
    indexed(db, docs + [{"_id": 2, "i": "a quick car"}], {"speed": SPEED}, definition=fields)
    cases = [
        (syn_phrase("fast car", "nope"), BAD_VALUE, "unknown synonym mapping name"),
        (syn_phrase("fast car", "Speed"), BAD_VALUE, "unknown synonym mapping name"),
        (syn_phrase("fast car", "speed", "e"), BAD_VALUE, "is only allowed with"),
        (syn_phrase("fast car", "speed", "s"), BAD_VALUE, "is only allowed with"),
        (syn_phrase("fast car", "speed", ["t", "e"]), BAD_VALUE, "is only allowed with"),
        (syn_phrase(["fast car", "car"], "speed", ["e", "t"]), BAD_VALUE, "is only allowed with"),
        (syn_phrase("fast", "speed", "e", slop=2), BAD_VALUE, "is only allowed with"),
        (syn_phrase("fast car", "nope", "e"), BAD_VALUE, ""),
    ]
    assert_errors(cases, lambda operator: search(db, "docs", operator))
    # The search analyzer is what counts: i is indexed by lucene.english, queried as standard.
    assert ids(search(db, "docs", syn_phrase("fast car", "speed", "i"))) == [2]
    # The same phrases without synonyms are fine.
    e = Field(docs, "e", english)
    check(db, phrase("fast car", "e"), e.phrase("fast car"), docs=docs)


def test_an_index_wide_analyzer_must_also_be_the_mappings(db):
    docs = [{"_id": 1, "t": "a fast car"}]
    indexed(db, docs, {"speed": SPEED}, definition={"analyzer": "lucene.english", **DYNAMIC})
    assert_errors([(syn_phrase("fast car", "speed"), BAD_VALUE, "is only allowed with")],
                  lambda operator: search(db, "docs", operator))


# --- slop ----------------------------------------------------------------------------------------

SLOP_DOCS = [
    {"_id": 1, "t": "fast car"},
    {"_id": 2, "t": "fast red car"},
    {"_id": 3, "t": "quick red car"},
    {"_id": 4, "t": "quick big red car"},
    {"_id": 5, "t": "built very fast"},
    {"_id": 6, "t": "built with great speed in mind"},
    {"_id": 7, "t": "built fast"},
    {"_id": 8, "t": "built it with great care in mind"},
]


def test_slop_lets_a_synonym_phrase_match_with_words_between(db):
    indexed(db, SLOP_DOCS, {"speed": SPEED, "mind": MIND})

    def found(query, mapping, slop=None):
        options = {} if slop is None else {"slop": slop}
        return ids(search(db, "docs", syn_phrase(query, mapping, **options)))

    assert found("fast car", "speed") == [1]
    assert found("fast car", "speed", slop=0) == [1]
    # One word between; the original wording first, then its synonym; the same length.
    assert found("fast car", "speed", slop=1) == [1, 2, 3]
    assert found("quick car", "speed", slop=1)[-1] == 2 and \
        sorted(found("quick car", "speed", slop=1)) == [1, 2, 3]
    assert sorted(found("fast car", "speed", slop=2)) == [1, 2, 3, 4]
    assert found("fast car", "speed", slop=2)[0] == 1
    # The paths of a multi-word synonym are sloppy phrases too.
    assert found("built fast", "mind") == [7]
    assert sorted(found("built fast", "mind", slop=1)) == [5, 6, 7]
    assert found("built fast", "mind", slop=1)[0] == 7
    assert sorted(found("built with speed in mind", "mind", slop=1)) == [5, 6, 7]
    assert found("built with speed in mind", "mind", slop=1)[0] == 6
    assert 8 not in found("built fast", "mind", slop=3)  # care is no speed

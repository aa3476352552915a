"""Atlas Search synonym mappings against a real quarryd.

A definition's `synonyms` entries (`name`, `analyzer`, `source: {collection}`) name a collection of
the same database whose documents are `{mappingType: "equivalent", synonyms}` (each string stands
for every other) or `{mappingType: "explicit", input, synonyms}` (the synonyms stand for each
input, not the other way round); `text` with `synonyms: "<name>"` expands its query as Lucene's
SynonymGraphFilter does: at each position the longest token sequence that is an input, whose
alternatives are the original tokens and then each synonym (an equivalent input is its own
synonym, so its original comes twice).

Covered: definitions listed with their synonyms and each malformed one; equivalent and explicit
mappings, merged inputs, multi-word inputs and synonyms, greedy longest inputs; the default match
(no matchCriteria: the query as a phrase in which any stretch may be replaced by an alternative),
`matchCriteria` "any" and "all" (single-word alternatives as one Lucene SynonymQuery, multi-word
ones through a dismax with tie breaker 0.1, and beside it, as another should clause, twice the
query without synonyms, as mongot builds it); the source collection read at each search (inserts,
updates, deletes, a missing collection), malformed synonym documents and recovery, the errors of
the operator, which analyzer must match the mapping's, several queries and paths, `$searchMeta`,
`compound`, lucene.english's stemming and stop words, a custom analyzer named by the field and
the mapping, a definition updated to add synonyms, and synonyms after a restart.

Expected answers are computed here: `Synonyms` re-implements the mapping and the expansion of a
query, `phrase_match` and `criteria_match` the two kinds of scoring, every score BM25 (k1 = 1.2,
b = 0.75, Lucene's idf) over test_full_text_search's Field, compared with rel=1e-6; a few scores
are also spelled out by hand from document frequencies and counts. Equal scores come in
insertion order.
"""
import pymongo
import pytest
from bson import ObjectId

from quarry_server import CLIENT_OPTIONS
from test_full_text_search import (DYNAMIC, STRING, Field, add, assert_errors, create_index,
                                   create_ready, english, error_of, ids, phrase_frequency,
                                   ranked, search, search_meta, standard, static, text,
                                   wait_ready)
from test_vector_search import list_indexes

BAD_VALUE = 2
NOT_IMPLEMENTED = 238


# --- the synonym map and a query's expansion -------------------------------------------------

class Synonyms:
    """A synonym mapping: input token sequence -> [synonym token sequences], each once."""

    def __init__(self, documents, analyze=standard):
        self.outputs = {}
        for doc in documents:
            if doc["mappingType"] == "equivalent":
                inputs = outputs = [self.tokens(s, analyze) for s in doc["synonyms"]]
            else:
                inputs = [self.tokens(s, analyze) for s in doc["input"]]
                outputs = [self.tokens(s, analyze) for s in doc["synonyms"]]
            for source in inputs:
                known = self.outputs.setdefault(source, [])
                known += [o for o in outputs if o not in known]

    @staticmethod
    def tokens(value, analyze):
        terms = tuple(analyze(value))
        assert terms and None not in terms, value
        return terms

    def stretches(self, tokens):
        """[alternatives] for each stretch of `tokens`: the longest input at each position."""
        out, i = [], 0
        while i < len(tokens):
            for j in range(len(tokens), i, -1):
                source = tuple(tokens[i:j])
                if source in self.outputs:
                    out.append([source] + self.outputs[source])
                    i = j
                    break
            else:
                out.append([(tokens[i],)])
                i += 1
        return out


def query_tokens(field, query):
    return [t for t in field.analyze(query) if t is not None]


def occurrences(value, stretches):
    """The distinct (start, end) of the stretches in a row, each as one of its alternatives."""
    found = set()
    for start in range(len(value)):
        ends = {start}
        for alternatives in stretches:
            ends = {e + len(alt) for e in ends for alt in alternatives
                    if tuple(value[e:e + len(alt)]) == alt}
        found |= {(start, end) for end in ends}
    return found


def idf(field, term):
    return field.idf_of(field.df(term))


def bm25(field, doc_id, freq, idf_):
    return idf_ * field.tf(doc_id, freq)


def phrase_match(field, synonyms, query):
    """{_id: score} of text with synonyms and no matchCriteria."""
    queries = query if isinstance(query, list) else [query]
    if len(queries) > 1:
        return add(*(phrase_match(field, synonyms, q) for q in queries))
    if not synonyms.outputs:
        return field.text(query)
    stretches = synonyms.stretches(query_tokens(field, query))
    terms = {t for alternatives in stretches for alt in alternatives for t in alt}
    idf_sum = sum(idf(field, t) for t in terms if field.df(t))
    scores = {}
    for doc_id, values in field.values.items():
        freq = sum(len(occurrences(v, stretches)) for v in values)
        if freq:
            scores[doc_id] = bm25(field, doc_id, freq, idf_sum)
    return scores


def term_scores(field, term):
    return {d: bm25(field, d, held.count(term), idf(field, term))
            for d, held in field.terms.items() if term in held}


def sequence_scores(field, alt):
    """A term query, or an exact phrase scored with the sum of its terms' idf."""
    if len(alt) == 1:
        return term_scores(field, alt[0])
    idf_sum = sum(idf(field, t) for t in alt)
    scores = {}
    for doc_id, values in field.values.items():
        freq = sum(phrase_frequency(v, list(enumerate(alt)), 0) for v in values)
        if freq:
            scores[doc_id] = bm25(field, doc_id, freq, idf_sum)
    return scores


def synonym_query(field, alternatives):
    """Lucene's SynonymQuery: one pseudo-term, tf summed over the alternatives (repeats count
    again), idf of the largest document frequency."""
    terms = [alt[0] for alt in alternatives]
    idf_ = field.idf_of(max(field.df(t) for t in terms))
    scores = {}
    for doc_id, held in field.terms.items():
        tf_sum = sum(held.count(t) for t in terms)
        if tf_sum:
            scores[doc_id] = bm25(field, doc_id, tf_sum, idf_)
    return scores


def dismax(score_maps, tie=0.1):
    out = {}
    for doc_id in set().union(*score_maps):
        matched = [scores[doc_id] for scores in score_maps if doc_id in scores]
        out[doc_id] = max(matched) + tie * (sum(matched) - max(matched))
    return out


def joined(score_maps, match_all):
    """SHOULD (any: the sum over the clauses that match) or MUST (all must match)."""
    if match_all:
        return {d: sum(s[d] for s in score_maps) for d in set.intersection(
            *(set(s) for s in score_maps))}
    return add(*score_maps)


def stretch_scores(field, alternatives):
    if all(len(alt) == 1 for alt in alternatives):
        if len(alternatives) == 1:
            return term_scores(field, alternatives[0][0])
        return synonym_query(field, alternatives)
    return dismax([sequence_scores(field, alt) for alt in alternatives])


def criteria_match(field, synonyms, query, match_all=False):
    """{_id: score} of text with synonyms and matchCriteria "any" (or "all"): the query with
    synonyms, and (a should clause beside it) twice the query without them, unless the first is a
    single plain term."""
    queries = query if isinstance(query, list) else [query]
    if len(queries) > 1:
        return add(*(criteria_match(field, synonyms, q, match_all) for q in queries))
    tokens = query_tokens(field, query)
    stretches = synonyms.stretches(tokens)
    with_synonyms = joined([stretch_scores(field, alts) for alts in stretches], match_all)
    if len(tokens) == 1 and stretches == [[(tokens[0],)]]:
        return with_synonyms
    exact = joined([term_scores(field, t) for t in tokens], match_all)
    return add(with_synonyms, {d: 2 * s for d, s in exact.items()})


# Porter's stems of the corpus's words that test_full_text_search's english does not know.
MORE_STEMS = {"automobile": "automobil", "automobiles": "automobil", "vehicle": "vehicl",
              "vehicles": "vehicl"}


def english_stems(value):
    return [MORE_STEMS.get(t, t) for t in english(value)]


# --- the corpus ------------------------------------------------------------------------------

DOCS = [
    {"_id": 1, "t": "my car is red", "u": "automobile club"},
    {"_id": 2, "t": "a red automobile for sale"},
    {"_id": 3, "t": "a red motor vehicle on the road"},
    {"_id": 4, "t": "vehicle motor parts"},
    {"_id": 5, "t": "car car automobile"},
    {"_id": 6, "t": "the motor of a vehicle", "u": "automobile automobile"},
    {"_id": 7, "t": "a fast car and a quick automobile"},
    {"_id": 8, "t": "quick thinking", "u": "fast lane"},
    {"_id": 9, "t": "cold beer or a brew"},
    {"_id": 10, "t": "a pint please"},
    {"_id": 11, "t": "brew your own beer"},
    {"_id": 12, "t": "the road is long", "u": "quick road"},
]
T, U = Field(DOCS, "t"), Field(DOCS, "u")

SYNONYM_DOCS = [
    {"_id": "cars", "mappingType": "equivalent", "synonyms": ["car", "automobile", "motor vehicle"],
     "note": "fields other than these are ignored"},
    {"_id": "speed", "mappingType": "equivalent", "synonyms": ["fast", "quick"]},
    {"_id": "beer", "mappingType": "explicit", "input": ["beer"], "synonyms": ["brew", "pint"]},
]
WORDS = Synonyms(SYNONYM_DOCS)

MAPPING = {"name": "words", "analyzer": "lucene.standard", "source": {"collection": "synonyms"}}
DEFINITION = {**DYNAMIC, "synonyms": [MAPPING]}


@pytest.fixture
def cars(db):
    """DOCS under a dynamic index whose mapping "words" reads SYNONYM_DOCS."""
    db.docs.insert_many(DOCS)
    db.synonyms.insert_many(SYNONYM_DOCS)
    create_ready(db, "docs", DEFINITION)
    return db


def syn(query, path="t", **options):
    return text(query, path, synonyms="words", **options)


def check(db, operator, expected, docs=DOCS, coll="docs", index="default"):
    got = search(db, coll, operator, index=index)
    want = ranked(expected, docs)
    assert ids(got) == ids(want), operator
    assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-6), operator


def test_the_corpus_and_the_mapping_are_as_described():
    assert WORDS.outputs[("car",)] == [("car",), ("automobile",), ("motor", "vehicle")]
    assert WORDS.outputs[("motor", "vehicle")] == WORDS.outputs[("car",)]
    assert WORDS.outputs[("beer",)] == [("brew",), ("pint",)]
    assert ("brew",) not in WORDS.outputs and ("motor",) not in WORDS.outputs
    assert WORDS.stretches(["fast", "motor", "vehicle", "x"]) == [
        [("fast",), ("fast",), ("quick",)],
        [("motor", "vehicle"), ("car",), ("automobile",), ("motor", "vehicle")],
        [("x",)]]
    assert sorted(phrase_match(T, WORDS, "car")) == [1, 2, 3, 5, 7]
    assert sorted(T.text("car automobile motor vehicle")) == [1, 2, 3, 4, 5, 6, 7]


# --- index definitions -----------------------------------------------------------------------

def test_a_definition_with_synonyms_is_listed_and_serves_searches(db):
    db.docs.insert_many(DOCS)
    db.synonyms.insert_many(SYNONYM_DOCS)
    definition = {**static(t=STRING, u=STRING), "synonyms": [
        MAPPING, {"name": "other", "analyzer": "lucene.english",
                  "source": {"collection": "not_there_yet"}}]}
    created = create_index(db, "docs", definition, name="syn")
    listed = create_ready(db, "docs", definition, name="syn2")
    assert created["name"] == "syn"
    assert listed["latestDefinition"] == definition
    assert [i["latestDefinition"] for i in list_indexes(db, "docs", name="syn")] == [definition]
    check(db, syn("automobile"), phrase_match(T, WORDS, "automobile"), index="syn2")


def test_listed_indexes_show_each_mappings_status(db):
    db.docs.insert_many(DOCS)
    db.synonyms.insert_many(SYNONYM_DOCS)
    definition = {**static(t=STRING), "synonyms": [
        MAPPING, {"name": "another", "analyzer": "lucene.standard",
                  "source": {"collection": "broken"}}]}
    create_ready(db, "docs", definition, name="syn")
    create_ready(db, "docs", static(t=STRING), name="plain")
    (listed,) = list_indexes(db, "docs", name="syn")
    # Both ready ("broken" does not exist yet: no synonyms), listed in name order.
    assert listed["synonymMappingStatus"] == "READY"
    assert listed["synonymMappingStatusDetail"] == [{"status": "READY", "queryable": True}] * 2
    (plain,) = list_indexes(db, "docs", name="plain")
    assert "synonymMappingStatus" not in plain and "synonymMappingStatusDetail" not in plain
    db.broken.insert_one({"_id": "bad", "mappingType": "sideways", "synonyms": ["a"]})
    (listed,) = list_indexes(db, "docs", name="syn")
    assert listed["synonymMappingStatus"] == "FAILED"
    bad, good = listed["synonymMappingStatusDetail"]  # "another" sorts first
    assert bad["status"] == "FAILED" and bad["queryable"] is False
    assert '"bad"' in bad["message"] and "mappingType" in bad["message"], bad
    assert good == {"status": "READY", "queryable": True}
    # The index itself stays READY and queryable.
    assert listed["status"] == "READY" and listed["queryable"] is True


DEFINITION_ERRORS = [  # the synonyms value, and words the BadValue's message holds
    ([{"analyzer": "lucene.standard", "source": {"collection": "s"}}], "name"),
    ([{"name": "", "analyzer": "lucene.standard", "source": {"collection": "s"}}], "name"),
    ([{"name": "a", "source": {"collection": "s"}}], "analyzer"),
    ([{"name": "a", "analyzer": "lucene.standard"}], "source"),
    ([{"name": "a", "analyzer": "mine", "source": {"collection": "s"}}], "mine"),
    ([{"name": "a", "analyzer": "lucene.standard", "source": "s"}], "source"),
    ([{"name": "a", "analyzer": "lucene.standard", "source": {}}], "collection"),
    ([{"name": "a", "analyzer": "lucene.standard", "source": {"collection": "s", "db": "x"}}],
     "db"),
    ([MAPPING, {**MAPPING, "source": {"collection": "other"}}], "words"),
    (MAPPING, "synonyms"),
    ([{**MAPPING, "bogusOption": 1}], "bogusOption"),
]


def test_malformed_synonym_definitions_answer_bad_value(db):
    db.create_collection("docs")
    cases = [({**DYNAMIC, "synonyms": value}, BAD_VALUE, words)
             for value, words in DEFINITION_ERRORS]
    # As for a field, a Lucene analyzer Quarry lacks answers NotImplemented.
    lacking = [{"name": "a", "analyzer": "lucene.arabic", "source": {"collection": "s"}}]
    cases.append(({**DYNAMIC, "synonyms": lacking}, NOT_IMPLEMENTED, "lucene.arabic"))
    assert_errors(cases, lambda definition: create_index(db, "docs", definition))
    assert list_indexes(db, "docs") == []


# --- without matchCriteria: the query as a phrase --------------------------------------------

def test_each_word_of_an_equivalent_mapping_finds_every_other(cars):
    car = phrase_match(T, WORDS, "car")
    for query in ["car", "Automobile", "MOTOR VEHICLE", "motor  vehicle!"]:
        check(cars, syn(query), car)
    # Without synonyms, the same words find only themselves.
    check(cars, text("automobile", "t"), T.text("automobile"))
    check(cars, syn("fast"), phrase_match(T, WORDS, "fast"))
    assert sorted(phrase_match(T, WORDS, "quick")) == [7, 8]


def test_the_phrase_score_counts_occurrences_and_sums_idf_over_every_alternative(cars):
    # car, automobile, motor and vehicle: each in three documents of twelve.
    idf_sum = 4 * T.idf_of(3)
    assert [T.df(t) for t in ["car", "automobile", "motor", "vehicle"]] == [3, 3, 3, 3]
    # Document 5 says car twice and automobile once; 7 car once and automobile once; 3 "motor
    # vehicle" once; 4 and 6 hold motor and vehicle, but never together.
    want = {1: idf_sum * T.tf(1, 1), 2: idf_sum * T.tf(2, 1), 3: idf_sum * T.tf(3, 1),
            5: idf_sum * T.tf(5, 3), 7: idf_sum * T.tf(7, 2)}
    assert phrase_match(T, WORDS, "car") == pytest.approx(want, rel=1e-12)
    check(cars, syn("automobile"), want)
    # A term no document holds in the field adds nothing: only automobile is in u.
    want_u = {1: U.idf_of(2) * U.tf(1, 1), 6: U.idf_of(2) * U.tf(6, 2)}
    assert phrase_match(U, WORDS, "car") == pytest.approx(want_u, rel=1e-12)
    check(cars, syn("car", "u"), want_u)


def test_the_words_of_a_query_must_be_adjacent(cars):
    # "red car": document 1 says "car is red"; 2 "red automobile", 3 "red motor vehicle".
    assert sorted(phrase_match(T, WORDS, "red car")) == [2, 3]
    check(cars, syn("red car"), phrase_match(T, WORDS, "red car"))
    # Both words have synonyms: "fast car" and "quick automobile" are two occurrences in 7.
    fast_car = phrase_match(T, WORDS, "fast car")
    assert list(fast_car) == [7]
    check(cars, syn("quick automobile"), fast_car)
    check(cars, syn("automobile quick"), {})
    check(cars, syn("car red"), {})
    # "motor vehicle" is one input; its words apart (4, 6) or alone are no synonym.
    check(cars, syn("red motor vehicle"), phrase_match(T, WORDS, "red car"))
    check(cars, syn("vehicle"), T.text("vehicle"))
    check(cars, syn("vehicle motor"), {4: (idf(T, "vehicle") + idf(T, "motor")) * T.tf(4, 1)})


def test_an_explicit_mapping_works_one_way(cars):
    beer = phrase_match(T, WORDS, "beer")
    # Document 9 says beer and brew: two occurrences.
    assert beer == pytest.approx({
        d: (idf(T, "beer") + idf(T, "brew") + idf(T, "pint")) * T.tf(d, n)
        for d, n in [(9, 2), (10, 1), (11, 2)]}, rel=1e-12)
    check(cars, syn("beer"), beer)
    check(cars, syn("brew"), T.text("brew"))
    check(cars, syn("pint"), T.text("pint"))
    assert sorted(T.text("brew")) == [9, 11] and sorted(T.text("pint")) == [10]


def test_documents_naming_the_same_input_merge_their_synonyms(db):
    docs = [{"_id": 1, "t": "fast boat"}, {"_id": 2, "t": "quick boat"},
            {"_id": 3, "t": "speedy boat boat"}, {"_id": 4, "t": "fast and quick"},
            {"_id": 5, "t": "a beer"}, {"_id": 6, "t": "an ale"}, {"_id": 7, "t": "a stout"}]
    mapping = [{"_id": 1, "mappingType": "equivalent", "synonyms": ["fast", "quick"]},
               {"_id": 2, "mappingType": "equivalent", "synonyms": ["fast", "speedy"]},
               {"_id": 3, "mappingType": "explicit", "input": ["beer"], "synonyms": ["ale"]},
               {"_id": 4, "mappingType": "explicit", "input": ["beer"], "synonyms": ["stout"]}]
    db.docs.insert_many(docs)
    db.synonyms.insert_many(mapping)
    create_ready(db, "docs", DEFINITION)
    merged = Synonyms(mapping)
    t = Field(docs, "t")
    # fast: itself (named twice, kept once), quick, speedy; quick and speedy: fast and themselves.
    assert merged.stretches(["fast"]) == [[("fast",), ("fast",), ("quick",), ("speedy",)]]
    assert merged.stretches(["quick"]) == [[("quick",), ("fast",), ("quick",)]]
    for query in ["fast", "quick", "speedy", "beer", "fast boat", "quick boat"]:
        check(db, syn(query), phrase_match(t, merged, query), docs=docs)
        check(db, syn(query, matchCriteria="any"), criteria_match(t, merged, query), docs=docs)
    assert sorted(phrase_match(t, merged, "fast")) == [1, 2, 3, 4]
    assert sorted(phrase_match(t, merged, "quick")) == [1, 2, 4]
    assert sorted(phrase_match(t, merged, "beer")) == [5, 6, 7]
    # Document 4 holds fast once and quick once: fast, fast, quick and speedy make tf 3.
    fast = criteria_match(t, merged, "fast")
    tf3 = t.idf_of(max(t.df(w) for w in ["fast", "quick", "speedy"])) * t.tf(4, 3)
    assert fast[4] == pytest.approx(tf3 + 2 * idf(t, "fast") * t.tf(4, 1), rel=1e-12)


def test_the_longest_input_at_each_position_wins(cars):
    cars.synonyms.insert_one({"_id": "engine", "mappingType": "explicit", "input": ["motor"],
                              "synonyms": ["engine"]})
    cars.docs.insert_one({"_id": 13, "t": "engine vehicle trouble"})
    docs = DOCS + [{"_id": 13, "t": "engine vehicle trouble"}]
    t = Field(docs, "t")
    mapping = Synonyms(SYNONYM_DOCS + [{"mappingType": "explicit", "input": ["motor"],
                                        "synonyms": ["engine"]}])
    # motor alone may be engine; in "motor vehicle" it is part of the longer input.
    assert sorted(phrase_match(t, mapping, "motor")) == [3, 4, 6, 13]
    assert sorted(phrase_match(t, mapping, "motor vehicle")) == [1, 2, 3, 5, 7]
    assert sorted(phrase_match(t, mapping, "vehicle motor")) == [4]
    for query in ["motor", "motor vehicle", "vehicle motor", "motor parts", "red motor vehicle"]:
        check(cars, syn(query), phrase_match(t, mapping, query), docs=docs)
        check(cars, syn(query, matchCriteria="any"), criteria_match(t, mapping, query), docs=docs)
    # In 13 only vehicle counts, as a word of the query without synonyms: engine is no synonym.
    assert criteria_match(t, mapping, "motor vehicle")[13] == \
        pytest.approx(2 * term_scores(t, "vehicle")[13], rel=1e-12)


def test_an_explicit_multi_word_input_is_matched_before_its_words(cars):
    lager = {"_id": "lager", "mappingType": "explicit", "input": ["cold beer", "pale ale"],
             "synonyms": ["lager"]}
    cars.synonyms.insert_one(dict(lager))
    docs = DOCS + [{"_id": 13, "t": "a lager or a pale ale"}, {"_id": 14, "t": "pale beer"}]
    cars.docs.insert_many(docs[-2:])
    t = Field(docs, "t")
    mapping = Synonyms(SYNONYM_DOCS + [lager])
    # "cold beer" is one input: beer's own synonyms do not apply inside it.
    assert mapping.stretches(["cold", "beer"]) == [[("cold", "beer"), ("lager",)]]
    assert sorted(phrase_match(t, mapping, "cold beer")) == [9, 13]
    assert sorted(phrase_match(t, mapping, "pale beer")) == [14]
    assert sorted(phrase_match(t, mapping, "lager")) == [13]
    for query in ["cold beer", "pale ale", "pale beer", "lager", "beer"]:
        check(cars, syn(query), phrase_match(t, mapping, query), docs=docs)
        for criteria, match_all in [("any", False), ("all", True)]:
            check(cars, syn(query, matchCriteria=criteria),
                  criteria_match(t, mapping, query, match_all), docs=docs)


# --- matchCriteria any and all -----------------------------------------------------------------

def test_single_word_synonyms_score_as_one_term_plus_twice_the_exact_word(cars):
    # fast -> fast, fast, quick: one pseudo-term, idf of the larger document frequency (quick's
    # 2), tf the sum of the alternatives' counts (fast counted twice).
    assert (T.df("fast"), T.df("quick")) == (1, 2)
    pseudo = T.idf_of(2)
    want = {7: pseudo * T.tf(7, 3) + 2 * idf(T, "fast") * T.tf(7, 1), 8: pseudo * T.tf(8, 1)}
    assert criteria_match(T, WORDS, "fast") == pytest.approx(want, rel=1e-12)
    check(cars, syn("fast", matchCriteria="any"), want)
    check(cars, syn("fast", matchCriteria="all"), want)
    check(cars, syn("quick", matchCriteria="any"), criteria_match(T, WORDS, "quick"))
    # beer -> beer, brew, pint: beer's own count once.
    want = {9: T.idf_of(2) * T.tf(9, 2) + 2 * idf(T, "beer") * T.tf(9, 1),
            10: T.idf_of(2) * T.tf(10, 1),
            11: T.idf_of(2) * T.tf(11, 2) + 2 * idf(T, "beer") * T.tf(11, 1)}
    assert criteria_match(T, WORDS, "beer") == pytest.approx(want, rel=1e-12)
    check(cars, syn("beer", matchCriteria="any"), want)


def test_a_multi_word_synonym_makes_a_dismax_with_a_tie_breaker_of_a_tenth(cars):
    car, auto = term_scores(T, "car"), term_scores(T, "automobile")
    motor_vehicle = {3: (idf(T, "motor") + idf(T, "vehicle")) * T.tf(3, 1)}
    # car -> car, car, automobile, "motor vehicle": the best alternative, a tenth of the others
    # (car's duplicate among them), and twice car itself where it is.
    want = {1: 1.1 * car[1] + 2 * car[1],
            2: auto[2],
            3: motor_vehicle[3],
            5: max(car[5], auto[5]) + 0.1 * (2 * car[5] + auto[5] - max(car[5], auto[5]))
            + 2 * car[5],
            7: max(car[7], auto[7]) + 0.1 * (2 * car[7] + auto[7] - max(car[7], auto[7]))
            + 2 * car[7]}
    assert criteria_match(T, WORDS, "car") == pytest.approx(want, rel=1e-12)
    check(cars, syn("car", matchCriteria="any"), want)
    check(cars, syn("car", matchCriteria="all"), want)
    # "motor vehicle": the phrase counts twice among the alternatives; the exact words count
    # apart, each on its own: 4 and 6 hold them, though not as the phrase.
    exact = add(term_scores(T, "motor"), term_scores(T, "vehicle"))
    want = {1: car[1], 2: auto[2], 3: 1.1 * motor_vehicle[3] + 2 * exact[3],
            4: 2 * exact[4], 6: 2 * exact[6],
            5: max(car[5], auto[5]) + 0.1 * min(car[5], auto[5]),
            7: max(car[7], auto[7]) + 0.1 * min(car[7], auto[7])}
    assert criteria_match(T, WORDS, "motor vehicle") == pytest.approx(want, rel=1e-12)
    check(cars, syn("motor vehicle", matchCriteria="any"), want)
    check(cars, syn("automobile", matchCriteria="any"), criteria_match(T, WORDS, "automobile"))


def test_any_needs_one_stretch_and_all_needs_every_stretch(cars):
    for query in ["red car", "fast car", "quick automobile", "red motor vehicle", "cold beer",
                  "car beer road", "quick beer"]:
        for criteria, match_all in [("any", False), ("all", True)]:
            check(cars, syn(query, matchCriteria=criteria),
                  criteria_match(T, WORDS, query, match_all))
    assert sorted(criteria_match(T, WORDS, "red car", match_all=True)) == [1, 2, 3]
    assert sorted(criteria_match(T, WORDS, "red car")) == [1, 2, 3, 5, 7]
    # With all, the exact words count only where both are: red and car in 1, not in 2.
    red_car = criteria_match(T, WORDS, "red car", match_all=True)
    car_dismax = stretch_scores(T, WORDS.stretches(["car"])[0])
    assert red_car[2] == pytest.approx(term_scores(T, "red")[2] + car_dismax[2], rel=1e-12)
    assert red_car[1] == pytest.approx(3 * term_scores(T, "red")[1] + car_dismax[1]
                                       + 2 * term_scores(T, "car")[1], rel=1e-12)
    assert list(criteria_match(T, WORDS, "fast car", match_all=True)) == [7]
    assert criteria_match(T, WORDS, "quick beer", match_all=True) == {}


def test_a_query_without_synonyms_scores_three_times_plain_text_and_one_word_once(cars):
    for query in ["red road", "the road", "vehicle parts"]:
        for criteria, match_all in [("any", False), ("all", True)]:
            plain = T.text(query, match_all=match_all)
            assert plain, query
            check(cars, syn(query, matchCriteria=criteria), {d: 3 * s for d, s in plain.items()})
    for query in ["road", "Vehicle", "motor", "brew"]:
        check(cars, syn(query, matchCriteria="any"), T.text(query))
        check(cars, syn(query, matchCriteria="all"), T.text(query))


# --- the source collection ---------------------------------------------------------------------

def test_changes_to_the_source_collection_count_from_the_next_search(cars):
    check(cars, syn("beer"), phrase_match(T, WORDS, "beer"))
    cars.synonyms.delete_one({"_id": "beer"})
    rest = Synonyms(SYNONYM_DOCS[:2])
    check(cars, syn("beer"), phrase_match(T, rest, "beer"))
    assert sorted(phrase_match(T, rest, "beer")) == [9, 11]
    more = {"_id": "ale", "mappingType": "explicit", "input": ["beer"],
            "synonyms": ["pint", "long"]}
    cars.synonyms.insert_one(dict(more))
    mapping = Synonyms(SYNONYM_DOCS[:2] + [more])
    assert sorted(phrase_match(T, mapping, "beer")) == [9, 10, 11, 12]
    check(cars, syn("beer"), phrase_match(T, mapping, "beer"))
    check(cars, syn("beer", matchCriteria="any"), criteria_match(T, mapping, "beer"))
    cars.synonyms.update_one({"_id": "speed"}, {"$set": {"synonyms": ["fast", "long"]}})
    mapping = Synonyms([SYNONYM_DOCS[0], {"mappingType": "equivalent", "synonyms":
                                          ["fast", "long"]}, more])
    assert sorted(phrase_match(T, mapping, "fast")) == [7, 12]
    check(cars, syn("fast"), phrase_match(T, mapping, "fast"))
    check(cars, syn("quick"), T.text("quick"))


def test_a_missing_or_empty_source_collection_is_an_empty_mapping(db):
    db.docs.insert_many(DOCS)
    create_ready(db, "docs", DEFINITION)
    none = Synonyms([])
    # The query is a plain text search: any of its words.
    for query in ["car", "red car", "car road beer"]:
        check(db, syn(query), T.text(query))
        check(db, syn(query, matchCriteria="any"), criteria_match(T, none, query))
        check(db, syn(query, matchCriteria="all"), criteria_match(T, none, query, True))
    assert criteria_match(T, none, "red car") == {d: 3 * s for d, s in T.text("red car").items()}
    check(db, syn("?!"), {})
    db.create_collection("synonyms")
    check(db, syn("red car"), T.text("red car"))
    db.synonyms.insert_one({"_id": 1, "mappingType": "equivalent", "synonyms": ["red", "long"]})
    mapping = Synonyms([{"mappingType": "equivalent", "synonyms": ["red", "long"]}])
    check(db, syn("red car"), phrase_match(T, mapping, "red car"))
    assert sorted(phrase_match(T, mapping, "red car")) == []
    check(db, syn("red"), phrase_match(T, mapping, "red"))


INVALID_SYNONYM_DOCS = [
    {"_id": "no-type", "synonyms": ["car", "auto"]},
    {"_id": "capitalized", "mappingType": "Equivalent", "synonyms": ["car", "auto"]},
    {"_id": "unknown-type", "mappingType": "implicit", "synonyms": ["car", "auto"]},
    {"_id": "number-type", "mappingType": 1, "synonyms": ["car", "auto"]},
    {"_id": "no-synonyms", "mappingType": "equivalent"},
    {"_id": "empty", "mappingType": "equivalent", "synonyms": []},
    {"_id": "a-string", "mappingType": "equivalent", "synonyms": "car auto"},
    {"_id": "a-number", "mappingType": "equivalent", "synonyms": ["car", 5]},
    {"_id": "blank", "mappingType": "equivalent", "synonyms": ["car", " "]},
    {"_id": "empty-string", "mappingType": "equivalent", "synonyms": ["car", ""]},
    {"_id": "no-token", "mappingType": "equivalent", "synonyms": ["car", "?!"]},
    {"_id": "no-input", "mappingType": "explicit", "synonyms": ["brew"]},
    {"_id": "empty-input", "mappingType": "explicit", "input": [], "synonyms": ["brew"]},
    {"_id": "input-string", "mappingType": "explicit", "input": "beer", "synonyms": ["brew"]},
    {"_id": "explicit-no-synonyms", "mappingType": "explicit", "input": ["beer"]},
    {"_id": "explicit-empty", "mappingType": "explicit", "input": ["beer"], "synonyms": []},
    {"_id": ObjectId("65a1b2c3d4e5f60718293a4b"), "mappingType": "explicit",
     "input": ["beer", "?"], "synonyms": ["brew"]},
]


def test_a_malformed_synonym_document_fails_the_searches_naming_its_mapping(db):
    db.docs.insert_many(DOCS)
    db.synonyms.insert_many(SYNONYM_DOCS)
    db.other.insert_one({"mappingType": "equivalent", "synonyms": ["car", "beer"]})
    other = {"name": "other", "analyzer": "lucene.standard", "source": {"collection": "other"}}
    create_ready(db, "docs", {**DYNAMIC, "synonyms": [MAPPING, other]})
    wrong = []
    for bad in INVALID_SYNONYM_DOCS:
        db.synonyms.insert_one(dict(bad))
        words = ['synonym mapping "words" is invalid', str(bad["_id"])]
        for operator in [syn("car"), syn("beer", matchCriteria="any"),
                         syn(["road", "quick"], matchCriteria="all"),
                         {"compound": {"should": [text("car", "t"), syn("car")]}}]:
            code, message = error_of(lambda: search(db, "docs", operator))
            if code != BAD_VALUE or not all(w in message for w in words):
                wrong.append(f"{bad!r}, {operator}: want {BAD_VALUE} naming {words}, got {code}: "
                             f"{message}")
        code, message = error_of(lambda: search_meta(db, "docs", syn("car")))
        if code != BAD_VALUE:
            wrong.append(f"{bad!r}: $searchMeta got {code}: {message}")
        # Searches without that mapping do not read it.
        if ids(search(db, "docs", text("car", "t"))) != ids(ranked(T.text("car"), DOCS)):
            wrong.append(f"{bad!r}: a search without synonyms changed")
        with_other = Synonyms([{"mappingType": "equivalent", "synonyms": ["car", "beer"]}])
        got = search(db, "docs", text("beer", "t", synonyms="other"))
        if ids(got) != ids(ranked(phrase_match(T, with_other, "beer"), DOCS)):
            wrong.append(f"{bad!r}: the other mapping changed: {got}")
        db.synonyms.delete_one({"_id": bad["_id"]})
        got = search(db, "docs", syn("car"))
        if ids(got) != ids(ranked(phrase_match(T, WORDS, "car"), DOCS)):
            wrong.append(f"{bad!r}: after deleting it, {got}")
    assert not wrong, "\n".join(wrong)


def test_each_change_to_the_source_collection_counts_from_the_next_search(db):
    db.docs.insert_many(DOCS)
    create_ready(db, "docs", DEFINITION)
    plain = ids(ranked(phrase_match(T, Synonyms([]), "beer"), DOCS))

    def found(query="beer"):
        return ids(search(db, "docs", syn(query)))

    assert found() == plain  # no source collection yet
    db.synonyms.insert_one({"_id": "b", "mappingType": "explicit", "input": ["beer"],
                            "synonyms": ["pint"]})
    with_pint = ids(ranked(phrase_match(T, Synonyms(
        [{"mappingType": "explicit", "input": ["beer"], "synonyms": ["pint"]}]), "beer"), DOCS))
    assert found() == with_pint != plain
    assert found() == with_pint  # read once, then kept
    db.synonyms.update_one({"_id": "b"}, {"$set": {"synonyms": ["brew"]}})
    with_brew = ids(ranked(phrase_match(T, Synonyms(
        [{"mappingType": "explicit", "input": ["beer"], "synonyms": ["brew"]}]), "beer"), DOCS))
    assert found() == with_brew != with_pint
    db.synonyms.drop()
    assert found() == plain
    db.other.insert_one({"mappingType": "explicit", "input": ["beer"], "synonyms": ["pint"]})
    db.other.rename("synonyms")
    assert found() == with_pint
    db.synonyms.delete_many({})
    assert found() == plain


# --- the operator's errors ---------------------------------------------------------------------

def test_malformed_uses_of_synonyms_answer_errors(db):
    db.docs.insert_many([{**d, "e": d["t"], "title": d["t"]} for d in DOCS])
    db.synonyms.insert_many(SYNONYM_DOCS)
    create_ready(db, "docs", {**static(t=STRING, u=STRING,
                                       e={"type": "string", "analyzer": "lucene.english"},
                                       title={"type": "autocomplete"}),
                              "synonyms": [MAPPING]})
    cases = [
        (text("car", "t", synonyms="nope"), BAD_VALUE, "unknown synonym mapping name"),
        (text("car", "t", synonyms=""), BAD_VALUE, ""),
        (syn("car", fuzzy={}), BAD_VALUE, ""),
        (syn("car", fuzzy={"maxEdits": 1}, matchCriteria="any"), BAD_VALUE, ""),
        # e is analyzed by lucene.english, the mapping by lucene.standard.
        (syn("car", "e"), BAD_VALUE, "is only allowed with"),
        (syn("car", ["t", "e"], matchCriteria="any"), BAD_VALUE, "is only allowed with"),
        # A query that analyzes to no token, with a mapping that is not empty.
        (syn("?!"), BAD_VALUE, ""),
        ({"autocomplete": {"query": "car", "path": "title", "synonyms": "words"}}, BAD_VALUE, ""),
        ({"phrase": {"query": "red car", "path": "e", "synonyms": "words"}}, BAD_VALUE,
         "is only allowed with"),
    ]
    assert_errors(cases, lambda operator: search(db, "docs", operator))
    # The same fields without synonyms are fine.
    check(db, text("car", ["t", "e"]), add(T.text("car"), Field(DOCS, "t", english).text("car")))


def test_the_fields_search_analyzer_is_the_one_that_must_match_the_mappings(db):
    docs = [{"_id": d["_id"], "a": d["t"], "b": d["t"]} for d in DOCS]
    db.docs.insert_many(docs)
    db.synonyms.insert_many(SYNONYM_DOCS)
    fields = static(a={"type": "string", "analyzer": "lucene.english",
                       "searchAnalyzer": "lucene.standard"},
                    b={"type": "string", "searchAnalyzer": "lucene.english"})
    create_ready(db, "docs", {**fields, "synonyms": [MAPPING]})
    # a: indexed by lucene.english (automobil, vehicl), queried by lucene.standard, as the
    # mapping is: car and "motor vehicle" are no longer both in the index's terms.
    a = Field(docs, "a", english_stems)
    a.analyze = standard
    check(db, syn("car", "a"), phrase_match(a, WORDS, "car"), docs=docs)
    assert sorted(phrase_match(a, WORDS, "car")) == [1, 5, 7]
    assert phrase_match(a, WORDS, "car")[1] == \
        pytest.approx((a.idf_of(3) + a.idf_of(3)) * a.tf(1, 1), rel=1e-12)  # car and motor
    code, message = error_of(lambda: search(db, "docs", syn("car", "b")))
    assert code == BAD_VALUE and "is only allowed with" in message, message
    # An index-wide analyzer counts as the fields' own.
    create_ready(db, "docs", {"analyzer": "lucene.english", **DYNAMIC, "synonyms": [MAPPING]},
                 name="english")
    code, message = error_of(lambda: search(db, "docs", syn("car", "a"), index="english"))
    assert code == BAD_VALUE and "is only allowed with" in message, message
    english_mapping = {**MAPPING, "name": "en", "analyzer": "lucene.english"}
    create_ready(db, "docs", {"analyzer": "lucene.english", **DYNAMIC,
                              "synonyms": [english_mapping]}, name="english2")
    a = Field(docs, "a", english_stems)
    by_english = Synonyms(SYNONYM_DOCS, english_stems)
    assert sorted(phrase_match(a, by_english, "Automobiles")) == [1, 2, 3, 5, 7]
    for query in ["Automobiles", "motor vehicles"]:
        check(db, text(query, "a", synonyms="en"), phrase_match(a, by_english, query),
              docs=docs, index="english2")
        check(db, text(query, "a", synonyms="en", matchCriteria="any"),
              criteria_match(a, by_english, query), docs=docs, index="english2")


# --- several queries and paths, $searchMeta, compound ------------------------------------------

def test_several_queries_or_paths_sum_each_ones_score(cars):
    for criteria in [None, "any", "all"]:
        options = {"matchCriteria": criteria} if criteria else {}

        def expected(field, query):
            if criteria is None:
                return phrase_match(field, WORDS, query)
            return criteria_match(field, WORDS, query, criteria == "all")

        check(cars, syn(["car", "beer"], **options), expected(T, ["car", "beer"]))
        check(cars, syn("fast car", ["t", "u"], **options),
              add(expected(T, "fast car"), expected(U, "fast car")))
        check(cars, syn(["quick", "car"], ["u", "t"], **options),
              add(expected(T, "quick"), expected(U, "quick"), expected(T, "car"),
                  expected(U, "car")))
    assert 8 in phrase_match(U, WORDS, "quick") and 8 in phrase_match(T, WORDS, "quick")


def test_search_meta_counts_what_synonyms_match(cars):
    for operator, matched in [(syn("car"), phrase_match(T, WORDS, "car")),
                              (syn("red car"), phrase_match(T, WORDS, "red car")),
                              (syn("red car", matchCriteria="any"),
                               criteria_match(T, WORDS, "red car")),
                              (syn("red car", matchCriteria="all"),
                               criteria_match(T, WORDS, "red car", True)),
                              (syn("car", "u"), phrase_match(U, WORDS, "car"))]:
        assert search_meta(cars, "docs", operator, count={"type": "total"}) == \
            [{"count": {"total": len(matched)}}], operator
    assert len(phrase_match(T, WORDS, "car")) == 5


def test_facets_count_what_synonyms_match(db):
    docs = [{**doc, "n": doc["_id"] * 10} for doc in DOCS]
    db.docs.insert_many(docs)
    db.synonyms.insert_many(SYNONYM_DOCS)
    create_ready(db, "docs", {"mappings": {"dynamic": True, "fields": {
        "n": [{"type": "numberFacet"}, {"type": "number"}]}}, "synonyms": [MAPPING]})
    matched = phrase_match(T, WORDS, "car")
    below_50 = len([d for d in matched if d * 10 < 50])
    got = search_meta(db, "docs", {"facet": {
        "operator": syn("car"),
        "facets": {"n": {"type": "number", "path": "n", "boundaries": [0, 50, 1000]}}}})
    assert got[0]["count"] == {"lowerBound": len(matched)}
    assert [b["count"] for b in got[0]["facet"]["n"]["buckets"]] == \
        [below_50, len(matched) - below_50]


def test_compound_clauses_may_use_synonyms(cars):
    car, red = phrase_match(T, WORDS, "car"), T.text("red")
    fast = criteria_match(T, WORDS, "fast")
    check(cars, {"compound": {"must": [syn("car")], "mustNot": [text("red", "t")]}},
          {d: s for d, s in car.items() if d not in red})
    check(cars, {"compound": {"must": [syn("car")],
                              "should": [syn("fast", matchCriteria="any")]}},
          {d: s + fast.get(d, 0) for d, s in car.items()})
    check(cars, {"compound": {"filter": [syn("beer")], "should": [text("cold", "t")]}},
          {d: T.text("cold").get(d, 0) for d in phrase_match(T, WORDS, "beer")})
    assert sorted(car) == [1, 2, 3, 5, 7] and 7 in fast


# --- analyzers ---------------------------------------------------------------------------------

ENGLISH_DOCS = [
    {"_id": 1, "text": "The dogs were running in the park"},
    {"_id": 2, "text": "A dog runs"},
    {"_id": 3, "text": "Foxes jumped over lazy dogs"},
    {"_id": 4, "text": "We have been jumping"},
    {"_id": 5, "text": "a fox runs with speed in mind"},
]


def test_an_english_mapping_stems_its_synonyms_and_refuses_stop_words_inside_them(db):
    db.docs.insert_many(ENGLISH_DOCS)
    db.en.insert_one({"_id": "pets", "mappingType": "equivalent", "synonyms": ["Dogs", "foxes"]})
    create_ready(db, "docs", {**static(text={"type": "string", "analyzer": "lucene.english"}),
                              "synonyms": [{"name": "en", "analyzer": "lucene.english",
                                            "source": {"collection": "en"}}]})
    field = Field(ENGLISH_DOCS, "text", english)
    mapping = Synonyms([{"mappingType": "equivalent", "synonyms": ["Dogs", "foxes"]}], english)
    assert mapping.outputs[("dog",)] == [("dog",), ("fox",)]
    assert sorted(phrase_match(field, mapping, "dog runs")) == [2, 5]
    for query in ["dog", "FOXES", "dog runs", "foxes running"]:
        check(db, text(query, "text", synonyms="en"), phrase_match(field, mapping, query),
              docs=ENGLISH_DOCS)
        check(db, text(query, "text", synonyms="en", matchCriteria="any"),
              criteria_match(field, mapping, query), docs=ENGLISH_DOCS)
    # A query of stop words alone has no token to look for.
    code, _ = error_of(lambda: search(db, "docs", text("the and", "text", synonyms="en")))
    assert code == BAD_VALUE
    # "in" inside a multi-word synonym leaves a gap there: the mapping is invalid.
    db.en.insert_one({"_id": "gap", "mappingType": "equivalent",
                      "synonyms": ["fast", "with speed in mind"]})
    code, message = error_of(lambda: search(db, "docs", text("dog", "text", synonyms="en")))
    assert code == BAD_VALUE and 'synonym mapping "en" is invalid' in message, message
    assert "gap" in message
    db.en.delete_one({"_id": "gap"})
    check(db, text("dog", "text", synonyms="en"), phrase_match(field, mapping, "dog"),
          docs=ENGLISH_DOCS)


def whitespace_lowercase(value):
    return value.lower().split()


def test_a_custom_analyzer_may_analyze_the_field_and_the_mapping(db):
    docs = [{"_id": 1, "t": "send an E-mail today"}, {"_id": 2, "t": "email me"},
            {"_id": 3, "t": "e mail room"}, {"_id": 4, "t": "mail me a letter"},
            {"_id": 5, "t": "EMAIL or e-mail"}]
    db.docs.insert_many(docs)
    db.mail.insert_one({"_id": 1, "mappingType": "equivalent", "synonyms": ["e-mail", "Email"]})
    db.mail.insert_one({"_id": 2, "mappingType": "explicit", "input": ["letter"],
                        "synonyms": ["E-mail"]})
    analyzers = [{"name": "words", "tokenizer": {"type": "whitespace"},
                  "tokenFilters": [{"type": "lowercase"}]}]
    create_ready(db, "docs", {
        "analyzers": analyzers,
        **static(t={"type": "string", "analyzer": "words"}),
        "synonyms": [{"name": "mail", "analyzer": "words", "source": {"collection": "mail"}},
                     {"name": "std", "analyzer": "lucene.standard",
                      "source": {"collection": "mail"}}]})
    field = Field(docs, "t", whitespace_lowercase)
    mapping = Synonyms([{"mappingType": "equivalent", "synonyms": ["e-mail", "Email"]},
                        {"mappingType": "explicit", "input": ["letter"],
                         "synonyms": ["E-mail"]}], whitespace_lowercase)
    # e-mail is one word here, so "e mail" (3) is no e-mail.
    assert sorted(phrase_match(field, mapping, "email")) == [1, 2, 5]
    for query in ["email", "E-MAIL", "letter", "mail"]:
        check(db, text(query, "t", synonyms="mail"), phrase_match(field, mapping, query),
              docs=docs)
        check(db, text(query, "t", synonyms="mail", matchCriteria="any"),
              criteria_match(field, mapping, query), docs=docs)
    assert sorted(phrase_match(field, mapping, "letter")) == [1, 4, 5]
    # The standard mapping does not fit a field analyzed by "words".
    code, message = error_of(lambda: search(db, "docs", text("email", "t", synonyms="std")))
    assert code == BAD_VALUE and "is only allowed with" in message, message


# --- definitions updated, and after a restart ---------------------------------------------------

def test_an_index_updated_to_add_synonyms_serves_them(db):
    db.docs.insert_many(DOCS)
    db.synonyms.insert_many(SYNONYM_DOCS)
    create_ready(db, "docs", DYNAMIC)
    code, message = error_of(lambda: search(db, "docs", syn("car")))
    assert code == BAD_VALUE and "unknown synonym mapping name" in message, message
    db.command({"updateSearchIndex": "docs", "name": "default", "definition": DEFINITION})
    listed = wait_ready(db, "docs")
    assert listed["latestDefinition"] == DEFINITION
    check(db, syn("car"), phrase_match(T, WORDS, "car"))
    check(db, syn("beer", matchCriteria="any"), criteria_match(T, WORDS, "beer"))


def test_synonyms_answer_the_same_after_a_restart(own_server):
    queries = [(syn("car"), phrase_match(T, WORDS, "car")),
               (syn("fast car", matchCriteria="any"), criteria_match(T, WORDS, "fast car")),
               (syn("red car", matchCriteria="all"), criteria_match(T, WORDS, "red car", True))]
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as client:
        db = client.syn
        db.docs.insert_many(DOCS)
        db.synonyms.insert_many(SYNONYM_DOCS)
        create_ready(db, "docs", DEFINITION)
        for operator, expected in queries:
            check(db, operator, expected)
    own_server.restart()
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as client:
        db = client.syn
        assert wait_ready(db, "docs")["latestDefinition"] == DEFINITION
        for operator, expected in queries:
            check(db, operator, expected)
        db.synonyms.delete_one({"_id": "cars"})
        check(db, syn("car"), T.text("car"))

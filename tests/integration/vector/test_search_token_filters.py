"""Atlas Search token filters and query building against a real quarryd.

The custom-analyzer token filters keywordRepeat, removeDuplicates, limitTokenCount,
englishMinimalStemming, spanishPluralStemming and shingle, with the errors for what is malformed
or not implemented; and how the `text` and `phrase` operators build their queries from what the
analyzer makes of the query, as Lucene's QueryBuilder does: tokens stacked at one position are one
clause (a SynonymQuery: frequencies summed), matchCriteria "all" holds per query string and per
path, stacked tokens do not lengthen a field for BM25, and a shingle field's query is a graph
whose paths are the ways the shingles cover the query.

Which terms a field holds is read with `wildcard` (allowAnalyzedField) queries without wildcard
characters: they match one indexed term exactly, normalized (lowercased, folded) but never
stemmed.
Scores are compared with each other rather than computed, except where test_full_text_search's
Field computes plain BM25 (no stacked tokens).
"""
import pytest
from pymongo.errors import OperationFailure

from test_full_text_search import (Field, add, assert_results, create_index, create_ready, ids,
                                   phrase, ranked, search, static, text)

BAD_VALUE = 2
NOT_IMPLEMENTED = 238


def analyzer(name, tokenizer, *filters):
    return {"name": name, "tokenizer": {"type": tokenizer}, "tokenFilters": list(filters)}


LOWERCASE = {"type": "lowercase"}
ENGLISH_SNOWBALL = {"type": "snowballStemming", "stemmerName": "english"}


def index_docs(db, docs, analyzers, **fields):
    """Inserts `docs` into db.docs under a static index whose `fields` name `analyzers`."""
    db.docs.insert_many(docs)
    create_ready(db, "docs", {"analyzers": analyzers,
                              **static(**{f: {"type": "string", "analyzer": a}
                                          for f, a in fields.items()})})
    return db


def found(db, operator):
    """The sorted _ids that `operator` finds in db.docs."""
    return sorted(ids(search(db, "docs", operator)))


def held(db, term, path="t"):
    """The sorted _ids whose `path` holds exactly the term `term`."""
    return found(db, {"wildcard": {"query": term, "path": path, "allowAnalyzedField": True}})


def scores(db, operator):
    return dict(search(db, "docs", operator))


# --- keywordRepeat and removeDuplicates ------------------------------------------------------

def test_keyword_repeat_keeps_each_word_beside_its_stem(db):
    docs = [{"_id": 1, "t": "running"}, {"_id": 2, "t": "runs"}, {"_id": 3, "t": "walking"}]
    index_docs(db, docs, [analyzer("repeat", "standard", LOWERCASE, {"type": "keywordRepeat"},
                                   ENGLISH_SNOWBALL, {"type": "removeDuplicates"})], t="repeat")
    # The keyword copy escapes the stemmer; the other copy is stemmed.
    assert held(db, "running") == [1]
    assert held(db, "runs") == [2]
    assert held(db, "run") == [1, 2]
    assert held(db, "walking") == [3]
    assert held(db, "walk") == [3]
    # "running" asks for running or run at one position: both documents, and the one holding
    # both terms (frequency 2 against 1, same length) first.
    got = search(db, "docs", text("running", "t"))
    assert ids(got) == [1, 2]
    assert got[0][1] > got[1][1]
    assert ids(search(db, "docs", text("run", "t"))) == [1, 2]


def test_remove_duplicates_holds_an_unstemmed_word_once(db):
    docs = [{"_id": 1, "t": "cat", "u": "cat"}, {"_id": 2, "t": "cats", "u": "cats"}]
    index_docs(db, docs, [
        analyzer("dedup", "standard", LOWERCASE, {"type": "keywordRepeat"}, ENGLISH_SNOWBALL,
                 {"type": "removeDuplicates"}),
        analyzer("twice", "standard", LOWERCASE, {"type": "keywordRepeat"}, ENGLISH_SNOWBALL),
    ], t="dedup", u="twice")
    # With removeDuplicates "cat" holds cat once, as "cats" does: the same frequency and length.
    deduplicated = scores(db, text("cat", "t"))
    assert sorted(deduplicated) == [1, 2]
    assert deduplicated[1] == pytest.approx(deduplicated[2], rel=1e-9)
    # Without it "cat" holds cat twice at its one position, and outscores "cats".
    repeated = scores(db, text("cat", "u"))
    assert sorted(repeated) == [1, 2]
    assert repeated[1] > repeated[2]
    # "cats" asks for cats or cat at one position: the document holding both comes first.
    assert ids(search(db, "docs", text("cats", "t"))) == [2, 1]


# --- limitTokenCount -------------------------------------------------------------------------

def test_limit_token_count_indexes_and_queries_only_the_first_tokens(db):
    docs = [{"_id": 1, "t": "one two three four"}, {"_id": 2, "t": "one two"},
            {"_id": 3, "t": "three four"}]
    index_docs(db, docs, [analyzer("first2", "standard", LOWERCASE,
                                   {"type": "limitTokenCount", "maxTokenCount": 2})], t="first2")
    assert found(db, text("two", "t")) == [1, 2]
    assert found(db, text("three", "t")) == [3]
    assert found(db, text("four", "t")) == [3]
    assert held(db, "three") == [3]
    # The query keeps its first two words only: "three" asks for nothing here, so "all" is
    # satisfied by one and two.
    assert found(db, text("one two three", "t", matchCriteria="all")) == [1, 2]
    # ... and a third word after two others is not asked for at all.
    assert found(db, text("one two four", "t")) == [1, 2]


# --- the plural stemmers ---------------------------------------------------------------------

ENGLISH_PLURALS = ["ponies", "cats", "plays", "glass", "focus", "toes", "goes", "boxes"]


def test_english_minimal_stemming_takes_off_plural_s_only(db):
    docs = [{"_id": n, "t": w} for n, w in enumerate(ENGLISH_PLURALS, 1)]
    index_docs(db, docs, [analyzer("plural", "standard", LOWERCASE,
                                   {"type": "englishMinimalStemming"})], t="plural")
    stems = {"pony": [1], "cat": [2], "play": [3], "glass": [4], "focus": [5], "toes": [6],
             "goes": [7], "boxe": [8]}
    for term, want in stems.items():
        assert held(db, term) == want, term
    for plural in ["ponies", "cats", "plays", "boxes", "glas", "focu", "toe", "go", "box"]:
        assert held(db, plural) == [], plural
    # Queries are stemmed the same way.
    assert found(db, text("pony", "t")) == [1]
    assert found(db, text("PONIES", "t")) == [1]
    assert found(db, text("cat play", "t")) == [2, 3]
    assert found(db, text("toe", "t")) == []
    assert found(db, text("box", "t")) == []


SPANISH_PLURALS = ["casas", "leyes", "voces", "amores", "canciones", "lunes", "crisis"]


def test_spanish_plural_stemming_finds_singulars_and_folds_accented_vowels(db):
    docs = [{"_id": n, "t": w} for n, w in enumerate(SPANISH_PLURALS, 1)]
    index_docs(db, docs, [analyzer("plural", "standard", LOWERCASE,
                                   {"type": "spanishPluralStemming"})], t="plural")
    stems = {"casa": [1], "ley": [2], "voz": [3], "amor": [4], "cancion": [5], "lunes": [6],
             "crisis": [7]}
    for term, want in stems.items():
        assert held(db, term) == want, term
    for term in ["casas", "leyes", "voces", "amores", "canciones", "lune", "crisi"]:
        assert held(db, term) == [], term
    # The query's accented vowel is dropped too, so the singular finds the plural.
    assert found(db, text("canción", "t")) == [5]
    assert found(db, text("Canciones", "t")) == [5]
    assert found(db, text("ley voz", "t")) == [2, 3]
    assert found(db, text("luna", "t")) == []


# --- shingle ---------------------------------------------------------------------------------

SHINGLE_DOCS = [
    {"_id": 1, "t": "I love new york city"},
    {"_id": 2, "t": "new york"},
    {"_id": 3, "t": "york city hall"},
    {"_id": 4, "t": "new york or york city"},
    {"_id": 5, "t": "New York City"},
    {"_id": 6, "t": "york"},
]


@pytest.mark.parametrize("tokenizer", ["standard", "whitespace"])
def test_shingles_join_runs_of_words_and_leave_single_words_out(db, tokenizer):
    index_docs(db, SHINGLE_DOCS, [analyzer("shingles", tokenizer, LOWERCASE,
                                           {"type": "shingle", "minShingleSize": 2,
                                            "maxShingleSize": 3})], t="shingles")
    assert held(db, "new york") == [1, 2, 4, 5]
    assert held(db, "new york city") == [1, 5]
    assert held(db, "york city hall") == [3]
    assert held(db, "i love new") == [1]
    assert held(db, "i love new york") == []  # four words: longer than maxShingleSize
    assert held(db, "york") == [] and held(db, "city") == []
    # A one-word value holds no term at all.
    assert held(db, "*") == [1, 2, 3, 4, 5]
    # A one-word query makes no shingle, so it asks for nothing.
    assert found(db, text("york", "t")) == []
    assert found(db, phrase("york", "t")) == []
    assert found(db, text("new york", "t")) == [1, 2, 4, 5]


@pytest.mark.parametrize("tokenizer", ["standard", "whitespace"])
def test_a_shingle_query_is_a_graph_of_its_paths(db, tokenizer):
    index_docs(db, SHINGLE_DOCS, [analyzer("shingles", tokenizer, LOWERCASE,
                                           {"type": "shingle", "minShingleSize": 2,
                                            "maxShingleSize": 3})], t="shingles")
    # text: "new york" and "york city" both, or "new york city"; "new york" alone or
    # "york city hall" is neither.
    assert found(db, text("new york city", "t")) == [1, 4, 5]
    assert found(db, text("new york city", "t", matchCriteria="all")) == [1, 4, 5]
    # phrase: the same paths, their shingles at consecutive positions.
    assert found(db, phrase("new york city", "t")) == [1, 5]
    assert found(db, phrase("york city", "t")) == [1, 3, 4, 5]


def test_a_position_a_stop_word_left_is_an_underscore_in_shingles(db):
    docs = [{"_id": 1, "t": "the cat sat"}, {"_id": 2, "t": "a cat sat"},
            {"_id": 3, "t": "cat"}]
    index_docs(db, docs, [analyzer("pairs", "whitespace", LOWERCASE,
                                   {"type": "stopword", "tokens": ["the"]},
                                   {"type": "shingle", "minShingleSize": 2,
                                    "maxShingleSize": 2})], t="pairs")
    assert held(db, "_ cat") == [1]
    assert held(db, "cat sat") == [1, 2]
    assert held(db, "a cat") == [2]
    assert held(db, "the cat") == []
    assert held(db, "*") == [1, 2]
    # The query's stop word leaves the same hole.
    assert found(db, text("the cat", "t")) == [1]
    assert found(db, text("a cat", "t")) == [2]
    assert found(db, text("cat sat", "t")) == [1, 2]
    assert found(db, text("cat", "t")) == []


# --- wordDelimiterGraph ----------------------------------------------------------------------

DELIMITED_DOCS = [{"_id": 1, "t": "Wi-Fi router"}, {"_id": 2, "t": "wifi at home"},
                  {"_id": 3, "t": "the PowerShot SD500"}, {"_id": 4, "t": "a power shot"},
                  {"_id": 5, "t": "C++ and O'Neil's fi"}]


def test_word_delimiter_graph_splits_words_and_joins_them_again(db):
    index_docs(db, DELIMITED_DOCS, [analyzer(
        "parts", "whitespace",
        {"type": "wordDelimiterGraph",
         "delimiterOptions": {"concatenateWords": True, "preserveOriginal": True},
         "protectedWords": {"words": ["c++"]}},
        LOWERCASE)], t="parts")
    assert held(db, "wi") == [1]
    assert held(db, "fi") == [1, 5]
    assert held(db, "wifi") == [1, 2]   # joined again, and the plain word
    assert held(db, "wi-fi") == [1]     # preserveOriginal
    assert held(db, "power") == [3, 4]  # a case change splits
    assert held(db, "sd") == [3]
    assert held(db, "500") == [3]       # so does a digit after letters
    assert held(db, "c++") == [5]       # protected: whole (ignoring case)
    assert held(db, "c") == []
    assert held(db, "neil") == [5]      # the possessive goes
    assert held(db, "neils") == []
    # The query splits the same way: "Wi-Fi" is a graph of Wi-Fi, WiFi and Wi Fi.
    assert found(db, text("Wi-Fi", "t")) == [1, 2]
    assert found(db, text("Wi-Fi", "t", matchCriteria="all")) == [1, 2]
    assert found(db, phrase("Wi-Fi router", "t")) == [1]
    assert found(db, phrase("power shot", "t")) == [3, 4]
    assert found(db, phrase("PowerShot", "t")) == [3, 4]
    assert found(db, phrase("shot power", "t")) == []


def test_word_delimiter_graph_options_change_the_parts(db):
    index_docs(db, DELIMITED_DOCS, [analyzer(
        "whole", "whitespace",
        {"type": "wordDelimiterGraph",
         "delimiterOptions": {"splitOnCaseChange": False, "splitOnNumerics": False,
                              "generateWordParts": False, "concatenateAll": True}},
        LOWERCASE)], t="whole")
    assert held(db, "powershot") == [3]
    assert held(db, "power") == [4]
    assert held(db, "sd500") == [3]
    assert held(db, "wifi") == [1, 2]   # only the joined form: no word parts
    assert held(db, "wi") == []
    assert found(db, text("wi-fi", "t")) == [1, 2]


# --- malformed and unsupported filters -------------------------------------------------------

def shingle(**options):
    return {"type": "shingle", **options}


@pytest.mark.parametrize("token_filter,code,words", [
    ({"type": "kStemming"}, NOT_IMPLEMENTED, "kStemming"),
    ({"type": "stempel"}, NOT_IMPLEMENTED, "stempel"),
    ({"type": "daitchMokotoffSoundex"}, NOT_IMPLEMENTED, "daitchMokotoffSoundex"),
    ({"type": "wordDelimiterGraph", "delimiterOptions": {"bogus": True}}, BAD_VALUE, "bogus"),
    ({"type": "wordDelimiterGraph", "delimiterOptions": {"preserveOriginal": 1}}, BAD_VALUE,
     "preserveOriginal"),
    ({"type": "wordDelimiterGraph", "protectedWords": {"ignoreCase": False}}, BAD_VALUE,
     "words"),
    ({"type": "irishLowercase"}, BAD_VALUE, "irishLowercase"),
    ({"type": "englishMinimalStem"}, BAD_VALUE, "englishMinimalStem"),
    (shingle(minShingleSize=3, maxShingleSize=2), BAD_VALUE, "minShingleSize"),
    (shingle(minShingleSize=1, maxShingleSize=2), BAD_VALUE, "minShingleSize"),
    (shingle(minShingleSize=2, maxShingleSize=33), BAD_VALUE, "maxShingleSize"),
    (shingle(minShingleSize=2), BAD_VALUE, "maxShingleSize"),
    (shingle(maxShingleSize=3), BAD_VALUE, "minShingleSize"),
    ({"type": "limitTokenCount"}, BAD_VALUE, "maxTokenCount"),
    ({"type": "limitTokenCount", "maxTokenCount": 0}, BAD_VALUE, "maxTokenCount"),
])
def test_malformed_or_unsupported_token_filters_are_refused(db, token_filter, code, words):
    db.create_collection("docs")
    definition = {"analyzers": [analyzer("a", "standard", token_filter)],
                  **static(t={"type": "string", "analyzer": "a"})}
    with pytest.raises(OperationFailure) as failure:
        create_index(db, "docs", definition)
    assert failure.value.code == code
    assert words in str(failure.value)


# --- query building: stacked tokens are one clause ------------------------------------------

def test_ngrams_of_one_query_word_are_one_clause_under_match_all(db):
    docs = [{"_id": 1, "t": "abx"}, {"_id": 2, "t": "xyz"}, {"_id": 3, "t": "abc"},
            {"_id": 4, "t": "abx xyq"}]
    index_docs(db, docs, [analyzer("grams", "standard", LOWERCASE,
                                   {"type": "nGram", "minGram": 2, "maxGram": 3})], t="grams")
    # "abc" is ab, abc, bc at one position: one clause, which "ab" alone satisfies.
    assert found(db, text("abc", "t", matchCriteria="all")) == [1, 3, 4]
    # Two words are two clauses, each needing one of its grams.
    assert found(db, text("abc xyz", "t", matchCriteria="all")) == [4]
    # The document holding every gram of the query scores highest.
    assert ids(search(db, "docs", text("abc", "t", matchCriteria="all")))[0] == 3


def test_stacked_tokens_do_not_lengthen_a_field(db):
    docs = [{"_id": 1, "t": "café noir"}, {"_id": 2, "t": "cafe noir"},
            {"_id": 3, "t": "noir et blanc"}]
    index_docs(db, docs, [analyzer("folded", "standard", LOWERCASE,
                                   {"type": "asciiFolding", "originalTokens": "include"})],
               t="folded")
    # (A wildcard "café" is folded to cafe as the field's terms are, so it cannot tell them apart.)
    assert held(db, "cafe") == [1, 2]
    noir = scores(db, text("noir", "t"))
    assert sorted(noir) == [1, 2, 3]
    # café and cafe share one position: both fields are two words long.
    assert noir[1] == pytest.approx(noir[2], rel=1e-9)
    assert noir[3] < noir[2]
    # "café" asks for café or cafe at one position: the accented document holds both.
    cafe = search(db, "docs", text("café", "t"))
    assert ids(cafe) == [1, 2] and cafe[0][1] > cafe[1][1]
    # The two stacked terms are one clause under "all".
    assert found(db, text("café noir", "t", matchCriteria="all")) == [1, 2]


# --- query building: matchCriteria "all" per query string and per path ----------------------

PATH_DOCS = [
    {"_id": 1, "title": "red", "body": "car"},
    {"_id": 2, "title": "red car"},
    {"_id": 3, "body": "a car that is red"},
    {"_id": 4, "title": "blue", "body": "blue sky"},
    {"_id": 5, "title": "red car", "body": "red car for sale"},
    {"_id": 6, "title": "a red bike"},
]


@pytest.fixture
def paths(db):
    db.docs.insert_many(PATH_DOCS)
    create_ready(db, "docs", static(title={"type": "string"}, body={"type": "string"}))
    return db


def test_match_all_needs_every_word_in_one_path(paths):
    operator = text("red car", ["title", "body"], matchCriteria="all")
    assert found(paths, operator) == [2, 3, 5]
    # The score is each path's own, summed.
    title, body = Field(PATH_DOCS, "title"), Field(PATH_DOCS, "body")
    want = add(title.text("red car", match_all=True), body.text("red car", match_all=True))
    assert_results(search(paths, "docs", operator), ranked(want, PATH_DOCS))
    both = scores(paths, operator)
    alone = [scores(paths, text("red car", p, matchCriteria="all")) for p in ["title", "body"]]
    assert both[5] == pytest.approx(alone[0][5] + alone[1][5], rel=1e-9)
    # "any" still finds a document with the words split across its paths.
    assert found(paths, text("red car", ["title", "body"], matchCriteria="any")) == [1, 2, 3, 5, 6]


def test_match_all_needs_every_word_of_each_query_string_not_of_all(paths):
    assert found(paths, text(["red", "blue"], "title", matchCriteria="all")) == [1, 2, 4, 5, 6]
    assert found(paths, text(["red car", "blue"], "title", matchCriteria="all")) == [2, 4, 5]
    # Each (query string, path) pair is its own clause, the score their sum.
    queries, fields = ["red car", "blue"], ["title", "body"]
    operator = text(queries, fields, matchCriteria="all")
    want = add(*(Field(PATH_DOCS, f).text(q, match_all=True) for q in queries for f in fields))
    assert sorted(want) == [2, 3, 4, 5]
    assert_results(search(paths, "docs", operator), ranked(want, PATH_DOCS))

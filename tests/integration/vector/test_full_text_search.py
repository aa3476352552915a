"""Atlas Search full-text search against a real quarryd.

Covers `search` index definitions (dynamic and static mappings, arrays of mappings as LangChain
writes them, sub-document mappings, the mapping types that are accepted but not text-indexed,
Lucene's built-in analyzers and the errors for what is not supported), the `$search` stage with
its `text`, `phrase` and `compound` operators, the `equals`, `range`, `in` and `exists`
operators over values held whole (token, number, date, boolean, objectId and uuid mappings), the
`autocomplete` mapping and operator, highlights, `$searchMeta` counts, `$search` inside
`$unionWith`, the pipelines LangChain's full-text and hybrid retrievers send, and indexes that
come back after a restart.

Expected answers are computed here: the analyzers are re-implemented for the (plain ASCII) test
texts, and every score is BM25 (k1 = 1.2, b = 0.75, Lucene's idf) computed from the documents;
autocomplete's BM25 counts grams where text counts terms.
"""
import datetime
import math
import re
import time
import unicodedata
import uuid

import pymongo
import pytest
from bson import Int64, ObjectId
from bson.binary import Binary, UUID_SUBTYPE
from pymongo.errors import OperationFailure

from quarry_server import CLIENT_OPTIONS
from test_vector_search import create_index as create_any_index, list_indexes
from test_vector_search import wait_ready as wait_any_ready

K1, B = 1.2, 0.75


# --- index commands ------------------------------------------------------------------------

def create_index(db, coll, definition, name="default", type_="search"):
    return create_any_index(db, coll, definition, name=name, type_=type_)


def wait_ready(db, coll, name="default", timeout=20):
    return wait_any_ready(db, coll, name=name, timeout=timeout)


def create_ready(db, coll, definition, name="default", type_="search"):
    create_index(db, coll, definition, name=name, type_=type_)
    return wait_ready(db, coll, name=name)


DYNAMIC = {"mappings": {"dynamic": True}}


def static(**fields):
    return {"mappings": {"dynamic": False, "fields": fields}}


STRING = {"type": "string"}


# --- $search -------------------------------------------------------------------------------

def search(db, coll, operator, index="default", **options):
    """[(_id, score)] of `{$search: {index, <operator>, <options>}}`, best first."""
    stage = {"index": index, **operator, **options}
    docs = db[coll].aggregate([{"$search": stage},
                               {"$project": {"_id": 1, "score": {"$meta": "searchScore"}}}])
    return [(d["_id"], d["score"]) for d in docs]


def ids(results):
    return [i for i, _ in results]


def text(query, path, **options):
    return {"text": {"query": query, "path": path, **options}}


def phrase(query, path, **options):
    return {"phrase": {"query": query, "path": path, **options}}


def error_of(action):
    """(code, message) of the OperationFailure that `action()` raises; (None, ...) if none."""
    try:
        action()
    except OperationFailure as e:
        return e.code, str(e)
    return None, "no error"


def assert_errors(cases, action):
    """Each case (argument, code, words): action(argument) fails with that code, naming words."""
    wrong = []
    for argument, code, words in cases:
        got, message = error_of(lambda: action(argument))
        if got != code or words not in message:
            wrong.append(f"{argument!r}: want {code} with {words!r}, got {got}: {message}")
    assert not wrong, "\n".join(wrong)


# --- analyzers, re-implemented for plain ASCII text -----------------------------------------
# Each returns the terms at positions 0, 1, ...; None marks a position whose word was dropped.

def standard(value):
    return [w.lower() for w in re.findall(r"\w+(?:'\w+)*", value)]


def simple(value):
    return [w.lower() for w in re.findall(r"[^\W\d_]+", value)]


def whitespace(value):
    return value.split()


def keyword(value):
    return [value]


LUCENE_ENGLISH_STOP_WORDS = {
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with"}
# Porter's stems of the words the English tests use; the other words are their own stems.
PORTER_STEMS = {"dogs": "dog", "running": "run", "runs": "run", "jumping": "jump",
                "jumped": "jump", "foxes": "fox", "lazy": "lazi", "sleeps": "sleep"}


def english(value):
    terms = []
    for word in standard(value):
        word = word[:-2] if word.endswith("'s") else word
        terms.append(None if word in LUCENE_ENGLISH_STOP_WORDS else PORTER_STEMS.get(word, word))
    return terms


# --- what an index holds, and BM25 over it --------------------------------------------------

def field_strings(value, path):
    """The strings at dotted `path` of a document, through arrays and sub-documents."""
    if isinstance(value, list):
        return [s for v in value for s in field_strings(v, path)]
    if not path:
        return [value] if isinstance(value, str) else []
    head, _, rest = path.partition(".")
    if not isinstance(value, dict) or head not in value:
        return []
    return field_strings(value[head], rest)


def edit_distance(a, b):
    """Insertions, deletions, substitutions and transpositions of adjacent characters."""
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1,
                          d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


class Field:
    """One field of a search index: the terms each document holds there, value by value."""

    def __init__(self, docs, path, analyze=standard):
        self.analyze = analyze
        self.values = {}  # _id -> [[term or None, ...] for each string value]
        for doc in docs:
            values = [analyze(s) for s in field_strings(doc, path)]
            if any(t is not None for v in values for t in v):
                self.values[doc["_id"]] = values
        self.terms = {i: [t for v in vs for t in v if t is not None]
                      for i, vs in self.values.items()}
        self.n_docs = len(self.terms)
        self.avgdl = sum(map(len, self.terms.values())) / max(self.n_docs, 1)

    def df(self, term):
        return sum(term in terms for terms in self.terms.values())

    def idf_of(self, df):
        return math.log(1 + (self.n_docs - df + 0.5) / (df + 0.5))

    def tf(self, doc_id, freq):
        dl = len(self.terms[doc_id])
        return freq / (freq + K1 * (1 - B + B * dl / self.avgdl))

    def query_terms(self, query):
        queries = query if isinstance(query, list) else [query]
        return [t for q in queries for t in self.analyze(q) if t is not None]

    def text(self, query, match_all=False):
        """{_id: score} of the text operator (without fuzzy)."""
        terms = self.query_terms(query)
        scores = {}
        for doc_id, held in self.terms.items():
            if match_all and not all(t in held for t in terms):
                continue
            for term in terms:
                if term in held:
                    score = self.idf_of(self.df(term)) * self.tf(doc_id, held.count(term))
                    scores[doc_id] = scores.get(doc_id, 0) + score
        return scores

    def fuzzy(self, query, max_edits=2, prefix_length=0, max_expansions=50):
        """{_id: score} of the text operator with fuzzy matching, one query term at a time."""
        scores = {}
        vocabulary = {t for terms in self.terms.values() for t in terms}
        for word in self.query_terms(query):
            expansions = sorted((edit_distance(word, t), t) for t in vocabulary
                                if t[:prefix_length] == word[:prefix_length])
            expansions = [(e, t) for e, t in expansions if e <= max_edits][:max_expansions]
            if not expansions:
                continue
            idf = self.idf_of(max(self.df(t) for _, t in expansions))
            for doc_id, held in self.terms.items():
                for edits, term in expansions:
                    if term in held:
                        weight = 1 - edits / min(len(word), len(term))
                        score = weight * idf * self.tf(doc_id, held.count(term))
                        scores[doc_id] = scores.get(doc_id, 0) + score
        return scores

    def phrase(self, query, slop=0):
        """{_id: score} of the phrase operator; with slop, for two-word phrases only."""
        wanted = [(p, t) for p, t in enumerate(self.analyze(query)) if t is not None]
        idf = sum(self.idf_of(self.df(t)) for _, t in wanted)
        scores = {}
        for doc_id, values in self.values.items():
            freq = sum(phrase_frequency(v, wanted, slop) for v in values)
            if freq:
                scores[doc_id] = idf * self.tf(doc_id, freq)
        return scores


def phrase_frequency(value, wanted, slop):
    if slop == 0:
        return sum(all(0 <= start + p < len(value) and value[start + p] == t for p, t in wanted)
                   for start in range(len(value)))
    (_, first), (_, second) = wanted
    freq = 0
    for start, term in enumerate(value):
        if term == first:
            after = [i for i in range(start + 1, len(value)) if value[i] == second]
            if after and after[0] - start - 1 <= slop:
                freq += 1 / (1 + after[0] - start - 1)
    return freq


def add(*score_maps):
    total = {}
    for scores in score_maps:
        for doc_id, score in scores.items():
            total[doc_id] = total.get(doc_id, 0) + score
    return total


def ranked(scores, docs):
    """[(_id, score)] best first, ties in the order of `docs` (their insertion order)."""
    order = {d["_id"]: n for n, d in enumerate(docs)}
    return sorted(scores.items(), key=lambda item: (-item[1], order[item[0]]))


def assert_results(got, expected):
    assert ids(got) == ids(expected)
    assert [s for _, s in got] == pytest.approx([s for _, s in expected], rel=1e-9)


# --- the documents ---------------------------------------------------------------------------

MOVIES = [
    {"_id": 1, "title": "The Quick Brown Fox",
     "plot": "A quick brown fox jumps over the lazy dog near the river",
     "tags": ["animal", "fox", "classic"]},
    {"_id": 2, "title": "Lazy Dog Days",
     "plot": "The dog sleeps all day and the fox watches the dog", "tags": ["dog"]},
    {"_id": 3, "title": "River Run",
     "plot": "A boat on the river runs fast, faster than any fox", "tags": ["river", "boat"]},
    {"_id": 4, "title": "Space Odyssey",
     "plot": "Astronauts travel through space to find a monolith", "tags": ["space", "classic"]},
    {"_id": 5, "title": "Fox and Hound",
     "plot": "A fox and a hound become friends; the fox runs and the hound follows the fox",
     "tags": ["animal", "friendship"]},
    {"_id": 6, "title": "Quiet River", "plot": "Nothing happens by the quiet river, not even a dog",
     "tags": []},
    {"_id": 7, "title": "Numbers Only", "plot": 42, "tags": [7]},
    {"_id": 8, "title": "Brown Paper", "plot": "brown paper packages tied up with strings",
     "tags": "classic"},
]


@pytest.fixture
def movies(db):
    """The movies, indexed by a dynamic index named "default"."""
    db.movies.insert_many(MOVIES)
    create_ready(db, "movies", DYNAMIC)
    return db


def movie_field(path):
    return Field(MOVIES, path)


# --- index definitions -----------------------------------------------------------------------

def test_a_search_index_is_listed_with_its_definition_and_becomes_ready(db):
    db.movies.insert_many(MOVIES)
    definition = static(plot={"type": "string", "analyzer": "lucene.english"})
    created = create_index(db, "movies", definition, name="plots")
    assert re.fullmatch(r"[0-9a-f]{24}", created["id"]) and created["name"] == "plots"
    listed = wait_ready(db, "movies", name="plots")
    assert listed["id"] == created["id"]
    assert listed["type"] == "search" and listed["queryable"] is True
    assert listed["latestDefinition"] == definition
    english_plots = Field(MOVIES, "plot", english)
    assert_results(search(db, "movies", text("dogs", "plot"), index="plots"),
                   ranked(english_plots.text("dogs"), MOVIES))


def test_a_dynamic_mapping_indexes_every_string_in_arrays_and_sub_documents(db):
    docs = [
        {"_id": 1, "title": "alpha beta", "tags": ["gamma", "delta alpha"],
         "meta": {"director": "jane alpha", "crew": {"lead": "omega alpha"}},
         "reviews": [{"text": "alpha rocks"}, {"text": "meh"}], "year": 1999},
        {"_id": 2, "title": "beta", "tags": "alpha", "meta": {"director": "john"},
         "reviews": [{"text": "great alpha alpha film"}], "year": "1999"},
        {"_id": 3, "title": "alpha alpha alpha", "tags": ["x", "y", "z", "alpha"],
         "meta": {"crew": {"lead": "alpha"}}, "reviews": {"text": "fine"}},
        {"_id": 4, "title": "nothing here", "tags": ["omega"], "year": 1999.0},
    ]
    db.docs.insert_many(docs)
    create_ready(db, "docs", DYNAMIC)
    for path in ["title", "tags", "meta.director", "meta.crew.lead", "reviews.text"]:
        expected = ranked(Field(docs, path).text("alpha"), docs)
        assert expected, path
        assert_results(search(db, "docs", text("alpha", path)), expected)
    # Numbers are not text: only the string "1999" is found.
    assert ids(search(db, "docs", text("1999", "year"))) == [2]


def test_a_static_mapping_indexes_only_the_named_fields(db):
    db.movies.insert_many(MOVIES)
    create_ready(db, "movies", static(plot=STRING))
    expected = ranked(movie_field("plot").text("fox river"), MOVIES)
    assert_results(search(db, "movies", text("fox river", "plot")), expected)
    assert search(db, "movies", text("fox river", "title")) == []
    assert search(db, "movies", text("classic", "tags")) == []
    assert_results(search(db, "movies", text("fox river", {"wildcard": "*"})), expected)


def test_a_field_mapped_by_an_array_of_mappings_as_langchain_writes_it(db):
    db.movies.insert_many(MOVIES)
    create_ready(db, "movies", static(title=[{"type": "string"}]))
    expected = ranked(movie_field("title").text("river brown"), MOVIES)
    assert_results(search(db, "movies", text("river brown", "title")), expected)
    assert search(db, "movies", text("river", "plot")) == []


def test_sub_document_mappings_with_named_fields_or_dynamic(db):
    docs = [
        {"_id": 1, "title": "alpha", "meta": {"director": "alpha", "writer": "alpha"},
         "info": {"x": "alpha", "y": {"z": "alpha beta"}}},
        {"_id": 2, "meta": {"director": "beta"}, "info": {"x": "beta"}},
    ]
    db.docs.insert_many(docs)
    create_ready(db, "docs", static(
        meta={"type": "document", "fields": {"director": STRING}},
        info={"type": "document", "dynamic": True}))
    for path in ["meta.director", "info.x", "info.y.z"]:
        assert_results(search(db, "docs", text("alpha", path)),
                       ranked(Field(docs, path).text("alpha"), docs))
    for path in ["title", "meta.writer"]:
        assert search(db, "docs", text("alpha", path)) == [], path
    assert ids(search(db, "docs", text("beta", "info.x"))) == [2]


def test_mapping_types_other_than_string_are_accepted_but_not_text_indexed(db):
    import datetime
    import uuid
    from bson import ObjectId
    from bson.binary import Binary, UUID_SUBTYPE
    db.docs.insert_one({"_id": 1, "title": "beta", "code": "alpha", "name": "alpha",
                        "genre": "alpha", "year": 2001, "released": datetime.datetime(2001, 1, 1),
                        "active": True, "owner": ObjectId(),
                        "uid": Binary(uuid.uuid4().bytes, UUID_SUBTYPE)})
    create_ready(db, "docs", {
        "analyzers": [],
        "mappings": {"dynamic": False, "fields": {
            "title": {"type": "string", "norms": "include", "indexOptions": "offsets"},
            "code": {"type": "token"}, "name": {"type": "autocomplete"},
            "genre": {"type": "stringFacet"}, "year": {"type": "number"},
            "released": {"type": "date"}, "active": {"type": "boolean"},
            "owner": {"type": "objectId"}, "uid": {"type": "uuid"}}}})
    assert ids(search(db, "docs", text("beta", "title"))) == [1]
    assert search(db, "docs", text("alpha", ["code", "name", "genre"])) == []
    assert search(db, "docs", text("alpha", {"wildcard": "*"})) == []


def test_an_index_of_only_knn_vectors_still_serves_vector_search(db):
    vectors = {1: [1.0, 0.0, 0.0], 2: [0.0, 1.0, 0.0], 3: [0.6, 0.8, 0.0], 4: [0.0, 0.0, 1.0]}
    db.docs.insert_many([{"_id": i, "embedding": v, "text": "words"} for i, v in vectors.items()])
    create_ready(db, "docs", static(
        embedding={"type": "knnVector", "dimensions": 3, "similarity": "euclidean"}))
    q = [0.9, 0.3, 0.0]
    got = list(db.docs.aggregate([
        {"$vectorSearch": {"index": "default", "path": "embedding", "queryVector": q,
                           "numCandidates": 10, "limit": 3}},
        {"$project": {"_id": 1}}]))
    nearest = sorted(vectors, key=lambda i: sum((a - b) ** 2 for a, b in zip(q, vectors[i])))
    assert [d["_id"] for d in got] == nearest[:3]
    assert search(db, "docs", text("words", "text")) == []


# --- analyzers -------------------------------------------------------------------------------

ANALYZER_TEXTS = ["Hello, World! e-mail2you", "hello world", "HELLO", "World's end",
                  "state-of-the-art Hello"]
ANALYZER_QUERIES = ["hello", "Hello,", "World", "world's", "mail", "e-mail2you", "HELLO",
                    "Hello, World! e-mail2you", "World's end", "state of the art", "end you"]


@pytest.mark.parametrize("field,analyzer,analyze", [
    ("std", None, standard),
    ("letters", "lucene.simple", simple),
    ("spaces", "lucene.whitespace", whitespace),
    ("whole", "lucene.keyword", keyword),
])
def test_each_basic_analyzer_splits_text_and_queries_its_own_way(db, field, analyzer, analyze):
    docs = [{"_id": n, field: value} for n, value in enumerate(ANALYZER_TEXTS)]
    db.docs.insert_many(docs)
    mapping = {"type": "string", **({"analyzer": analyzer} if analyzer else {})}
    create_ready(db, "docs", static(**{field: mapping}))
    index = Field(docs, field, analyze)
    matched = 0
    for query in ANALYZER_QUERIES:
        expected = ranked(index.text(query), docs)
        matched += bool(expected)
        assert_results(search(db, "docs", text(query, field)), expected)
    assert matched >= 3


def test_the_english_analyzer_stems_and_drops_lucenes_stop_words_and_possessives(db):
    docs = [
        {"_id": 1, "text": "The dogs were running in the park"},
        {"_id": 2, "text": "A dog runs"},
        {"_id": 3, "text": "Rex's bone and the cat's bone"},
        {"_id": 4, "text": "We have been jumping"},
        {"_id": 5, "text": "Foxes jumped over lazy dogs"},
    ]
    db.docs.insert_many(docs)
    create_ready(db, "docs", static(text={"type": "string", "analyzer": "lucene.english"}))
    index = Field(docs, "text", english)
    for query in ["dog", "running", "Dogs RUNNING", "jumped foxes", "rex cat", "we were",
                  "have been", "lazy"]:
        expected = ranked(index.text(query), docs)
        assert expected, query
        assert_results(search(db, "docs", text(query, "text")), expected)
    for stop_words in ["the", "and in", "a the of"]:
        assert search(db, "docs", text(stop_words, "text")) == [], stop_words


LANGUAGES = [  # analyzer, a text with a plural and a stop word, the singular, the stop word
    ("lucene.french", "Les chats dorment", "chat", "les"),
    ("lucene.spanish", "Los gatos duermen", "gato", "los"),
    ("lucene.german", "Die Hunde schlafen", "Hund", "die"),
    ("lucene.italian", "I gatti dormono", "gatto", "i"),
    ("lucene.dutch", "De katten slapen", "kat", "de"),
    ("lucene.swedish", "Hundar och katter", "hund", "och"),
    ("lucene.portuguese", "Os gatos dormem", "gato", "os"),
]


def test_language_analyzers_stem_and_drop_their_stop_words(db):
    fields = {f"f{n}": {"type": "string", "analyzer": a} for n, (a, *_) in enumerate(LANGUAGES)}
    fields["plain"] = STRING
    doc = {f"f{n}": sentence for n, (_, sentence, *_) in enumerate(LANGUAGES)}
    db.docs.insert_many([{"_id": 1, **doc, "plain": " ".join(doc.values())},
                         {"_id": 2, **{f: "zzz" for f in fields}}])
    create_ready(db, "docs", static(**fields))
    wrong = []
    for n, (analyzer, _, singular, stop_word) in enumerate(LANGUAGES):
        if ids(search(db, "docs", text(singular, f"f{n}"))) != [1]:
            wrong.append(f"{analyzer}: {singular!r} does not find its plural")
        if search(db, "docs", text(stop_word, f"f{n}")) != []:
            wrong.append(f"{analyzer}: the stop word {stop_word!r} is indexed")
        if ids(search(db, "docs", text(stop_word, "plain"))) != [1]:
            wrong.append(f"lucene.standard does not keep {stop_word!r}")
    assert not wrong, "\n".join(wrong)


def test_index_wide_analyzers_and_per_field_search_analyzers(db):
    docs = [{"_id": 1, "title": "Running Dogs", "body": "Running Dogs"},
            {"_id": 2, "title": "running", "body": "running"}]
    db.docs.insert_many(docs)
    create_ready(db, "docs", {"analyzer": "lucene.english", "mappings": {"dynamic": True}},
                 name="english")
    create_ready(db, "docs", {"analyzer": "lucene.standard", "searchAnalyzer": "lucene.keyword",
                              "mappings": {"dynamic": True}}, name="keyword_queries")
    per_field = static(title={"type": "string", "analyzer": "lucene.whitespace"},
                       body={"type": "string", "analyzer": "lucene.whitespace",
                             "searchAnalyzer": "lucene.simple"})
    create_ready(db, "docs", {"analyzer": "lucene.english", **per_field}, name="per_field")
    english_titles = Field(docs, "title", english)
    assert_results(search(db, "docs", text("run dog", "title"), index="english"),
                   ranked(english_titles.text("run dog"), docs))
    # Indexed by lucene.standard, queried as one keyword: only single lowercase words match.
    assert ids(search(db, "docs", text("dogs", "title"), index="keyword_queries")) == [1]
    assert search(db, "docs", text("running dogs", "title"), index="keyword_queries") == []
    assert search(db, "docs", text("Dogs", "title"), index="keyword_queries") == []
    # The field's whitespace analyzer wins over the index's English one, for queries too...
    assert ids(search(db, "docs", text("Running", "title"), index="per_field")) == [1]
    assert ids(search(db, "docs", text("running", "title"), index="per_field")) == [2]
    assert search(db, "docs", text("run", "title"), index="per_field") == []
    # ... unless the field has its own search analyzer: "Running" is queried as "running".
    assert ids(search(db, "docs", text("Running", "body"), index="per_field")) == [2]


def test_analyzers_quarry_lacks_answer_not_implemented_naming_them(db):
    db.create_collection("docs")
    cases = [
        ({"analyzer": "lucene.arabic", "mappings": {"dynamic": True}}, 238, "lucene.arabic"),
        (static(t={"type": "string", "analyzer": "lucene.cjk"}), 238, "lucene.cjk"),
        # A name neither built in nor among the definition's analyzers.
        ({"searchAnalyzer": "myAnalyzer", "mappings": {"dynamic": True}}, 2, "myAnalyzer"),
        (static(t={"type": "string", "searchAnalyzer": "custom"}), 2, "custom"),
    ]
    assert_errors(cases, lambda definition: create_index(db, "docs", definition))
    assert list_indexes(db, "docs") == []


def test_definition_features_quarry_lacks_answer_not_implemented(db):
    db.create_collection("docs")
    cases = []
    for option, value in [("ignoreAbove", 10), ("similarity", {"type": "boolean"}),
                          ("norms", "omit"), ("indexOptions", "docs"), ("indexOptions", "freqs")]:
        cases.append((static(t={"type": "string", option: value}), 238, option))
    assert_errors(cases, lambda definition: create_index(db, "docs", definition))
    assert list_indexes(db, "docs") == []


def test_invalid_definitions_answer_bad_value(db):
    db.create_collection("docs")
    cases = [(static(t={"type": "bogus"}), 2, ""),
             ({"mappings": {"dynamic": True}, "bogusOption": 1}, 2, "")]
    assert_errors(cases, lambda definition: create_index(db, "docs", definition))
    assert list_indexes(db, "docs") == []


# --- the $search stage -----------------------------------------------------------------------

def test_search_must_be_the_first_stage(movies):
    with pytest.raises(OperationFailure) as err:
        list(movies.movies.aggregate([{"$match": {}}, {"$search": text("fox", "plot")}]))
    assert err.value.code == 40602


def test_the_index_defaults_to_default_and_unknown_indexes_find_nothing(movies):
    stage = {"$search": text("fox", "plot")}
    found = [d["_id"] for d in movies.movies.aggregate([stage])]
    assert found == ids(ranked(movie_field("plot").text("fox"), MOVIES))
    assert search(movies, "movies", text("fox", "plot"), index="missing") == []
    assert search(movies, "no_such_collection", text("fox", "plot")) == []


def test_search_on_a_vector_search_index_is_refused(movies):
    movies.movies.update_many({}, {"$set": {"embedding": [1.0, 0.0]}})
    create_ready(movies, "movies", {"fields": [{"type": "vector", "path": "embedding",
                                                "numDimensions": 2, "similarity": "cosine"}]},
                 name="vectors", type_="vectorSearch")
    code, _ = error_of(lambda: search(movies, "movies", text("fox", "plot"), index="vectors"))
    assert code == 2


def test_writes_are_visible_to_the_next_search(db):
    docs = {"old": {"_id": "old", "text": "an apple from before the index"}}
    db.live.insert_many(list(docs.values()))
    create_ready(db, "live", DYNAMIC)

    def check(query):
        current = list(docs.values())
        assert_results(search(db, "live", text(query, "text")),
                       ranked(Field(current, "text").text(query), current))

    check("apple")
    for doc in [{"_id": "a", "text": "red apple"}, {"_id": "b", "text": "green apple apple"}]:
        docs[doc["_id"]] = doc
        db.live.insert_one(dict(doc))
        check("apple")
    docs["a"]["text"] = "red pear"
    db.live.update_one({"_id": "a"}, {"$set": {"text": "red pear"}})
    check("apple")
    check("pear red")
    del docs["b"]
    db.live.delete_one({"_id": "b"})
    check("apple green")
    assert ids(search(db, "live", text("apple", "text"))) == ["old"]


def test_equal_scores_come_in_insertion_order(db):
    db.create_collection("ties")
    create_ready(db, "ties", DYNAMIC)
    docs = [{"_id": "c", "text": "same words"}, {"_id": "a", "text": "same words"},
            {"_id": "b", "text": "same words"}, {"_id": "z", "text": "same"}]
    for doc in docs:
        db.ties.insert_one(dict(doc))
    expected = ranked(Field(docs, "text").text("same"), docs)
    assert ids(expected) == ["z", "c", "a", "b"]
    assert_results(search(db, "ties", text("same", "text")), expected)


def test_the_search_score_is_metadata_the_next_stages_read(movies):
    expected = ranked(movie_field("plot").text("dog"), MOVIES)
    docs = list(movies.movies.aggregate([
        {"$search": text("dog", "plot")},
        {"$set": {"a": {"$meta": "searchScore"}}},
        {"$addFields": {"b": {"$meta": "searchScore"}}},
        {"$project": {"title": 1, "a": 1, "b": 1, "c": {"$meta": "searchScore"}}}]))
    assert [d["_id"] for d in docs] == ids(expected)
    for doc, (doc_id, score) in zip(docs, expected):
        assert doc["title"] == MOVIES[doc_id - 1]["title"]
        assert doc["a"] == doc["b"] == doc["c"] == pytest.approx(score, rel=1e-9)


# --- the text operator -----------------------------------------------------------------------

def test_text_scores_are_bm25_summed_over_the_query_terms(movies):
    plot = movie_field("plot")
    for query in ["fox", "quick fox", "river dog", "FOX", "fox fox", "Hound, friends!",
                  ["quick", "river dog"], "monolith", "zebra"]:
        assert_results(search(movies, "movies", text(query, "plot")),
                       ranked(plot.text(query), MOVIES))


def test_text_over_several_paths_sums_each_fields_bm25(movies):
    title, plot, tags = movie_field("title"), movie_field("plot"), movie_field("tags")
    assert_results(search(movies, "movies", text("fox river", ["title", "plot"])),
                   ranked(add(title.text("fox river"), plot.text("fox river")), MOVIES))
    assert_results(search(movies, "movies", text("classic dog", ["tags", "title"])),
                   ranked(add(tags.text("classic dog"), title.text("classic dog")), MOVIES))


def test_wildcard_paths_cover_the_matching_fields(db):
    docs = [{"_id": 1, "title": "red fox", "titleOriginal": "renard roux fox", "subtitle": "fox"},
            {"_id": 2, "title": "blue whale", "subtitle": "fox tales", "notes": {"x": "fox"}},
            {"_id": 3, "titleOriginal": "fox", "body": "nothing"}]
    db.docs.insert_many(docs)
    create_ready(db, "docs", DYNAMIC)
    fields = {path: Field(docs, path) for path in
              ["title", "titleOriginal", "subtitle", "notes.x", "body"]}
    assert_results(search(db, "docs", text("fox", {"wildcard": "*"})),
                   ranked(add(*(f.text("fox") for f in fields.values())), docs))
    assert_results(search(db, "docs", text("fox", {"wildcard": "title*"})),
                   ranked(add(fields["title"].text("fox"), fields["titleOriginal"].text("fox")),
                          docs))


def test_match_criteria_all_needs_every_term(movies):
    plot = movie_field("plot")
    for query in ["fox dog", "river fox boat", "fox"]:
        assert_results(search(movies, "movies", text(query, "plot", matchCriteria="all")),
                       ranked(plot.text(query, match_all=True), MOVIES))
        assert_results(search(movies, "movies", text(query, "plot", matchCriteria="any")),
                       ranked(plot.text(query), MOVIES))


FUZZY_DOCS = [
    {"_id": 1, "text": "colour of the sky"},
    {"_id": 2, "text": "the color blue"},
    {"_id": 3, "text": "bright colours and colour"},
    {"_id": 4, "text": "a collar for the dog"},
    {"_id": 5, "text": "valour in battle"},
    {"_id": 6, "text": "a dolour of sorrow"},
    {"_id": 7, "text": "coluor typo"},
    {"_id": 8, "text": "nothing related here"},
]


def test_fuzzy_text_weighs_each_expansion_by_its_edits(db):
    db.docs.insert_many(FUZZY_DOCS)
    create_ready(db, "docs", DYNAMIC)
    field = Field(FUZZY_DOCS, "text")
    cases = [({}, {}),
             ({"maxEdits": 1}, {"max_edits": 1}),
             ({"maxEdits": 2, "prefixLength": 2}, {"prefix_length": 2}),
             ({"prefixLength": 4}, {"prefix_length": 4})]
    for fuzzy, options in cases:
        for query in ["colour", "colour battles", "skies"]:
            expected = ranked(field.fuzzy(query, **options), FUZZY_DOCS)
            assert_results(search(db, "docs", text(query, "text", fuzzy=fuzzy)), expected)
    assert sorted(ids(search(db, "docs", text("colour", "text", fuzzy={"maxEdits": 1})))) == \
        [1, 2, 3, 6, 7]


def test_fuzzy_text_with_match_criteria_all_needs_a_match_of_every_word(db):
    db.docs.insert_many(FUZZY_DOCS)
    create_ready(db, "docs", DYNAMIC)
    field = Field(FUZZY_DOCS, "text")
    query = "colour battles"
    got = search(db, "docs", text(query, "text", fuzzy={}, matchCriteria="any"))
    assert_results(got, ranked(field.fuzzy(query), FUZZY_DOCS))
    per_word = [field.fuzzy(word) for word in query.split()]
    both = set(per_word[0]) & set(per_word[1])
    assert both == {5}  # "valour in battle"
    expected = {doc_id: per_word[0][doc_id] + per_word[1][doc_id] for doc_id in both}
    got = search(db, "docs", text(query, "text", fuzzy={}, matchCriteria="all"))
    assert_results(got, ranked(expected, FUZZY_DOCS))


def test_fuzzy_max_expansions_keeps_the_terms_with_fewest_edits(db):
    docs = [{"_id": 1, "text": "colour"}, {"_id": 2, "text": "colours colours"},
            {"_id": 3, "text": "valour"}, {"_id": 4, "text": "colors"},
            {"_id": 5, "text": "bright colours"}]
    db.docs.insert_many(docs)
    create_ready(db, "docs", DYNAMIC)
    field = Field(docs, "text")
    for limit in (1, 2, 50):
        got = search(db, "docs", text("colour", "text", fuzzy={"maxExpansions": limit}))
        assert_results(got, ranked(field.fuzzy("colour", max_expansions=limit), docs))
    assert sorted(ids(got)) == [1, 2, 3, 4, 5]


def test_boost_multiplies_and_constant_replaces_the_score(movies):
    plot = movie_field("plot")
    bm25 = ranked(plot.text("fox dog"), MOVIES)
    got = search(movies, "movies", text("fox dog", "plot", score={"boost": {"value": 2.5}}))
    assert_results(got, [(i, 2.5 * s) for i, s in bm25])
    got = search(movies, "movies", text("fox dog", "plot", score={"constant": {"value": 3}}))
    assert_results(got, [(i, 3.0) for i in sorted(ids(bm25))])
    got = search(movies, "movies", {"compound": {
        "must": [text("fox", "plot")], "should": [text("river", "plot")],
        "score": {"boost": {"value": 2}}}})
    fox, river = plot.text("fox"), plot.text("river")
    assert_results(got, ranked({i: 2 * (s + river.get(i, 0)) for i, s in fox.items()}, MOVIES))


def test_boost_by_a_numeric_field_multiplies_by_its_value(db):
    docs = [{"_id": 1, "t": "fox", "stars": 4}, {"_id": 2, "t": "fox fox", "stars": [2, 9]},
            {"_id": 3, "t": "fox"}, {"_id": 4, "t": "fox and dog", "stars": 0.5}]
    db.docs.insert_many(docs)
    create_ready(db, "docs", DYNAMIC)
    bm25 = Field(docs, "t").text("fox")
    stars = {1: 4, 4: 0.5}  # numbers in arrays count as absent, as Lucene keeps no single value
    for undefined in [None, 1.5]:
        boost = {"path": "stars", **({} if undefined is None else {"undefined": undefined})}
        got = search(db, "docs", text("fox", "t", score={"boost": boost}))
        expected = {i: s * stars.get(i, undefined or 0) for i, s in bm25.items()}
        assert_results(got, ranked(expected, docs))
    code, _ = error_of(lambda: search(db, "docs", text("fox", "t", score={
        "boost": {"path": "stars", "value": 2}})))
    assert code == 2
    # A path the index does not hold numbers at cannot score.
    db.docs.insert_one({"_id": 5, "t": "fox", "label": "x"})
    create_ready(db, "docs", {"mappings": {"fields": {"t": {"type": "string"},
                                                      "label": {"type": "token"}}}}, "static")
    for path in ["label", "t", "nowhere"]:
        code, message = error_of(lambda: search(db, "docs", text("fox", "t", score={
            "boost": {"path": path}}), index="static"))
        assert code == 2 and path in message, (path, code, message)


# --- the phrase operator ---------------------------------------------------------------------

PHRASE_DOCS = [
    {"_id": 1, "text": "the quick brown fox"},
    {"_id": 2, "text": "a quick brown dog and a quick brown cat"},
    {"_id": 3, "text": "brown then quick"},
    {"_id": 4, "text": ["quick", "brown fox"]},
    {"_id": 5, "text": "quick red brown"},
    {"_id": 6, "text": "quick red green brown"},
    {"_id": 7, "text": "brown bear"},
    {"_id": 8, "text": "nothing here"},
]


@pytest.fixture
def phrases(db):
    db.docs.insert_many(PHRASE_DOCS)
    create_ready(db, "docs", DYNAMIC)
    return db


def test_a_phrase_scores_its_frequency_with_the_summed_idf(phrases):
    field = Field(PHRASE_DOCS, "text")
    for query in ["quick brown", "brown fox", "quick brown fox", "Quick, Brown!", "brown quick"]:
        assert_results(search(phrases, "docs", phrase(query, "text")),
                       ranked(field.phrase(query), PHRASE_DOCS))
    # The values of an array are never one phrase.
    assert sorted(ids(search(phrases, "docs", phrase("quick brown", "text")))) == [1, 2]


def test_slop_admits_words_between_at_a_lower_frequency(phrases):
    field = Field(PHRASE_DOCS, "text")
    for slop in (0, 1, 2):
        assert_results(search(phrases, "docs", phrase("quick brown", "text", slop=slop)),
                       ranked(field.phrase("quick brown", slop=slop), PHRASE_DOCS))
    assert sorted(ids(search(phrases, "docs", phrase("quick brown", "text", slop=2)))) == \
        [1, 2, 5, 6]


def test_a_dropped_english_stop_word_leaves_a_gap_in_phrases(db):
    docs = [{"_id": 1, "text": "quick the fox"}, {"_id": 2, "text": "quick fox"},
            {"_id": 3, "text": "the quick a fox"}]
    db.docs.insert_many(docs)
    create_ready(db, "docs", static(text={"type": "string", "analyzer": "lucene.english"}))
    field = Field(docs, "text", english)
    assert ids(search(db, "docs", phrase("quick fox", "text"))) == [2]
    assert_results(search(db, "docs", phrase("quick of fox", "text")),
                   ranked(field.phrase("quick of fox"), docs))
    assert sorted(ids(search(db, "docs", phrase("quick of fox", "text")))) == [1, 3]


# --- the compound operator -------------------------------------------------------------------

def test_compound_must_must_not_should_and_filter(movies):
    plot, title, tags = movie_field("plot"), movie_field("title"), movie_field("tags")
    fox, dog, river = plot.text("fox"), plot.text("dog"), plot.text("river")
    hound_titles, classics = title.text("hound"), tags.text("classic")
    got = search(movies, "movies", {"compound": {
        "must": text("fox", "plot"), "mustNot": text("hound", "title"),
        "should": text("river", "plot")}})
    expected = {i: s + river.get(i, 0) for i, s in fox.items() if i not in hound_titles}
    assert_results(got, ranked(expected, MOVIES))
    # An array of clauses must all match; a filter matches without scoring.
    got = search(movies, "movies", {"compound": {
        "must": [text("fox", "plot"), text("dog", "plot")], "filter": text("classic", "tags")}})
    expected = {i: fox[i] + dog[i] for i in fox if i in dog and i in classics}
    assert_results(got, ranked(expected, MOVIES))
    # Nested compounds.
    got = search(movies, "movies", {"compound": {
        "must": {"compound": {"should": [text("fox", "plot"), text("space", "plot")]}},
        "mustNot": [text("dog", "plot")]}})
    either = add(fox, plot.text("space"))
    assert_results(got, ranked({i: s for i, s in either.items() if i not in dog}, MOVIES))


def test_compound_of_only_should_clauses_and_minimum_should_match(movies):
    plot, title = movie_field("plot"), movie_field("title")
    clauses = [("fox", plot), ("river", plot), ("dog", plot)]
    scores = [field.text(word) for word, field in clauses]
    should = [text(word, "plot") for word, _ in clauses]
    for minimum in (1, 2, 3):
        got = search(movies, "movies", {"compound": {"should": should,
                                                     "minimumShouldMatch": minimum}})
        expected = {i: s for i, s in add(*scores).items()
                    if sum(i in m for m in scores) >= minimum}
        assert_results(got, ranked(expected, MOVIES))
    got = search(movies, "movies", {"compound": {
        "should": [text("space", "plot"), text("hound", "title")]}})
    assert_results(got, ranked(add(plot.text("space"), title.text("hound")), MOVIES))
    code, _ = error_of(lambda: search(movies, "movies", {"compound": {
        "should": should[:2], "minimumShouldMatch": 3}}))
    assert code == 2


# --- equals, range, in and exists ------------------------------------------------------------

def equals(path, value, **options):
    return {"equals": {"path": path, "value": value, **options}}


def range_(path, **bounds):
    return {"range": {"path": path, **bounds}}


def in_(path, value, **options):
    return {"in": {"path": path, "value": value, **options}}


def exists(path, **options):
    return {"exists": {"path": path, **options}}


def kind(value):
    """The kind of value a search index holds whole, "string" for strings, else None."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):  # Int64 is an int
        return "number"
    if isinstance(value, datetime.datetime):
        return "date"
    if isinstance(value, ObjectId):
        return "objectId"
    if isinstance(value, Binary) and value.subtype == UUID_SUBTYPE:
        return "uuid"
    if isinstance(value, str):
        return "string"
    return None


def leaves(value, prefix=""):
    """(dotted path, value) of every value below a document, through arrays and sub-documents."""
    if isinstance(value, list):
        return [leaf for v in value for leaf in leaves(v, prefix)]
    if isinstance(value, dict):
        return [leaf for k, v in value.items()
                for leaf in leaves(v, f"{prefix}.{k}" if prefix else k)]
    return [(prefix, value)]


class Held:
    """What an index holds of documents: `kinds(path)` are the kinds held at a path."""

    def __init__(self, docs, kinds):
        self.docs, self.kinds = docs, kinds

    def values(self, doc, path):
        return [v for p, v in leaves(doc) if p == path and kind(v) in self.kinds(p)]

    def matching(self, paths, test):
        """{_id: 1.0} of the documents holding at one of `paths` a value that passes `test`."""
        paths = paths if isinstance(paths, list) else [paths]
        return {d["_id"]: 1.0 for d in self.docs
                if any(test(v) for p in paths for v in self.values(d, p))}

    def equals(self, path, value):
        return self.matching(path, lambda v: kind(v) == kind(value) and v == value)

    def in_(self, path, values):
        values = values if isinstance(values, list) else [values]
        return self.matching(path, lambda v: any(kind(v) == kind(w) and v == w for w in values))

    def range(self, paths, **bounds):
        tests = {"gt": lambda v, b: v > b, "gte": lambda v, b: v >= b,
                 "lt": lambda v, b: v < b, "lte": lambda v, b: v <= b}
        (bound_kind,) = {kind(b) for b in bounds.values()}
        return self.matching(paths, lambda v: kind(v) == bound_kind and
                             all(tests[op](v, b) for op, b in bounds.items()))

    def exists(self, path):
        """A key the mapping maps exists whatever its value (null, a type its field does not
        hold, an empty array), as Lucene's field names record it."""
        mapped = self.kinds(path) - {None}
        return {d["_id"]: 1.0 for d in self.docs if mapped and has_key(d, path)}


WHOLE_KINDS = {"number", "date", "boolean", "objectId", "uuid"}  # what dynamic mappings hold whole


def dynamic_held(docs):
    """Dynamic mappings hold strings as text: findable by `exists`, never equal to a value."""
    return Held(docs, lambda path: WHOLE_KINDS), Held(docs, lambda path: WHOLE_KINDS | {"string"})


def oid(n):
    return ObjectId(f"{n:024x}")


def uuid_of(n):
    return Binary(uuid.UUID(int=n).bytes, UUID_SUBTYPE)


def day(year, month=1, date=1):
    return datetime.datetime(year, month, date)


VALUE_DOCS = [
    {"_id": 1, "plot": "a fox in New York", "city": "New York", "year": 2005,
     "released": day(2005, 3, 1), "active": True, "owner": oid(1), "uid": uuid_of(1),
     "ratings": [3, 8.5], "mixed": 5},
    {"_id": 2, "plot": "the fox and the dog", "city": "new york", "year": Int64(2010),
     "released": day(2010, 6, 15), "active": False, "owner": oid(2), "uid": uuid_of(2),
     "ratings": [5], "mixed": day(2001)},
    {"_id": 3, "plot": "a dog in Boston", "city": ["Boston", "New York"], "year": 2005.0,
     "released": [day(1999, 12, 31), day(2020)], "active": [False, True],
     "owner": [oid(2), oid(3)], "ratings": 9, "mixed": [7, day(2003)]},
    {"_id": 4, "plot": "fox fox fox", "city": "York", "year": 1999.5, "released": "2005-03-01",
     "active": "true", "owner": str(oid(1)), "uid": str(uuid.UUID(int=1)), "ratings": ["8", 7],
     "mixed": "6"},
    {"_id": 5, "plot": "nothing about animals", "year": "2005", "ratings": [], "mixed": True},
    {"_id": 6, "plot": "a fox at the end", "city": "New York ", "year": -3, "released": day(1970),
     "active": True, "uid": Binary(uuid.UUID(int=1).bytes, 3), "ratings": [8, 10],
     "mixed": {"inner": 5}},
]
VALUE_MAPPINGS = {"plot": STRING, "city": {"type": "token"}, "year": {"type": "number"},
                  "released": {"type": "date"}, "active": {"type": "boolean"},
                  "owner": {"type": "objectId"}, "uid": {"type": "uuid"},
                  "ratings": {"type": "number"}}
HELD_KINDS = {"plot": "string", "city": "string", "year": "number", "released": "date",
              "active": "boolean", "owner": "objectId", "uid": "uuid", "ratings": "number"}
VALUES_HELD = Held(VALUE_DOCS, lambda path: {HELD_KINDS.get(path)})


@pytest.fixture
def values(db):
    """VALUE_DOCS under a static index mapping each field to its kind ("mixed" unmapped)."""
    db.docs.insert_many(VALUE_DOCS)
    create_ready(db, "docs", static(**VALUE_MAPPINGS))
    return db


def check_all(db, cases):
    """Each case (operator, expected {_id: score}): $search answers it, ties in insertion order."""
    wrong = []
    for operator, expected in cases:
        got = search(db, "docs", operator)
        want = ranked(expected, VALUE_DOCS)
        if ids(got) != ids(want) or [s for _, s in got] != pytest.approx(
                [s for _, s in want], rel=1e-9):
            wrong.append(f"{operator!r}: want {want}, got {got}")
    assert not wrong, "\n".join(wrong)


def test_equals_finds_each_kind_of_value_held_whole_with_a_score_of_one(values):
    cases = [("city", "New York"), ("city", "new york"), ("city", "York"), ("city", "Boston"),
             ("year", 2005), ("year", 1999.5), ("year", -3), ("year", 2010),
             ("released", day(2005, 3, 1)), ("released", day(2020)), ("active", True),
             ("active", False), ("owner", oid(1)), ("owner", oid(2)), ("uid", uuid_of(1)),
             ("ratings", 8.5), ("ratings", 7), ("ratings", 8), ("active", 1), ("year", "2005")]
    check_all(values, [(equals(path, value), VALUES_HELD.equals(path, value))
                       for path, value in cases])
    assert ids(search(values, "docs", equals("city", "New York"))) == [1, 3]
    assert [s for _, s in search(values, "docs", equals("active", True))] == [1.0, 1.0, 1.0]
    # Values of other kinds than the field holds never match.
    for path, value in [("year", "2005"), ("active", 1), ("released", "2005-03-01"),
                        ("city", 2005), ("owner", str(oid(1))), ("uid", oid(1))]:
        assert search(values, "docs", equals(path, value)) == [], (path, value)


def test_equals_compares_numbers_by_their_numeric_value(values):
    for value in [2005, Int64(2005), 2005.0, 2010, Int64(2010), 2010.0, 8, 8.0, 8.5]:
        for path in ["year", "ratings"]:
            expected = VALUES_HELD.equals(path, value)
            assert_results(search(values, "docs", equals(path, value)),
                           ranked(expected, VALUE_DOCS))
    assert ids(search(values, "docs", equals("year", 2005.0))) == [1, 3]
    assert ids(search(values, "docs", equals("year", 2010.0))) == [2]


def test_a_dynamic_mapping_holds_strings_as_text_and_other_values_whole(db):
    db.docs.insert_many(VALUE_DOCS)
    create_ready(db, "docs", DYNAMIC)
    held, _ = dynamic_held(VALUE_DOCS)
    cases = [("year", 2005), ("year", 2010.0), ("released", day(2010, 6, 15)), ("active", False),
             ("owner", oid(2)), ("uid", uuid_of(2)), ("ratings", 7), ("mixed", 5),
             ("city", "New York"), ("mixed", True)]
    check_all(db, [(equals(path, value), held.equals(path, value)) for path, value in cases])
    # Strings are text there: no string equals a value, but their words are found.
    for path, value in [("city", "New York"), ("city", "York"), ("year", "2005"),
                        ("plot", "fox fox fox")]:
        assert search(db, "docs", equals(path, value)) == [], (path, value)
    assert ids(search(db, "docs", text("york", "city"))) != []


def test_range_bounds_numbers_and_dates_in_every_combination(values):
    number_bounds = [{"gt": 2005}, {"gte": 2005}, {"lt": 2005.0}, {"lte": Int64(2005)},
                     {"gt": 1999.5, "lt": 2010}, {"gte": 1999.5, "lte": 2010},
                     {"gt": -10, "lte": 0}, {"gte": 8, "lt": 9}, {"gt": 8.5}]
    date_bounds = [{"gte": day(2005, 3, 1)}, {"gt": day(2005, 3, 1)}, {"lt": day(2000)},
                   {"gte": day(2000), "lte": day(2010, 6, 15)}, {"gt": day(2021)}]
    cases = [(range_(path, **b), VALUES_HELD.range(path, **b))
             for b in number_bounds for path in ["year", "ratings", ["year", "ratings"]]]
    cases += [(range_("released", **b), VALUES_HELD.range("released", **b)) for b in date_bounds]
    check_all(values, cases)
    assert ids(search(values, "docs", range_("ratings", gte=8, lt=9))) == [1, 6]
    assert ids(search(values, "docs", range_("released", lt=day(2000)))) == [3, 6]


def test_range_bounds_of_another_kind_than_the_value_never_match(values, db):
    assert search(values, "docs", range_("released", gte=0)) == []
    assert search(values, "docs", range_("year", gte=day(1900))) == []
    create_ready(db, "docs", DYNAMIC, name="dynamic")
    held, _ = dynamic_held(VALUE_DOCS)
    for bounds in [{"gte": 0}, {"gt": 5, "lte": 100}, {"gte": day(2000)}, {"lt": day(2002)}]:
        got = search(db, "docs", range_("mixed", **bounds), index="dynamic")
        assert_results(got, ranked(held.range("mixed", **bounds), VALUE_DOCS))
    assert ids(search(db, "docs", range_("mixed", gte=0), index="dynamic")) == [1, 3]
    assert ids(search(db, "docs", range_("mixed", gte=day(2000)), index="dynamic")) == [2, 3]


def test_in_matches_any_of_its_values(values):
    cases = [("city", "York"), ("city", ["York", "Boston"]), ("city", ["new york", "New York "]),
             ("year", [2005, Int64(2010)]), ("year", [1999.5]), ("ratings", [10, 3.0]),
             ("owner", [oid(1), oid(3)]), ("active", [False]), ("uid", [uuid_of(2), uuid_of(9)]),
             ("released", [day(1970), day(2020)]), ("year", ["2005", "York"])]
    check_all(values, [(in_(path, value), VALUES_HELD.in_(path, value))
                       for path, value in cases])
    assert ids(search(values, "docs", in_("owner", [oid(1), oid(3)]))) == [1, 3]


EXISTS_DOCS = [
    {"_id": 1, "sub": {"n": 1}},
    {"_id": 2, "sub": {"m": 1}},
    {"_id": 3, "sub": {"n": "one"}},
    {"_id": 4, "sub": [{"n": 2.5}, {"k": "x"}]},
    {"_id": 5, "subway": {"n": 3}},
    {"_id": 6, "sub": {}},
    {"_id": 7, "sub": {"deep": {"n": True}}},
    {"_id": 8, "name": "some text here"},
    {"_id": 9, "name": 5, "sub": []},
]
EXISTS_MAPPED = {"sub", "sub.n", "sub.deep", "sub.deep.n", "name"}


def has_key(value, path):
    """Whether `value` has the dotted `path`'s key, whatever its value, through sub-documents
    and arrays of them."""
    head, _, rest = path.partition(".")
    if isinstance(value, list):
        return any(has_key(v, path) for v in value)
    if not isinstance(value, dict) or head not in value:
        return False
    return not rest or has_key(value[head], rest)


def test_exists_matches_every_key_the_mapping_maps_whatever_its_value(db):
    db.docs.insert_many(EXISTS_DOCS)
    create_ready(db, "docs", static(
        sub={"type": "document", "fields": {
            "n": {"type": "number"},
            "deep": {"type": "document", "fields": {"n": {"type": "boolean"}}}}},
        name=STRING))
    create_ready(db, "docs", DYNAMIC, name="dynamic")
    for path in ["sub", "sub.n", "sub.deep", "sub.deep.n", "name", "sub.m", "su", "missing"]:
        for index, mapped in [("default", path in EXISTS_MAPPED), ("dynamic", True)]:
            want = [d["_id"] for d in EXISTS_DOCS if mapped and has_key(d, path)]
            assert_results(search(db, "docs", exists(path), index=index), [(i, 1.0) for i in want])
    # An empty document, an empty array, a number under a string field: the key exists.
    assert ids(search(db, "docs", exists("sub"))) == [1, 2, 3, 4, 6, 7, 9]
    assert ids(search(db, "docs", exists("name"))) == [8, 9]
    assert ids(search(db, "docs", exists("sub.m"))) == []
    assert ids(search(db, "docs", exists("sub.m"), index="dynamic")) == [2]


def test_value_operators_filter_without_scoring_and_add_one_as_should_clauses(values):
    plot = Field(VALUE_DOCS, "plot")
    fox = plot.text("fox")
    filters = [equals("year", 2005), range_("ratings", gte=8), in_("active", [True]),
               exists("uid")]
    matches = [VALUES_HELD.equals("year", 2005), VALUES_HELD.range("ratings", gte=8),
               VALUES_HELD.in_("active", [True]), VALUES_HELD.exists("uid")]
    for clause, matched in zip(filters, matches):
        got = search(values, "docs", {"compound": {"must": text("fox", "plot"),
                                                   "filter": clause}})
        assert_results(got, ranked({i: s for i, s in fox.items() if i in matched}, VALUE_DOCS))
    got = search(values, "docs", {"compound": {"must": text("fox", "plot"), "should": filters}})
    expected = {i: s + sum(i in m for m in matches) for i, s in fox.items()}
    assert len(set(expected.values())) > 2
    assert_results(got, ranked(expected, VALUE_DOCS))
    got = search(values, "docs", {"compound": {"should": filters}})
    assert_results(got, ranked(add(*matches), VALUE_DOCS))


def test_boost_and_constant_set_the_score_of_value_operators(values):
    for operator, matched in [(equals("year", 2005), VALUES_HELD.equals("year", 2005)),
                              (range_("ratings", gt=4), VALUES_HELD.range("ratings", gt=4)),
                              (in_("city", ["York"]), VALUES_HELD.in_("city", ["York"])),
                              (exists("owner"), VALUES_HELD.exists("owner"))]:
        (name, body), = operator.items()
        boosted = {name: {**body, "score": {"boost": {"value": 3}}}}
        assert_results(search(values, "docs", boosted),
                       ranked({i: 3.0 for i in matched}, VALUE_DOCS))
        constant = {name: {**body, "score": {"constant": {"value": 0.25}}}}
        assert_results(search(values, "docs", constant),
                       ranked({i: 0.25 for i in matched}, VALUE_DOCS))


def test_malformed_value_operators_answer_bad_value(values):
    cases = [
        ({"equals": {"value": 2005}}, 2, ""),
        ({"equals": {"path": "year"}}, 2, ""),
        (equals("year", {"n": 2005}), 2, ""),
        (in_("year", [None]), 2, ""),
        ({"range": {"gte": 1}}, 2, ""),
        (range_("year"), 2, ""),
        (range_("active", gte=True), 2, ""),
        (range_("year", gte=1, lt=day(2000)), 2, ""),
        (range_("year", gt=1, gte=2), 2, ""),
        (range_("year", gte={"n": 1}), 2, ""),
        ({"in": {"value": [1, 2]}}, 2, ""),
        ({"in": {"path": "year"}}, 2, ""),
        (in_("year", [2005, "2005"]), 2, ""),
        (in_("year", []), 2, ""),
        (in_("year", [{"n": 1}]), 2, ""),
        ({"exists": {}}, 2, ""),
    ]
    assert_errors(cases, lambda body: search(values, "docs", body))


# --- the autocomplete operator ---------------------------------------------------------------

def test_equals_null_finds_the_documents_holding_null_not_those_missing_the_field(db):
    docs = [{"_id": 1, "v": None}, {"_id": 2, "v": [3, None]}, {"_id": 3},
            {"_id": 4, "v": 0}, {"_id": 5, "v": "null"}, {"_id": 6, "w": None},
            {"_id": 7, "sub": {"v": None}}, {"_id": 8, "sub": [{"v": 1}, {"v": None}]}]
    db.docs.insert_many(docs)
    create_ready(db, "docs", DYNAMIC)
    create_ready(db, "docs", static(v={"type": "number"},
                                    sub={"type": "document", "fields": {"v": STRING}}),
                 name="static")
    for index in ["default", "static"]:
        assert ids(search(db, "docs", equals("v", None), index=index)) == [1, 2], index
        assert ids(search(db, "docs", equals("sub.v", None), index=index)) == [7, 8], index
        # Missing or unmapped: no null held.
        assert ids(search(db, "docs", equals("w", None), index=index)) == (
            [6] if index == "default" else []), index
    # A filter like any other clause: matching, adding nothing to the score.
    got = search(db, "docs", {"compound": {"filter": [equals("v", None)],
                                           "should": [equals("v", 3)]}})
    assert got == [(2, 1.0), (1, 0.0)]
    # Sorting treats a null as no value.
    got = db.docs.aggregate([{"$search": {"exists": {"path": "v"}, "sort": {"v": -1}}},
                             {"$project": {"_id": 1}}])
    assert [d["_id"] for d in got] == [2, 4, 1, 5]


def autocomplete(query, path, **options):
    return {"autocomplete": {"query": query, "path": path, **options}}


def folded(value):
    return "".join(c for c in unicodedata.normalize("NFD", value)
                   if not unicodedata.combining(c))


class Grams:
    """An autocomplete field: each word of each value held as grams, and BM25 over the grams."""

    def __init__(self, docs, path, tokenization="edgeGram", min_grams=2, max_grams=15,
                 fold=True):
        self.tokenization, self.min, self.max, self.fold = tokenization, min_grams, max_grams, fold
        self.values = {}  # _id -> [[set of grams of each word] for each string value]
        for doc in docs:
            values = [[self.grams(w) for w in self.words(s)] for s in field_strings(doc, path)]
            if any(g for v in values for g in v):
                self.values[doc["_id"]] = values
        self.words_of = {i: [g for v in vs for g in v if g] for i, vs in self.values.items()}
        self.n_docs = len(self.values)
        self.avgdl = sum(map(len, self.words_of.values())) / max(self.n_docs, 1)

    def words(self, value):
        return standard(folded(value) if self.fold else value)

    def grams(self, word):
        lengths = range(self.min, min(self.max, len(word)) + 1)
        if self.tokenization == "edgeGram":
            return {word[:n] for n in lengths}
        if self.tokenization == "rightEdgeGram":
            return {word[-n:] for n in lengths}
        return {word[i:i + n] for n in lengths for i in range(len(word) - n + 1)}

    def lookup(self, word):
        """The gram a query word is looked up as, or None when it matches nothing."""
        if len(word) < self.min:
            return None
        if len(word) > self.max:
            return {"edgeGram": word[:self.max], "rightEdgeGram": word[-self.max:]}.get(
                self.tokenization)
        return word

    def idf(self, gram):
        n = sum(any(gram in g for g in words) for words in self.words_of.values())
        return math.log(1 + (self.n_docs - n + 0.5) / (n + 0.5))

    def bm25(self, doc_id, idf, freq):
        dl = len(self.words_of[doc_id])
        return idf * freq / (freq + K1 * (1 - B + B * dl / self.avgdl))

    def query_grams(self, query):
        queries = query if isinstance(query, list) else [query]
        return [self.lookup(w) for q in queries for w in self.words(q)]

    def any(self, query):
        scores = {}
        for gram in self.query_grams(query):
            if gram is None:
                continue
            for doc_id, words in self.words_of.items():
                freq = sum(gram in g for g in words)
                if freq:
                    scores[doc_id] = scores.get(doc_id, 0) + self.bm25(doc_id, self.idf(gram),
                                                                        freq)
        return scores

    def sequential(self, query):
        grams = self.query_grams(query)
        if None in grams:
            return {}
        idf = sum(self.idf(g) for g in grams)
        scores = {}
        for doc_id, values in self.values.items():
            freq = sum(all(start + k < len(v) and g in v[start + k] for k, g in enumerate(grams))
                       for v in values for start in range(len(v)))
            if freq:
                scores[doc_id] = self.bm25(doc_id, idf, freq)
        return scores

    def fuzzy_matches(self, query, max_edits, prefix_length=0):
        """The _ids holding a gram within max_edits of a query word sharing its prefix."""
        found = set()
        for gram in self.query_grams(query):
            for doc_id, words in self.words_of.items():
                if gram is not None and any(
                        held[:prefix_length] == gram[:prefix_length] and
                        edit_distance(gram, held) <= max_edits for g in words for held in g):
                    found.add(doc_id)
        return found


AUTOCOMPLETE_TEXTS = {
    1: "The Office Space",
    2: "Office the Musical",
    3: "Offshore Official Offers",
    4: "Space Odyssey",
    5: ["Café Society", "Spaced Out"],
    6: "Nothing else here officially",
    7: "Superstitious officers in the office space",
    8: None,
    9: "the extraordinarily spacious office",
}
AUTOCOMPLETE_FIELDS = {  # path -> (mapping, Grams options)
    "edge": ({"type": "autocomplete"}, {}),
    "right": ({"type": "autocomplete", "tokenization": "rightEdgeGram"},
              {"tokenization": "rightEdgeGram"}),
    "ngram": ({"type": "autocomplete", "tokenization": "nGram", "minGrams": 3, "maxGrams": 5},
              {"tokenization": "nGram", "min_grams": 3, "max_grams": 5}),
    "short": ({"type": "autocomplete", "tokenization": "edgeGram", "minGrams": 3,
               "maxGrams": 4, "analyzer": "lucene.standard"}, {"min_grams": 3, "max_grams": 4}),
    "shortRight": ({"type": "autocomplete", "tokenization": "rightEdgeGram", "maxGrams": 4},
                   {"tokenization": "rightEdgeGram", "max_grams": 4}),
    "exact": ({"type": "autocomplete", "foldDiacritics": False}, {"fold": False}),
}
AUTOCOMPLETE_DOCS = [{"_id": i, **({} if t is None else {f: t for f in AUTOCOMPLETE_FIELDS})}
                     for i, t in AUTOCOMPLETE_TEXTS.items()]
AUTOCOMPLETE_QUERIES = ["off", "of", "o", "office", "Offi", "spa space", "ace", "ice", "fic",
                        "officers", "cafe", "Café", "CAF", "society spaced",
                        "extraordinarily", "xyz", ["the", "musi"], "officer"]


@pytest.fixture
def grams(db):
    db.docs.insert_many(AUTOCOMPLETE_DOCS)
    create_ready(db, "docs", static(**{f: m for f, (m, _) in AUTOCOMPLETE_FIELDS.items()}))
    return db


def grams_of(path):
    return Grams(AUTOCOMPLETE_DOCS, path, **AUTOCOMPLETE_FIELDS[path][1])


def check_autocomplete(db, path, queries, method="any", **options):
    field = grams_of(path)
    wrong, matched = [], 0
    for query in queries:
        want = ranked(getattr(field, method)(query), AUTOCOMPLETE_DOCS)
        matched += bool(want)
        got = search(db, "docs", autocomplete(query, path, **options))
        if ids(got) != ids(want) or [s for _, s in got] != pytest.approx(
                [s for _, s in want], rel=1e-9):
            wrong.append(f"{path} {query!r}: want {want}, got {got}")
    assert not wrong, "\n".join(wrong)
    return matched


def test_autocomplete_edge_grams_score_bm25_over_the_grams(grams):
    assert check_autocomplete(grams, "edge", AUTOCOMPLETE_QUERIES) >= 10
    found = ids(search(grams, "docs", autocomplete("off", "edge")))
    assert found[0] == 3 and sorted(found) == [1, 2, 3, 6, 7, 9]
    assert search(grams, "docs", autocomplete("o", "edge")) == []
    assert search(grams, "docs", autocomplete("ice", "edge")) == []


def test_autocomplete_right_edge_grams_and_n_grams(grams):
    assert check_autocomplete(grams, "right", AUTOCOMPLETE_QUERIES) >= 8
    assert check_autocomplete(grams, "ngram", AUTOCOMPLETE_QUERIES) >= 8
    assert sorted(ids(search(grams, "docs", autocomplete("ice", "right")))) == [1, 2, 7, 9]
    assert sorted(ids(search(grams, "docs", autocomplete("fic", "ngram")))) == [1, 2, 3, 6, 7, 9]
    assert search(grams, "docs", autocomplete("fic", "edge")) == []


def test_autocomplete_words_outside_min_and_max_grams(grams):
    assert check_autocomplete(grams, "short", AUTOCOMPLETE_QUERIES) >= 8
    assert check_autocomplete(grams, "shortRight", AUTOCOMPLETE_QUERIES) >= 8
    # Longer words are cut to their first (edge) or last (right edge) maxGrams characters.
    assert sorted(ids(search(grams, "docs", autocomplete("officiate", "short")))) == \
        [1, 2, 3, 6, 7, 9]
    assert ids(search(grams, "docs", autocomplete("suffers", "shortRight"))) == [3]
    assert ids(search(grams, "docs", autocomplete("dancers", "shortRight"))) == [7]
    # ... and match nothing as n-grams; words shorter than minGrams match nothing.
    assert search(grams, "docs", autocomplete("officiate", "ngram")) == []
    assert search(grams, "docs", autocomplete("of", "short")) == []


def test_autocomplete_folds_diacritics_unless_told_not_to(grams):
    assert check_autocomplete(grams, "exact", AUTOCOMPLETE_QUERIES) >= 8
    for query in ["cafe", "Café", "CAFÉ", "caf"]:
        assert ids(search(grams, "docs", autocomplete(query, "edge"))) == [5], query
    assert ids(search(grams, "docs", autocomplete("café", "exact"))) == [5]
    assert search(grams, "docs", autocomplete("cafe", "exact")) == []


def test_sequential_token_order_needs_grams_of_consecutive_words(grams):
    queries = ["the off", "office the", "off spa", "the office space", "office sp", "spa off",
               "superstitious off", "society spaced", "spaced out", "the extra spa"]
    for path in ["edge", "right", "ngram"]:
        check_autocomplete(grams, path, queries, method="sequential", tokenOrder="sequential")
    check_autocomplete(grams, "edge", queries, tokenOrder="any")
    assert ids(search(grams, "docs", autocomplete("the off", "edge",
                                                  tokenOrder="sequential"))) == [1, 7]
    assert ids(search(grams, "docs", autocomplete("office the", "edge",
                                                  tokenOrder="sequential"))) == [2]
    assert search(grams, "docs", autocomplete("society spaced", "edge",
                                              tokenOrder="sequential")) == []


def test_fuzzy_autocomplete_admits_grams_within_max_edits(grams):
    field = grams_of("edge")
    for query, fuzzy in [("ofice", {"maxEdits": 1}), ("xffice", {"maxEdits": 1}),
                         ("xffice", {"maxEdits": 1, "prefixLength": 1}),
                         ("spase", {"maxEdits": 1}), ("musikal", {"maxEdits": 2})]:
        got = search(grams, "docs", autocomplete(query, "edge", fuzzy=fuzzy))
        edits, prefix = fuzzy["maxEdits"], fuzzy.get("prefixLength", 0)
        assert sorted(ids(got)) == sorted(field.fuzzy_matches(query, edits, prefix)), query
        assert all(score > 0 for _, score in got)
    # "ofice" is one edit from the gram "office", two from "offic" and "offici".
    assert sorted(ids(search(grams, "docs", autocomplete("ofice", "edge",
                                                         fuzzy={"maxEdits": 1})))) == [1, 2, 7, 9]
    assert search(grams, "docs", autocomplete("xffice", "edge",
                                              fuzzy={"maxEdits": 1, "prefixLength": 1})) == []


def test_autocomplete_in_dynamic_indexes_and_its_errors(grams, db):
    create_ready(db, "docs", DYNAMIC, name="dynamic")
    assert search(db, "docs", autocomplete("off", "edge"), index="dynamic") == []
    assert ids(search(db, "docs", text("office", "edge"), index="dynamic")) != []
    cases = [(autocomplete("off", "edge", tokenOrder="sequential", fuzzy={"maxEdits": 1}),
              238, ""),
             (autocomplete("off", {"wildcard": "*"}), 2, "")]
    assert_errors(cases, lambda body: search(grams, "docs", body))
    db.create_collection("empty")
    cases = [(static(t={"type": "autocomplete", "minGrams": 5, "maxGrams": 3}), 2, ""),
             (static(t={"type": "autocomplete", "tokenization": "bogus"}), 2, ""),
             (static(t={"type": "autocomplete", "similarity": {"type": "bm25"}}), 238,
              "similarity")]
    assert_errors(cases, lambda definition: create_index(db, "empty", definition))
    assert list_indexes(db, "empty") == []


# --- errors of $search -----------------------------------------------------------------------

def test_malformed_search_stages_answer_bad_value(movies):
    cases = [
        ({"text": {"path": "plot"}}, 2, '"text.query" is required'),
        ({"text": {"query": "fox"}}, 2, '"text.path" is required'),
        ({"bogusOperator": {"query": "fox", "path": "plot"}}, 2, ""),
        ({**text("fox", "plot"), **phrase("fox", "plot")}, 2, ""),
        ({}, 2, ""),
        (text("fox", "plot", fuzzy={"maxEdits": 3}), 2, ""),
        (phrase("fox", "plot", synonyms="mySynonyms"), 2, "unknown synonym mapping name"),
    ]
    assert_errors(cases, lambda body: search(movies, "movies", body))


def test_operators_quarry_lacks_answer_not_implemented_naming_them(movies):
    operators = {
        "geoShape": {"path": "loc", "relation": "within",
                     "geometry": {"type": "Point", "coordinates": [0, 0]}},
        "span": {"first": {"operator": {"term": {"query": "fox", "path": "plot"}}}},
    }
    cases = [({name: body}, 238, name) for name, body in operators.items()]
    assert_errors(cases, lambda body: search(movies, "movies", body))


def test_search_options_quarry_lacks_are_refused_and_harmless_ones_accepted(movies):
    options = {"returnScope": {"path": "reviews"}, "scoreDetails": True}
    cases = [({name: value}, 238, name) for name, value in options.items()]
    assert_errors(cases, lambda extra: search(movies, "movies", text("fox", "plot"), **extra))
    expected = ranked(movie_field("plot").text("fox"), MOVIES)
    for extra in [{"concurrent": True}, {"tracking": {"searchTerms": "fox"}},
                  {"returnStoredSource": False}, {"scoreDetails": False}]:
        assert_results(search(movies, "movies", text("fox", "plot"), **extra), expected)


# --- highlights ------------------------------------------------------------------------------
# The expected passages are computed here: sentences split as ICU splits these texts (after . ! ?
# and the spaces that follow, when a capital letter or the end comes next, and after each
# newline), tokens found by the analyzers above, offsets and lengths counted in UTF-8 bytes.

SENTENCE = re.compile(r"[^.!?\n]*(?:[.!?]+[ \t]*\n?|\n)|[^.!?\n]+$")


def sentences(value):
    """(start, end) character offsets of each sentence of `value`, trailing spaces included."""
    spans = [m.span() for m in SENTENCE.finditer(value)]
    assert "".join(value[a:b] for a, b in spans) == value, value
    return spans


def tokens(value, analyzer="standard"):
    """(start byte, end byte, term) of each token the analyzer keeps."""
    out = []
    for m in re.finditer(r"\w+(?:'\w+)*", value):
        term = m.group().lower()
        if analyzer == "english":
            term = term[:-2] if term.endswith("'s") else term
            if term in LUCENE_ENGLISH_STOP_WORDS:
                continue
            term = PORTER_STEMS.get(term, term)
        start = len(value[:m.start()].encode())
        out.append((start, start + len(m.group().encode()), term))
    return out


def passage_score(hit_terms, length, start):
    score = 0.0
    for term in set(hit_terms):
        f = hit_terms.count(term)
        score += f * 2.2 / (f + 1.2 * (0.25 + 0.75 * length / 87))
    return score * (1 + 1 / math.log(87 + start))


def passages(value, is_hit, analyzer="standard", max_bytes=500000):
    """[(texts, score)] of the sentences of one string that hold hits, in the string's order."""
    data = value.encode()[:max_bytes]
    value = data.decode()  # the tests cut only between characters
    hits = [t for t in tokens(value, analyzer) if is_hit(t[2])]
    found = []
    for a, b in sentences(value):
        start = len(value[:a].encode())
        end = start + len(value[a:b].rstrip(" \t\n").encode())
        inside = [h for h in hits if start <= h[0] < end]
        if not inside:
            continue
        parts, at = [], start
        for s, e, _ in inside:
            parts += [(data[at:s], "text"), (data[s:e], "hit")]
            at = e
        parts.append((data[at:end], "text"))
        texts = [{"value": v.decode(), "type": t} for v, t in parts if v]
        found.append((texts, passage_score([h[2] for h in inside], end - start, start)))
    return found


def among(*terms):
    return lambda term: term in terms


def expected_highlights(doc, wanted, analyzer="standard", max_passages=5, max_bytes=500000):
    """searchHighlights of `doc`: `wanted` maps each highlighted top-level field to the test its
    tokens' terms pass to be hits; fields in the document's order, best passages first."""
    out = []
    for path in doc:
        if path not in wanted:
            continue
        found = [p for value in field_strings(doc, path)
                 for p in passages(value, wanted[path], analyzer, max_bytes)]
        assert len({score for _, score in found}) == len(found), "ties have no set order"
        found.sort(key=lambda p: -p[1])
        out += [{"path": path, "texts": texts, "score": score}
                for texts, score in found[:max_passages]]
    return out


def highlights(db, coll, operator, highlight, stage="$project", index="default"):
    """{_id: searchHighlights} of the documents `$search` with `highlight` returns."""
    docs = db[coll].aggregate([{"$search": {"index": index, **operator, "highlight": highlight}},
                               {stage: {"h": {"$meta": "searchHighlights"}}}])
    return {d["_id"]: d["h"] for d in docs}


def assert_highlights(got, expected):
    assert [(h["path"], h["texts"]) for h in got] == \
        [(h["path"], h["texts"]) for h in expected]
    assert [h["score"] for h in got] == pytest.approx([h["score"] for h in expected], rel=1e-9)
    assert all(set(h) == {"path", "texts", "score"} for h in got)


def parts(*pieces):
    """texts of alternating pieces, the first a "text" one: parts("The ", "Dog", ".")."""
    return [{"value": v, "type": "text" if n % 2 == 0 else "hit"}
            for n, v in enumerate(pieces) if v]


STORIES = [
    {"_id": 1, "title": "The Dog and the Fox",
     "plot": "A cat sleeps. The Dog barks at the fox.  Nothing else happens here.\n",
     "tags": ["dog", "sleepy cat", "Fox den"]},
    {"_id": 2, "title": "Fox Tales",
     "plot": "Fox. The fox saw another fox and a dog! A very long sentence that mentions the "
             "dog only once, near the end of many words. Dog and fox? Café au lait for the fox. "
             "Foxes are not a fox here.\tThe fox runs\nThe last fox sentence has no stop",
     "tags": []},
    {"_id": 3, "title": "A Quiet Dog", "plot": "Nothing happens by the river.",
     "tags": ["river"]},
    {"_id": 4, "title": "Birds", "plot": "Birds sing. Cats sleep.", "tags": ["dog"]},
]


@pytest.fixture
def stories(db):
    db.stories.insert_many(STORIES)
    create_ready(db, "stories", DYNAMIC)
    return db


def test_highlights_are_the_sentences_holding_hits_with_the_hits_as_written(stories):
    for stage in ["$project", "$set"]:
        got = highlights(stories, "stories", text("dog fox", ["title", "plot"]),
                         {"path": "plot"}, stage=stage)
        assert sorted(got) == [1, 2, 3]
        # "The Dog barks at the fox.  " is 25 bytes once trimmed, and starts at byte 14.
        score = 2 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 25 / 87)) * (1 + 1 / math.log(87 + 14))
        assert got[1] == [{"path": "plot", "score": pytest.approx(score, rel=1e-9),
                           "texts": parts("The ", "Dog", " barks at the ", "fox", ".")}]
        assert got[3] == []  # found by its title, no hit in its plot
        for doc in STORIES[:3]:
            assert_highlights(got[doc["_id"]],
                              expected_highlights(doc, {"plot": among("dog", "fox")}))


def test_passages_come_best_first_by_their_score_five_per_path_by_default(stories):
    plot = STORIES[1]["plot"]
    five = highlights(stories, "stories", text("dog fox", "plot"), {"path": "plot"})[2]
    assert_highlights(five, expected_highlights(STORIES[1], {"plot": among("dog", "fox")}))
    assert len(five) == 5
    # The best: "Dog and fox?", 12 bytes, one hit of each term; then the three hits of the
    # 34-byte "The fox saw another fox and a dog!" (fox twice), then "Fox." at byte 0.
    dog_and_fox = plot.encode().index(b"Dog and fox?")
    length_factor = 1.2 * (0.25 + 0.75 * 12 / 87)
    best = 2 * 2.2 / (1 + length_factor) * (1 + 1 / math.log(87 + dog_and_fox))
    length_factor = 1.2 * (0.25 + 0.75 * 34 / 87)
    second = (2 * 2.2 / (2 + length_factor) + 2.2 / (1 + length_factor)) * \
        (1 + 1 / math.log(87 + 5))
    third = 2.2 / (1 + 1.2 * (0.25 + 0.75 * 4 / 87)) * (1 + 1 / math.log(87))
    assert [h["texts"] for h in five[:3]] == [
        parts("", "Dog", " and ", "fox", "?"),
        parts("The ", "fox", " saw another ", "fox", " and a ", "dog", "!"),
        parts("", "Fox", ".")]
    assert [h["score"] for h in five[:3]] == pytest.approx([best, second, third], rel=1e-9)
    # Sentences ended by a tab or a newline lose it.
    assert [h["texts"] for h in five[3:]] == [parts("The ", "fox", " runs"),
                                              parts("Foxes are not a ", "fox", " here.")]
    for n in [1, 2, 8, 20]:
        got = highlights(stories, "stories", text("dog fox", "plot"),
                         {"path": "plot", "maxNumPassages": n})[2]
        assert_highlights(got, expected_highlights(STORIES[1], {"plot": among("dog", "fox")},
                                                   max_passages=n))
        assert len(got) == min(n, 8)


def test_each_string_of_an_array_is_a_value_of_its_own_and_paths_keep_the_documents_order(
        stories):
    searched = text("dog fox", ["title", "plot", "tags"])
    wanted = {p: among("dog", "fox") for p in ["title", "plot", "tags"]}
    first = STORIES[0]
    title_score = 2 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 19 / 87)) * (1 + 1 / math.log(87))
    for path in [["tags", "plot", "title"], {"wildcard": "*"}, ["tags", {"wildcard": "t*"},
                                                               "plot"]]:
        got = highlights(stories, "stories", searched, {"path": path})
        assert [(h["path"], h["texts"]) for h in got[1]] == [
            ("title", parts("The ", "Dog", " and the ", "Fox")),
            ("plot", parts("The ", "Dog", " barks at the ", "fox", ".")),
            ("tags", parts("", "dog")),
            ("tags", parts("", "Fox", " den"))]
        assert got[1][0]["score"] == pytest.approx(title_score, rel=1e-9)
        for doc in STORIES:
            assert_highlights(got[doc["_id"]], expected_highlights(doc, wanted))
    one_each = highlights(stories, "stories", searched, {"path": ["plot", "tags"],
                                                         "maxNumPassages": 1})
    assert_highlights(one_each[1], expected_highlights(first, {"plot": among("dog", "fox"),
                                                               "tags": among("dog", "fox")},
                                                       max_passages=1))
    assert [h["path"] for h in one_each[1]] == ["plot", "tags"]
    assert one_each[4] == [{"path": "tags", "texts": parts("", "dog"),
                            "score": pytest.approx(2.2 / (1 + 1.2 * (0.25 + 0.75 * 3 / 87)) *
                                                   (1 + 1 / math.log(87)), rel=1e-9)}]
    # A path is highlighted with the terms searched on it: tags hold "dog" but were not searched.
    plot_only = highlights(stories, "stories", text("dog fox", "plot"), {"path": "tags"})
    assert plot_only and all(h == [] for h in plot_only.values())


HIGHLIGHT_ENGLISH_DOCS = [
    {"_id": 1, "text": "The dogs were running in the park. A dog runs! Nothing to see."},
    {"_id": 2, "text": "Running late. The runner ran."},
    {"_id": 3, "text": "Cats and dogs"},
]


def test_hits_are_the_tokens_the_fields_analyzer_turns_into_a_searched_term(db):
    db.docs.insert_many(HIGHLIGHT_ENGLISH_DOCS)
    create_ready(db, "docs", static(text={"type": "string", "analyzer": "lucene.english"}))
    got = highlights(db, "docs", text("run the dog", "text"), {"path": "text"})
    assert sorted(got) == [1, 2, 3]
    assert [h["texts"] for h in got[1]] == [
        parts("A ", "dog", " ", "runs", "!"),
        parts("The ", "dogs", " were ", "running", " in the park.")]
    assert [h["texts"] for h in got[2]] == [parts("", "Running", " late.")]
    assert [h["texts"] for h in got[3]] == [parts("Cats and ", "dogs")]
    for doc in HIGHLIGHT_ENGLISH_DOCS:
        assert_highlights(got[doc["_id"]],
                          expected_highlights(doc, {"text": among("run", "dog")}, "english"))
    # Stop words are never hits, even when the query holds them.
    got = highlights(db, "docs", text("the and dogs", "text"), {"path": "text"})
    assert [h["texts"] for h in got[3]] == [parts("Cats and ", "dogs")]


def test_text_and_phrase_clauses_of_compound_give_hits_but_must_not_and_other_operators_none(db):
    docs = [{"_id": 1, "title": "Cat Tales", "year": 2001,
             "plot": "The quick brown fox. A black dog and a cat. Brown bread."},
            {"_id": 2, "title": "Cat", "year": 1990,
             "plot": "A brown fox met a black cat. The dog."}]
    db.docs.insert_many(docs)
    create_ready(db, "docs", DYNAMIC)
    query = {"compound": {"must": [phrase("brown fox", "plot")],
                          "filter": [text("dog", "plot")],
                          "mustNot": [phrase("black cat", "plot")],
                          "should": [range_("year", gte=2000), text("cat", "title")]}}
    got = highlights(db, "docs", query, {"path": ["plot", "title"]})
    assert list(got) == [1]
    assert [(h["path"], h["texts"]) for h in got[1]] == [
        ("title", parts("", "Cat", " Tales")),
        ("plot", parts("The quick ", "brown", " ", "fox", ".")),
        ("plot", parts("", "Brown", " bread.")),
        ("plot", parts("A black ", "dog", " and a cat."))]
    assert_highlights(got[1], expected_highlights(docs[0], {
        "title": among("cat"), "plot": among("brown", "fox", "dog")}))
    for operator in [range_("year", gte=0), exists("plot"), equals("year", 1990)]:
        got = highlights(db, "docs", operator, {"path": {"wildcard": "*"}})
        assert got and all(h == [] for h in got.values()), operator


def test_fuzzy_text_highlights_the_tokens_within_its_edit_distance(db):
    docs = [{"_id": 1, "plot": "The fox and the fix, six foxes and a fax."},
            {"_id": 2, "plot": "Nothing to fix here. Or there."}]
    db.docs.insert_many(docs)
    create_ready(db, "docs", DYNAMIC)
    got = highlights(db, "docs", text("fix", "plot", fuzzy={"maxEdits": 1}), {"path": "plot"})
    assert [h["texts"] for h in got[1]] == [
        parts("The ", "fox", " and the ", "fix", ", ", "six", " foxes and a ", "fax", ".")]
    assert [h["texts"] for h in got[2]] == [parts("Nothing to ", "fix", " here.")]
    def one_edit(term):
        return edit_distance(term, "fix") <= 1

    for doc in docs:
        assert_highlights(got[doc["_id"]], expected_highlights(doc, {"plot": one_edit}))
    got = highlights(db, "docs", text("fix", "plot", fuzzy={"maxEdits": 1, "prefixLength": 1}),
                     {"path": "plot"})
    assert [h["texts"] for h in got[1]] == [
        parts("The ", "fox", " and the ", "fix", ", six foxes and a ", "fax", ".")]


def test_max_chars_to_examine_counts_the_bytes_of_each_string(db):
    # "Ééé. " and "Ééé, " are 5 characters but 8 bytes.
    doc = {"_id": 1, "plot": "Ééé. Fox. Another fox.", "tags": ["fox", "Ééé, fox"]}
    db.docs.insert_one(doc)
    create_ready(db, "docs", DYNAMIC)
    searched = text("fox", ["plot", "tags"])
    fox = among("fox")
    for limit, plot_texts, tags_texts in [
            (8, [], [parts("", "fox")]),
            (12, [parts("", "Fox", ".")], [parts("", "fox"), parts("Ééé, ", "fox")]),
            (None, [parts("", "Fox", "."), parts("Another ", "fox", ".")],
             [parts("", "fox"), parts("Ééé, ", "fox")])]:
        option = {} if limit is None else {"maxCharsToExamine": limit}
        got = highlights(db, "docs", searched, {"path": ["plot", "tags"], **option})[1]
        assert [h["texts"] for h in got if h["path"] == "plot"] == plot_texts, limit
        assert [h["texts"] for h in got if h["path"] == "tags"] == tags_texts, limit
        assert_highlights(got, expected_highlights(doc, {"plot": fox, "tags": fox},
                                                   max_bytes=limit or 500000))
    assert highlights(db, "docs", searched, {"path": "plot", "maxCharsToExamine": 8}) == {1: []}


def test_malformed_highlight_options_answer_bad_value(stories):
    cases = [({"path": "plot", "maxNumPassages": 0}, 2, ""),
             ({"maxNumPassages": 2}, 2, ""),
             ({}, 2, ""),
             ({"path": "plot", "bogusOption": 1}, 2, ""),
             ({"path": {"value": "plot", "bogus": 1}}, 2, "bogus"),
             ({"path": {"wildcard": "p*", "value": "plot"}}, 2, "wildcard alone"),
             ({"path": []}, 2, ""),
             ({"path": ["plot", {"value": ""}]}, 2, "")]
    assert_errors(cases, lambda highlight: highlights(stories, "stories", text("fox", "plot"),
                                                      highlight))


# --- sub-pipelines ---------------------------------------------------------------------------

def test_union_with_runs_a_search_on_the_other_collection(movies):
    movies.base.insert_one({"_id": "base"})
    got = list(movies.base.aggregate([{"$unionWith": {"coll": "movies", "pipeline": [
        {"$search": text("fox dog", "plot")},
        {"$project": {"_id": 1, "score": {"$meta": "searchScore"}}},
        {"$limit": 3}]}}]))
    assert got[0] == {"_id": "base"}
    expected = ranked(movie_field("plot").text("fox dog"), MOVIES)[:3]
    assert_results([(d["_id"], d["score"]) for d in got[1:]], expected)


def test_union_with_may_start_with_a_vector_search(db):
    vectors = {1: [1.0, 0.0], 2: [0.6, 0.8], 3: [0.0, 1.0], 4: [-1.0, 0.2]}
    db.vecs.insert_many([{"_id": i, "v": v} for i, v in vectors.items()])
    create_ready(db, "vecs", {"fields": [{"type": "vector", "path": "v", "numDimensions": 2,
                                          "similarity": "euclidean"}]},
                 name="vec", type_="vectorSearch")
    db.base.insert_one({"_id": "base"})
    q = [0.9, 0.5]
    got = list(db.base.aggregate([{"$unionWith": {"coll": "vecs", "pipeline": [
        {"$vectorSearch": {"index": "vec", "path": "v", "queryVector": q, "numCandidates": 10,
                           "limit": 2}},
        {"$project": {"_id": 1}}]}}]))
    nearest = sorted(vectors, key=lambda i: sum((a - b) ** 2 for a, b in zip(q, vectors[i])))
    assert [d["_id"] for d in got] == ["base"] + nearest[:2]


def test_search_elsewhere_in_sub_pipelines_is_refused(movies):
    stage = {"$search": text("fox", "plot")}
    pipelines = [
        ([{"$unionWith": {"coll": "movies", "pipeline": [{"$match": {}}, stage]}}], 51047, ""),
        ([{"$lookup": {"from": "movies", "pipeline": [{"$match": {}}, stage], "as": "found"}}],
         51047, ""),
    ]
    assert_errors(pipelines, lambda pipeline: list(movies.movies.aggregate(pipeline)))


def test_a_lookup_sub_pipeline_may_start_with_search(movies):
    plot = movie_field("plot")
    expected = ranked(plot.text("fox"), MOVIES)
    movies.fans.insert_many([{"_id": "all"}, {"_id": "one", "favourite": expected[-1][0]},
                             {"_id": "none", "favourite": "no such movie"}])
    found = {d["_id"]: d for d in movies.fans.aggregate([
        {"$lookup": {"from": "movies", "as": "hits", "pipeline": [
            {"$search": text("fox", "plot")},
            {"$project": {"_id": 1, "score": {"$meta": "searchScore"}}}]}},
        {"$lookup": {"from": "movies", "as": "favourite_hit", "localField": "favourite",
                     "foreignField": "_id",
                     "pipeline": [{"$search": text("fox", "plot")}, {"$project": {"_id": 1}}]}},
        {"$lookup": {"from": "movies", "as": "meta",
                     "pipeline": [{"$searchMeta": {**text("fox", "plot"),
                                                   "count": {"type": "total"}}}]}}])}
    for fan in found.values():
        assert_results([(h["_id"], h["score"]) for h in fan["hits"]], expected)
        assert fan["meta"] == [{"count": {"total": len(expected)}}]
    assert found["one"]["favourite_hit"] == [{"_id": expected[-1][0]}]
    assert found["none"]["favourite_hit"] == []
    assert found["all"]["favourite_hit"] == []


# --- $searchMeta -----------------------------------------------------------------------------

def search_meta(db, coll, operator, index="default", **options):
    return list(db[coll].aggregate([{"$searchMeta": {"index": index, **operator, **options}}]))


def test_search_meta_counts_the_documents_the_operator_matches(movies):
    plot, tags = movie_field("plot"), movie_field("tags")
    for operator, matched in [(text("fox", "plot"), plot.text("fox")),
                              (text("fox dog", "plot", matchCriteria="all"),
                               plot.text("fox dog", match_all=True)),
                              (text("classic", "tags"), tags.text("classic")),
                              (text("zebra", "plot"), {}),
                              (exists("plot"), {d["_id"]: 1 for d in MOVIES})]:
        n = len(matched)
        assert search_meta(movies, "movies", operator, count={"type": "total"}) == \
            [{"count": {"total": n}}]
        assert search_meta(movies, "movies", operator) == [{"count": {"lowerBound": n}}]
        assert search_meta(movies, "movies", operator,
                           count={"type": "lowerBound", "threshold": 1000}) == \
            [{"count": {"lowerBound": n}}]
    assert search_meta(movies, "movies", text("fox", "plot"), index="missing") == \
        [{"count": {"lowerBound": 0}}]


def test_search_meta_may_start_a_union_with_sub_pipeline(movies):
    movies.base.insert_one({"_id": "base"})
    n = len(movie_field("plot").text("river dog"))
    got = list(movies.base.aggregate([{"$unionWith": {"coll": "movies", "pipeline": [
        {"$searchMeta": {**text("river dog", "plot"), "count": {"type": "total"}}}]}}]))
    assert got == [{"_id": "base"}, {"count": {"total": n}}]


def test_malformed_search_meta_stages(movies):
    def run(pipeline):
        return list(movies.movies.aggregate(pipeline))

    meta = {"$searchMeta": text("fox", "plot")}
    cases = [
        ([{"$searchMeta": {**text("fox", "plot"), "count": {"type": "exact"}}}], 2, ""),
        # A dynamic mapping holds strings as text, not as tokens a string facet counts.
        ([{"$searchMeta": {"facet": {"operator": text("fox", "plot"),
                                     "facets": {"t": {"type": "string", "path": "tags"}}}}}],
         2, "Cannot facet on field"),
        ([{"$match": {}}, meta], 40602, ""),
    ]
    assert_errors(cases, run)


# --- explain ---------------------------------------------------------------------------------

def test_explain_of_search_stages_answers_not_implemented(movies):
    movies.movies.update_many({}, {"$set": {"embedding": [1.0, 0.0]}})
    create_ready(movies, "movies", {"fields": [{"type": "vector", "path": "embedding",
                                                "numDimensions": 2, "similarity": "cosine"}]},
                 name="vectors", type_="vectorSearch")
    first_stages = [
        {"$search": text("fox", "plot")},
        {"$searchMeta": text("fox", "plot")},
        {"$vectorSearch": {"index": "vectors", "path": "embedding", "queryVector": [1.0, 0.0],
                           "numCandidates": 5, "limit": 2}},
    ]
    for stage in first_stages:
        code, message = error_of(lambda: movies.command(
            {"aggregate": "movies", "pipeline": [stage, {"$limit": 1}], "explain": True}))
        assert code == 238, (stage, message)
    plain = movies.command({"aggregate": "movies", "pipeline": [{"$match": {}}],
                            "explain": True})
    assert plain["ok"] == 1
# --- LangChain's retrievers ------------------------------------------------------------------

LANGCHAIN_DOCS = [
    {"_id": 1, "text": "MongoDB supports full text search", "source": "docs",
     "embedding": [0.2, 0.9, 0.1]},
    {"_id": 2, "text": "Full text search with BM25 ranks documents", "source": "blog",
     "embedding": [0.9, 0.1, 0.3]},
    {"_id": 3, "text": "Vector search finds similar embeddings", "source": "docs",
     "embedding": [0.7, 0.7, 0.0]},
    {"_id": 4, "text": "Search search search everywhere", "source": "docs",
     "embedding": [0.1, 0.2, 0.95]},
    {"_id": 5, "text": "Cooking pasta at home", "source": "blog",
     "embedding": [1.0, 0.0, 0.0]},
    {"_id": 6, "text": "Text messages and full inboxes", "source": "docs",
     "embedding": [0.5, 0.4, 0.6]},
]


def langchain_text_pipeline(index, query, field, filter_, k):
    """langchain_mongodb.pipelines.text_search_stage."""
    pipeline = [{"$search": {"index": index, "text": {"query": query, "path": field}}}]
    if filter_:
        pipeline.append({"$match": filter_})
    return pipeline + [{"$set": {"score": {"$meta": "searchScore"}}}, {"$limit": k}]


def reciprocal_rank_stages(score_field, penalty=60.0):
    """langchain_mongodb.pipelines.reciprocal_rank_stage."""
    return [
        {"$group": {"_id": None, "docs": {"$push": "$$ROOT"}}},
        {"$unwind": {"path": "$docs", "includeArrayIndex": "rank"}},
        {"$addFields": {f"docs.{score_field}": {"$divide": [1.0, {"$add": ["$rank", penalty, 1]}]},
                        "docs.rank": "$rank", "_id": "$docs._id"}},
        {"$replaceRoot": {"newRoot": "$docs"}},
    ]


@pytest.fixture
def langchain(db):
    db.lc.insert_many(LANGCHAIN_DOCS)
    # langchain_mongodb.index.create_fulltext_search_index's definition
    create_ready(db, "lc", static(text=[{"type": "string"}]), name="fulltext_index")
    return db


def test_langchains_full_text_retriever_pipeline(langchain):
    bm25 = Field(LANGCHAIN_DOCS, "text").text("full text search")
    docs_only = {i: s for i, s in bm25.items() if LANGCHAIN_DOCS[i - 1]["source"] == "docs"}
    expected = ranked(docs_only, LANGCHAIN_DOCS)[:2]
    got = list(langchain.lc.aggregate(langchain_text_pipeline(
        "fulltext_index", "full text search", "text", {"source": "docs"}, 2)))
    assert_results([(d["_id"], d["score"]) for d in got], expected)
    for doc in got:
        original = LANGCHAIN_DOCS[doc["_id"] - 1]
        assert (doc["text"], doc["source"]) == (original["text"], original["source"])


def test_langchains_hybrid_retriever_fuses_vector_and_text_ranks(langchain):
    create_ready(langchain, "lc", {"fields": [{"type": "vector", "path": "embedding",
                                               "numDimensions": 3, "similarity": "cosine"}]},
                 name="vector_index", type_="vectorSearch")
    q, query, k = [0.3, 0.8, 0.4], "full text search", 4
    pipeline = [{"$vectorSearch": {"index": "vector_index", "path": "embedding",
                                   "queryVector": q, "numCandidates": k * 10, "limit": k}}]
    pipeline += reciprocal_rank_stages("vector_score")
    text_pipeline = langchain_text_pipeline("fulltext_index", query, "text", None, k)
    pipeline.append({"$unionWith": {"coll": "lc", "pipeline": text_pipeline +
                                    reciprocal_rank_stages("fulltext_score")}})
    scores_fields = ["vector_score", "fulltext_score"]
    pipeline += [  # langchain_mongodb.pipelines.final_hybrid_stage
        {"$group": {"_id": "$_id", "docs": {"$mergeObjects": "$$ROOT"}}},
        {"$replaceRoot": {"newRoot": "$docs"}},
        {"$set": {f: {"$ifNull": [f"${f}", 0]} for f in scores_fields}},
        {"$addFields": {"score": {"$add": [f"${f}" for f in scores_fields]}}},
        {"$sort": {"score": -1}},
        {"$limit": k},
        {"$project": {"embedding": 0}},
    ]
    got = list(langchain.lc.aggregate(pipeline))

    def cosine(v):
        return sum(a * b for a, b in zip(q, v)) / math.sqrt(sum(a * a for a in v))

    by_vector = sorted(LANGCHAIN_DOCS, key=lambda d: -cosine(d["embedding"]))[:k]
    by_text = ranked(Field(LANGCHAIN_DOCS, "text").text(query), LANGCHAIN_DOCS)[:k]
    fused = add({d["_id"]: 1 / (rank + 61) for rank, d in enumerate(by_vector)},
                {doc_id: 1 / (rank + 61) for rank, (doc_id, _) in enumerate(by_text)})
    assert len(set(fused.values())) == len(fused)  # no ties, so one right order
    expected = sorted(fused.items(), key=lambda item: -item[1])[:k]
    assert_results([(d["_id"], d["score"]) for d in got], expected)
    assert all("embedding" not in d and "text" in d for d in got)


# --- restarts --------------------------------------------------------------------------------

def test_search_indexes_answer_the_same_after_a_restart_and_a_crash(own_server):
    later = {"_id": 9, "title": "Fox Later", "plot": "a quick brown fox arrives after the build",
             "tags": ["fox"]}
    docs = MOVIES + [later]
    title, plot = Field(docs, "title"), Field(docs, "plot")
    fox, hounds = plot.text("fox"), title.text("hound")
    queries = [  # (index, operator, expected answer)
        ("default", text("fox river", ["title", "plot"]),
         ranked(add(title.text("fox river"), plot.text("fox river")), docs)),
        ("default", phrase("quick brown", "plot"), ranked(plot.phrase("quick brown"), docs)),
        ("default", {"compound": {"must": text("fox", "plot"), "mustNot": text("hound", "title")}},
         ranked({i: s for i, s in fox.items() if i not in hounds}, docs)),
        ("english", text("runs dogs", "plot"),
         ranked(Field(docs, "plot", english).text("runs dogs"), docs)),
    ]

    def check(db):
        for index, operator, expected in queries:
            assert_results(search(db, "movies", operator, index=index), expected)

    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as client:
        db = client.fts
        db.movies.insert_many(MOVIES)
        create_ready(db, "movies", DYNAMIC)
        create_ready(db, "movies", {"analyzer": "lucene.english",
                                    "mappings": {"dynamic": False, "fields": {"plot": STRING}}},
                     name="english")
        db.movies.insert_one(dict(later))  # indexed as a write, not by the build
        check(db)
    for crash in (False, True):
        own_server.restart(crash=crash)
        with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as client:
            for name in ("default", "english"):
                wait_ready(client.fts, "movies", name=name)
            check(client.fts)

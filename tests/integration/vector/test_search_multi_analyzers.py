"""Atlas Search's `multi` analyzers against a real quarryd: a string field mapped with
`multi: {<name>: {type: "string", analyzer, searchAnalyzer}}` holds its strings analyzed once
more per name, each a field of its own with its own BM25 statistics, which the `text`, `phrase`,
`wildcard` and `regex` operators search through the path `{value: <field>, multi: <name>}`
(alone, or in a path array beside plain paths).

Covered: what each analysis finds (English stems, whole keyword values, a multi whose
searchAnalyzer differs from its analyzer, a multi falling back to the index's analyzer, a custom
analyzer), paths mixing plain and multi fields, wildcard paths (which never search a multi),
compound, embeddedDocument, $searchMeta, highlights, writes, a restart, and the errors of
definitions and queries.

Most expected answers come from an equivalence: over the same documents, a multi scores as the
field itself mapped with that multi's analyzers in another index (two indexes on one collection,
so the documents are the same). test_the_multi_fields_scores_are_bm25_over_their_own_terms
anchors that to BM25 computed here from the English analysis of the titles.
"""
import copy

import pymongo
import pytest

from quarry_server import CLIENT_OPTIONS
from test_full_text_search import (DYNAMIC, LUCENE_ENGLISH_STOP_WORDS, PORTER_STEMS, STRING,
                                   Field, add, assert_errors, assert_highlights, create_index,
                                   create_ready, equals, error_of, exists, highlights, ids, in_,
                                   phrase, range_, ranked, search, search_meta, standard, static,
                                   text, wait_ready)
from test_vector_search import list_indexes

NOT_IMPLEMENTED, BAD_VALUE = 238, 2

MOVIES = [
    {"_id": 1, "title": "The Matrix", "plot": "A hacker learns that his world is a simulation",
     "info": {"tagline": "Free your mind"}},
    {"_id": 2, "title": "The Matrix Reloaded",
     "plot": "The hacker runs from the agents of the simulation",
     "info": {"tagline": "Running out of time"}},
    {"_id": 3, "title": "Running Man", "plot": "A man runs for his life in a deadly game show"},
    {"_id": 4, "title": "Run Lola Run", "plot": "Lola runs across the city to save her friend",
     "info": {"tagline": "Every second counts"}},
    {"_id": 5, "title": "Dogs and Foxes", "plot": "Running dogs chase the foxes through the city"},
    {"_id": 6, "title": "A Dog's Life", "plot": "A dog lives in the city with a tramp",
     "info": {"tagline": "Dogs run free"}},
    {"_id": 7, "title": "THE MATRIX", "plot": "A remake nobody asked for"},
    {"_id": 8, "title": ["The Matrix Revisited", "Matrix Runs"],
     "plot": "A documentary about the matrix films"},
    {"_id": 9, "title": "Jumping Foxes", "plot": "Foxes jumped over the lazy dogs"},
    {"_id": 10, "plot": "A film without a title about running"},
    {"_id": 11, "title": 42, "plot": "The answer"},
    {"_id": 12, "title": "The", "plot": "Only a stop word for a title"},  # no English terms
    {"_id": 13, "title": "Runs", "plot": "A short film about runs and runners"},
]

ENGLISH = {"type": "string", "analyzer": "lucene.english"}
KEYWORD = {"type": "string", "analyzer": "lucene.keyword"}
# Stems in the index, but queries split and lowercased only: "running" finds nothing, "run" does.
STEMS = {"type": "string", "analyzer": "lucene.english", "searchAnalyzer": "lucene.standard"}
TITLE = {"type": "string", "analyzer": "lucene.standard",
         "multi": {"english": ENGLISH, "keyword": KEYWORD, "stems": STEMS}}
TAGLINE = {"type": "string", "multi": {"english": ENGLISH}}


def info(tagline):
    return {"type": "document", "fields": {"tagline": tagline}}


INDEXES = {  # name -> definition, all on MOVIES
    # The index under test.
    "default": static(title=TITLE, plot=STRING, info=info(TAGLINE)),
    # The same fields without multi, and the title (and tagline) mapped as each multi is.
    "standard": static(title={"type": "string", "analyzer": "lucene.standard"}, plot=STRING,
                       info=info(STRING)),
    "english": static(title=ENGLISH, plot=STRING, info=info(ENGLISH)),
    "keyword": static(title=KEYWORD, plot=STRING, info=info(STRING)),
    "stems": static(title=STEMS, plot=STRING, info=info(STRING)),
    # A dynamic root with a mapped multi field, and its twin without.
    "dynamic_multi": {"mappings": {"dynamic": True, "fields": {"title": TITLE}}},
    "dynamic": DYNAMIC,
}

DATABASE = "t_search_multi_analyzers"


def multi(name, field="title"):
    return {"value": field, "multi": name}


EN, KW, ST = multi("english"), multi("keyword"), multi("stems")
TAGLINE_EN = multi("english", "info.tagline")


def wildcard(query, path, **options):
    return {"wildcard": {"query": query, "path": path, "allowAnalyzedField": True, **options}}


def regex(query, path, **options):
    return {"regex": {"query": query, "path": path, "allowAnalyzedField": True, **options}}


def compound(must=(), should=(), must_not=(), filter_=(), **options):
    clauses = {"must": must, "should": should, "mustNot": must_not, "filter": filter_}
    return {"compound": {**{k: list(v) for k, v in clauses.items() if v}, **options}}


def plain(operator):
    """`operator` with each multi path {value, multi} replaced by its field's plain path."""
    if isinstance(operator, dict):
        if set(operator) == {"value", "multi"}:
            return operator["value"]
        return {k: plain(v) for k, v in operator.items()}
    if isinstance(operator, list):
        return [plain(v) for v in operator]
    return operator


def assert_same(got, want):
    """Same _ids in the same order, scores equal to within rel=1e-6."""
    assert ids(got) == ids(want)
    assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-6)


def found(db, operator, index="default"):
    return search(db, "movies", operator, index=index)


def found_ids(db, operator, index="default"):
    return sorted(ids(found(db, operator, index=index)))


def outcome(db, operator, index="default"):
    """found(), or ("error", code) when the search fails."""
    try:
        return found(db, operator, index=index)
    except pymongo.errors.OperationFailure as e:
        return ("error", e.code)


# --- the English analysis of the titles, for the anchor --------------------------------------

# Porter's stems of the title words beyond test_full_text_search's; others are their own stems.
TITLE_STEMS = {**PORTER_STEMS, "reloaded": "reload", "revisited": "revisit"}


def english(value):
    terms = []
    for word in standard(value):
        word = word[:-2] if word.endswith("'s") else word
        terms.append(None if word in LUCENE_ENGLISH_STOP_WORDS else TITLE_STEMS.get(word, word))
    return terms


def keyword(value):
    return [value]


# --- fixture ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def movies(client):
    """One database for the module: MOVIES under every index of INDEXES."""
    client.drop_database(DATABASE)
    db = client[DATABASE]
    db.movies.insert_many(copy.deepcopy(MOVIES))
    for name, definition in INDEXES.items():
        create_ready(db, "movies", definition, name=name)
    yield db
    client.drop_database(DATABASE)


def test_the_definitions_are_listed_as_given(movies):
    for index, definition in INDEXES.items():
        (listed,) = list_indexes(movies, "movies", name=index)
        assert listed["latestDefinition"] == definition, index
        assert listed["status"] == "READY" and listed["queryable"] is True


# --- the point: each multi finds what its own analysis makes of the strings ------------------

FOUND = [  # operator, the MOVIES it finds (worked out by hand)
    # English stems: running, runs and run are one term; the standard title keeps them apart.
    (text("running", EN), [3, 4, 8, 13]),
    (text("running", "title"), [3]),
    (text("dogs", EN), [5, 6]),  # "Dog's" loses its possessive, "Dogs" its plural
    (text("dogs", "title"), [5]),
    (text("jumped fox", EN), [5, 9]),
    (text("jumped fox", "title"), []),
    (text("the", EN), []),  # a stop word
    (text("the", "title"), [1, 2, 7, 8, 12]),
    # Keyword: the whole value, case and all; each string of an array is a value.
    (text("The Matrix", KW), [1]),
    (text("THE MATRIX", KW), [7]),
    (text("Matrix Runs", KW), [8]),
    (text("Matrix", KW), []),
    (text("the matrix", KW), []),
    (text("The Matrix", "title"), [1, 2, 7, 8, 12]),
    # Indexed as English stems, queried as standard words.
    (text("running", ST), []),
    (text("Run", ST), [3, 4, 8, 13]),
    (text("dogs", ST), []),
    (text("dog", ST), [5, 6]),
    # A multi of a sub-document's field.
    (text("running", TAGLINE_EN), [2, 6]),
    (text("running", "info.tagline"), [2]),
    # Phrases, wildcards and regular expressions over the multi's terms.
    (phrase("dog life", EN), [6]),
    (phrase("dog life", "title"), []),
    (phrase("run lola runs", EN), [4]),
    (phrase("The Matrix", KW), [1]),
    (wildcard("run*", EN), [3, 4, 8, 13]),
    (wildcard("runn*", EN), []),
    (wildcard("runn*", "title"), [3]),
    (wildcard("The Matrix*", KW), [1, 2, 8]),
    (wildcard("*MATRIX", KW), [7]),
    (regex("dog('s)?", EN), [5, 6]),
    (regex("dog('s)?", "title"), [6]),
    (regex("The Matrix.*", KW), [1, 2, 8]),
    # A path array: the documents either path finds.
    (text("running", ["plot", EN]), [3, 4, 5, 8, 10, 13]),
    (text("free running", [TAGLINE_EN, "title"]), [1, 2, 3, 6]),
]


@pytest.mark.parametrize("operator,expected", FOUND, ids=[str(n) for n in range(len(FOUND))])
def test_each_multi_finds_what_its_analyzer_makes_of_the_strings(movies, operator, expected):
    assert found_ids(movies, operator) == expected


# --- equivalences: a multi scores as the field mapped with its analyzers ---------------------

EQUIVALENCES = [  # operator with multi paths on "default", the index mapping them plainly
    (text("running", EN), "english"),
    (text("run", EN), "english"),
    (text("Dogs RUNNING", EN), "english"),
    (text("Dog's", EN), "english"),
    (text("matrix", EN), "english"),
    (text("the matrix reloaded", EN), "english"),
    (text("foxes jumping life", EN), "english"),
    (text("matrix running", EN, matchCriteria="all"), "english"),
    (text("matrx", EN, fuzzy={"maxEdits": 1}), "english"),
    (text("runing dog", EN, fuzzy={"maxEdits": 2, "prefixLength": 1}), "english"),
    (text("running", EN, score={"boost": {"value": 3}}), "english"),
    (text("running", EN, score={"constant": {"value": 2}}), "english"),
    (text(["running", "foxes"], EN), "english"),
    (text("running", ["plot", EN]), "english"),
    (text("dogs city", [EN, "plot"]), "english"),
    (text("running free", [EN, TAGLINE_EN]), "english"),
    (text("runs", TAGLINE_EN), "english"),
    (phrase("matrix reloaded", EN), "english"),
    (phrase("the matrix", EN), "english"),
    (phrase("a dog's life", EN), "english"),
    (phrase("run run", EN, slop=1), "english"),
    (phrase("running dogs", ["plot", EN]), "english"),
    (wildcard("run*", EN), "english"),
    (wildcard("Matr?x", EN), "english"),
    (wildcard("*o*", EN), "english"),
    (wildcard("fox", ["plot", EN]), "english"),
    (regex("run.*", EN), "english"),
    (regex("(dog|fox)", EN), "english"),
    (regex("[a-z]+", [EN, "plot"]), "english"),
    (text("The Matrix", KW), "keyword"),
    (text("Matrix Runs", KW), "keyword"),
    (text(["The Matrix", "THE MATRIX", "Runs"], KW), "keyword"),
    (text("The Matrix", ["plot", KW]), "keyword"),
    (phrase("The Matrix Reloaded", KW), "keyword"),
    (wildcard("The Matrix*", KW), "keyword"),
    (wildcard("*Run*", KW), "keyword"),
    (regex("The Matrix.*", KW), "keyword"),
    (regex(".*[Rr]un.*", KW), "keyword"),
    (text("run", ST), "stems"),
    (text("Dog run", ST), "stems"),
    (phrase("matrix reload", ST), "stems"),
    (wildcard("run*", ST), "stems"),
    (compound(must=[text("running", EN)], must_not=[text("man", "plot")]), "english"),
    (compound(should=[text("dogs", EN), phrase("the city", "plot")], minimumShouldMatch=1),
     "english"),
    (compound(must=[text("city", "plot")], filter_=[wildcard("run*", EN)]), "english"),
    (compound(should=[text("matrix", EN), text("hacker", "plot")],
              must_not=[compound(must=[regex("reload", EN)])]), "english"),
]


@pytest.mark.parametrize("operator,index", EQUIVALENCES,
                         ids=[str(n) for n in range(len(EQUIVALENCES))])
def test_a_multi_scores_as_the_field_mapped_with_its_analyzers(movies, operator, index):
    want = found(movies, plain(operator), index=index)
    assert want, "the equivalence is only worth something if it finds documents"
    assert_same(found(movies, operator), want)


@pytest.mark.parametrize("operator,index", [
    (text("the", EN), "english"),
    (text("running", ST), "stems"),
    (text("the matrix", KW), "keyword"),
    (wildcard("runn*", EN), "english"),
    (regex("dog's", EN), "english"),
    (phrase("man running", EN), "english"),
], ids=["stop word", "searched as standard", "keyword case", "wildcard", "regex", "phrase"])
def test_a_multi_finds_nothing_where_the_field_mapped_alike_finds_nothing(movies, operator,
                                                                         index):
    assert found(movies, plain(operator), index=index) == []
    assert found(movies, operator) == []


def test_a_multi_needs_allow_analyzed_field_as_the_field_mapped_alike_does(movies):
    """Without allowAnalyzedField, wildcard and regex refuse an analyzed multi and accept a
    keyword one, exactly as they treat the field mapped with that analyzer."""
    cases = [("english", EN), ("keyword", KW), ("stems", ST)]
    for index, path in cases:
        for op, query in [("wildcard", "*Matrix*"), ("regex", ".*Matrix.*")]:
            operator = {op: {"query": query, "path": path}}
            assert outcome(movies, operator) == outcome(movies, plain(operator), index=index), \
                (op, index)
    for op in ["wildcard", "regex"]:
        code, message = error_of(lambda: found(movies, {op: {"query": "run.*", "path": EN}}))
        assert code == BAD_VALUE and "allowAnalyzedField" in message and "title" in message
        assert "\x00" not in message, f"the error names an internal path: {message!r}"
    assert ids(found(movies, {"wildcard": {"query": "The Matrix*", "path": KW}})) == [1, 2, 8]


def test_plain_and_multi_paths_of_one_field_add_up_with_their_own_statistics(movies):
    """A path array holding the field and its multis sums each analysis' score, each computed
    with its own statistics (as the indexes mapping the title one way each compute it)."""
    for query in ["running", "The Matrix", "dogs matrix", "Matrix Runs"]:
        want = add(dict(found(movies, text(query, "title"), index="standard")),
                   dict(found(movies, text(query, "title"), index="english")),
                   dict(found(movies, text(query, "title"), index="keyword")))
        assert want, query
        assert_same(found(movies, text(query, ["title", EN, KW])), ranked(want, MOVIES))
    # A wildcard scores 1 per path that matches: here the standard and the English titles.
    got = found(movies, wildcard("matr*", ["title", EN, KW]))
    assert got == [(1, 2.0), (2, 2.0), (7, 2.0), (8, 2.0)]
    got = dict(found(movies, wildcard("run", ["title", EN])))
    assert got == {3: 1.0, 4: 2.0, 8: 1.0, 13: 1.0}  # only 4 holds the word "run" itself


def test_the_multi_fields_scores_are_bm25_over_their_own_terms(movies):
    """Anchors the equivalences: the English multi holds Porter's stems without stop words, and
    its statistics are its own (12 has only a stop word: no English terms, no document there),
    not those of the standard title that holds the same strings."""
    titles, english_titles = Field(MOVIES, "title"), Field(MOVIES, "title", english)
    assert (titles.n_docs, english_titles.n_docs) == (11, 10)
    for query in ["running", "dogs", "matrix", "the matrix reloaded", "lola life jumping"]:
        want = ranked(english_titles.text(query), MOVIES)
        assert want, query
        assert_same(found(movies, text(query, EN)), want)
        assert_same(found(movies, text(query, "title"), index="english"), want)
    for query in ["dog life", "run lola run", "matrix"]:
        assert_same(found(movies, phrase(query, EN)), ranked(english_titles.phrase(query), MOVIES))
    # One term, one set of documents, two scores: the average lengths differ.
    matrix, english_matrix = titles.text("matrix"), english_titles.text("matrix")
    assert set(matrix) == set(english_matrix) == {1, 2, 7, 8}
    assert_same(found(movies, text("matrix", "title")), ranked(matrix, MOVIES))
    assert dict(found(movies, text("matrix", EN)))[1] != pytest.approx(matrix[1], rel=1e-3)
    # Keyword: one term per string.
    whole = Field(MOVIES, "title", keyword)
    for query in ["The Matrix", "Runs"]:
        assert_same(found(movies, text(query, KW)), ranked(whole.text(query), MOVIES))


# --- wildcard paths name the fields' own analysis --------------------------------------------

WILDCARD_PATHS = [
    text("running dogs", {"wildcard": "*"}),
    text("the matrix", {"wildcard": "*"}),
    text("running", {"wildcard": "t*"}),
    text("running", {"wildcard": "info.*"}),
    text("running", ["plot", {"wildcard": "ti*"}]),
    phrase("the matrix", {"wildcard": "*"}),
    wildcard("run*", {"wildcard": "*"}),
    regex("matrix|runs", {"wildcard": "*"}),
]


@pytest.mark.parametrize("operator", WILDCARD_PATHS,
                         ids=[str(n) for n in range(len(WILDCARD_PATHS))])
def test_a_wildcard_path_searches_no_multi(movies, operator):
    want = found(movies, operator, index="standard")
    assert want
    assert_same(found(movies, operator), want)
    assert_same(found(movies, operator, index="dynamic_multi"),
                found(movies, operator, index="dynamic"))


def test_exists_finds_the_fields_own_strings_only(movies):
    # (Not compared on the dynamic index, which also holds 11's number.)
    for path in ["title", "info.tagline", "info"]:
        want = found(movies, exists(path), index="standard")
        assert want
        assert_same(found(movies, exists(path)), want)


def test_a_keyword_multi_does_not_let_a_wildcard_path_skip_allow_analyzed_field(movies):
    operator = {"wildcard": {"query": "The Matrix", "path": {"wildcard": "*"}}}
    assert outcome(movies, operator) == outcome(movies, operator, index="standard")
    assert outcome(movies, operator)[0] == "error"


def test_a_dynamic_root_keeps_a_mapped_fields_multis(movies):
    for operator, index in [(text("running", EN), "english"), (phrase("dog life", EN), "english"),
                            (wildcard("run*", EN), "english"), (text("The Matrix", KW), "keyword")]:
        want = found(movies, plain(operator), index=index)
        assert want, operator
        assert_same(found(movies, operator, index="dynamic_multi"), want)
    # The dynamically mapped plot is there, with the statistics of the dynamic index.
    assert_same(found(movies, text("running", ["plot", EN]), index="dynamic_multi"),
                ranked(add(dict(found(movies, text("running", "plot"), index="dynamic")),
                           dict(found(movies, text("running", "title"), index="english"))),
                       MOVIES))


# --- $searchMeta and highlights --------------------------------------------------------------

def test_search_meta_counts_the_documents_a_multi_matches(movies):
    for operator, n in [(text("running", EN), 4), (text("running", "title"), 1),
                        (text("The Matrix", KW), 1), (text("running", ["plot", EN]), 6),
                        (compound(must=[wildcard("run*", EN)],
                                  must_not=[text("lola", "plot")]), 3),
                        (text("the", EN), 0)]:
        assert search_meta(movies, "movies", operator, count={"type": "total"}) == \
            [{"count": {"total": n}}], operator
        assert search_meta(movies, "movies", operator) == [{"count": {"lowerBound": n}}]


def test_highlights_of_plain_paths_show_the_terms_searched_on_them(movies):
    # The plots are searched plainly, the titles through their English multi: the plot
    # highlights are those of the plain search, and a movie found by its title has none.
    got = highlights(movies, "movies", text("running", ["plot", EN]), {"path": "plot"})
    plain_plots = highlights(movies, "movies", text("running", "plot"), {"path": "plot"})
    assert sorted(got) == [3, 4, 5, 8, 10, 13] and sorted(plain_plots) == [5, 10]
    for doc_id, passages in got.items():
        assert_highlights(passages, plain_plots.get(doc_id, []))
    assert any(plain_plots.values())
    # The title's own analysis was not searched: no hits in it, by the stems or otherwise.
    for path in ["title", {"wildcard": "*"}, ["title", "plot"]]:
        got = highlights(movies, "movies", text("running", EN), {"path": path})
        assert sorted(got) == [3, 4, 8, 13] and all(h == [] for h in got.values()), path
    # A search of both shows the standard title's hits only.
    got = highlights(movies, "movies", text("running", ["title", EN]), {"path": "title"})
    assert sorted(got) == [3, 4, 8, 13]
    assert [h["texts"] for h in got[3]] == [[{"value": "Running", "type": "hit"},
                                             {"value": " Man", "type": "text"}]]
    assert got[4] == got[8] == got[13] == []


def test_highlighting_a_multi_answers_not_implemented(movies):
    cases = [({"path": EN}, NOT_IMPLEMENTED, "multi"),
             ({"path": ["plot", EN]}, NOT_IMPLEMENTED, "multi"),
             ({"path": KW}, NOT_IMPLEMENTED, "multi")]
    assert_errors(cases, lambda highlight: highlights(movies, "movies", text("running", EN),
                                                      highlight))


# --- errors ----------------------------------------------------------------------------------

def test_a_multi_the_field_does_not_define_answers_bad_value(movies):
    nope = multi("nope")
    cases = [
        (text("running", nope), BAD_VALUE, "nope"),
        (text("running", ["plot", nope]), BAD_VALUE, "nope"),
        (text("running", [EN, nope]), BAD_VALUE, "nope"),
        (phrase("dog life", nope), BAD_VALUE, "nope"),
        (wildcard("run*", nope), BAD_VALUE, "nope"),
        (regex("run.*", nope), BAD_VALUE, "nope"),
        (compound(must=[text("city", "plot")], should=[text("running", nope)]), BAD_VALUE,
         "nope"),
        (compound(must=[compound(filter_=[text("running", nope)])]), BAD_VALUE, "nope"),
        # Fields without multis: plot is mapped plainly, nothing maps the others.
        (text("running", multi("english", "plot")), BAD_VALUE, "english"),
        (text("running", multi("english", "info")), BAD_VALUE, "english"),
        (text("running", multi("english", "nosuch")), BAD_VALUE, "english"),
        # The names are the field's own: the tagline has no keyword multi.
        (text("running", multi("keyword", "info.tagline")), BAD_VALUE, "keyword"),
        # Case matters.
        (text("running", multi("English")), BAD_VALUE, "English"),
    ]
    assert_errors(cases, lambda operator: found(movies, operator))
    assert_errors([(text("running", EN), BAD_VALUE, "english")],
                  lambda operator: found(movies, operator, index="english"))
    assert_errors([(text("running", EN), BAD_VALUE, "english")],
                  lambda operator: found(movies, operator, index="dynamic"))
    assert_errors([(text("running", nope), BAD_VALUE, "nope")],
                  lambda operator: search_meta(movies, "movies", operator))
    for operator, *_ in cases:
        message = error_of(lambda: found(movies, operator))[1]
        assert "\x00" not in message, f"the error names an internal path: {message!r}"


def test_malformed_multi_paths_answer_bad_value(movies):
    cases = [
        (text("running", {"wildcard": "*", "multi": "english"}), BAD_VALUE, ""),
        (text("running", {"wildcard": "t*", "multi": "english"}), BAD_VALUE, ""),
        (text("running", {"value": "title", "multi": "english", "wildcard": "*"}), BAD_VALUE,
         ""),
        (text("running", {"value": "title", "multi": ""}), BAD_VALUE, ""),
        (text("running", {"value": "title", "multi": 5}), BAD_VALUE, ""),
        (text("running", {"value": "title", "multi": None}), BAD_VALUE, ""),
        (text("running", {"value": "title", "multi": ["english"]}), BAD_VALUE, ""),
        (text("running", {"value": "title", "multi": {"name": "english"}}), BAD_VALUE, ""),
        (text("running", {"value": "title", "multi": "english", "foo": 1}), BAD_VALUE, "foo"),
        (text("running", {"multi": "english"}), BAD_VALUE, ""),
        (text("running", {"value": 5, "multi": "english"}), BAD_VALUE, ""),
        (text("running", ["plot", {"value": "title", "multi": 5}]), BAD_VALUE, ""),
        (phrase("dog life", {"value": "title", "multi": ""}), BAD_VALUE, ""),
        (wildcard("run*", {"wildcard": "*", "multi": "english"}), BAD_VALUE, ""),
        (regex("run.*", {"value": "title", "multi": "english", "foo": 1}), BAD_VALUE, "foo"),
    ]
    assert_errors(cases, lambda operator: found(movies, operator))


def test_operators_that_take_no_multi_answer_bad_value(movies):
    cases = [
        ({"autocomplete": {"query": "run", "path": EN}}, BAD_VALUE, "multi"),
        (equals(EN, "The Matrix"), BAD_VALUE, ""),
        (range_(EN, gte="a"), BAD_VALUE, ""),
        (in_(EN, ["The Matrix"]), BAD_VALUE, ""),
        (exists(EN), BAD_VALUE, ""),
        ({"near": {"path": EN, "origin": 5, "pivot": 1}}, BAD_VALUE, ""),
        ({"queryString": {"defaultPath": EN, "query": "running"}}, BAD_VALUE, ""),
        (compound(must=[text("running", EN)], filter_=[exists(KW)]), BAD_VALUE, ""),
    ]
    assert_errors(cases, lambda operator: found(movies, operator))


def test_invalid_multi_definitions_are_refused(db):
    db.create_collection("docs")

    def title(**multis):
        return static(title={"type": "string", "multi": multis})

    cases = [
        (title(e={"type": "token"}), BAD_VALUE, "type"),
        (title(e={"type": "autocomplete"}), BAD_VALUE, "type"),
        (title(e={"analyzer": "lucene.english"}), BAD_VALUE, "type"),
        (title(e={"type": 5}), BAD_VALUE, "type"),
        (title(e={**ENGLISH, "multi": {"f": KEYWORD}}), BAD_VALUE, "multi"),
        (title(e={"type": "string", "analyzer": "myAnalyzer"}), BAD_VALUE, "myAnalyzer"),
        (title(e={"type": "string", "searchAnalyzer": "custom"}), BAD_VALUE, "custom"),
        (title(e={"type": "string", "analyzer": "lucene.arabic"}), NOT_IMPLEMENTED,
         "lucene.arabic"),
        (title(e={"type": "string", "searchAnalyzer": "lucene.cjk"}), NOT_IMPLEMENTED,
         "lucene.cjk"),
        (title(e={**ENGLISH, "foo": 1}), BAD_VALUE, "foo"),
        (title(e=ENGLISH, k={**KEYWORD, "bogus": True}), BAD_VALUE, "bogus"),
        (title(e="lucene.english"), BAD_VALUE, ""),
        (title(**{"": ENGLISH}), BAD_VALUE, ""),
        (static(title={"type": "string", "multi": "english"}), BAD_VALUE, "multi"),
        (static(title={"type": "string", "multi": [ENGLISH]}), BAD_VALUE, "multi"),
        (static(title={"type": "token", "multi": {"e": ENGLISH}}), BAD_VALUE, "multi"),
        (static(title={"type": "autocomplete", "multi": {"e": ENGLISH}}), BAD_VALUE, "multi"),
        (static(items={"type": "embeddedDocuments", "fields": {
            "name": {"type": "string", "multi": {"e": {"type": "token"}}}}}), BAD_VALUE, "type"),
    ]
    assert_errors(cases, lambda definition: create_index(db, "docs", definition))
    assert list_indexes(db, "docs") == []


# --- where the analyzers come from -----------------------------------------------------------

def test_a_multi_without_analyzers_takes_the_indexs_and_a_custom_one_may_be_named(db):
    docs = [{"_id": 1, "t": "Running Dogs"}, {"_id": 2, "t": "a dog runs"},
            {"_id": 3, "t": "<b>RUN</b> away"}, {"_id": 4, "t": "Nothing here"}]
    db.docs.insert_many(copy.deepcopy(docs))
    tags = [{"name": "htmlText", "charFilters": [{"type": "htmlStrip"}],
             "tokenizer": {"type": "standard"}, "tokenFilters": [{"type": "lowercase"}]}]
    # The field is whole values; its multis: one naming nothing, one a custom analyzer.
    create_ready(db, "docs", {
        "analyzer": "lucene.english", "analyzers": tags,
        "mappings": {"dynamic": False, "fields": {"t": {
            "type": "string", "analyzer": "lucene.keyword",
            "multi": {"inherited": {"type": "string"},
                      "html": {"type": "string", "analyzer": "htmlText"}}}}}})
    create_ready(db, "docs", {"analyzer": "lucene.english", "mappings": {
        "dynamic": False, "fields": {"t": {"type": "string"}}}}, name="english")
    create_ready(db, "docs", {"analyzers": tags, "mappings": {
        "dynamic": False, "fields": {"t": {"type": "string", "analyzer": "htmlText"}}}},
        name="html")
    inherited, html = multi("inherited", "t"), multi("html", "t")
    assert sorted(ids(search(db, "docs", text("running", inherited)))) == [1, 2, 3]
    assert sorted(ids(search(db, "docs", text("run", html)))) == [3]
    assert sorted(ids(search(db, "docs", text("b", html)))) == []
    assert search(db, "docs", text("running", "t")) == []
    assert ids(search(db, "docs", text("Running Dogs", "t"))) == [1]
    for operator, index in [(text("running dog", inherited), "english"),
                            (phrase("dog runs", inherited), "english"),
                            (wildcard("run*", inherited), "english"),
                            (text("run away", html), "html"),
                            (wildcard("RUN*", html), "html")]:
        want = search(db, "docs", plain(operator), index=index)
        assert want, operator
        assert_same(search(db, "docs", operator), want)


def test_a_field_mapped_by_an_array_of_mappings_and_dotted_multi_names(db):
    docs = [{"_id": 1, "title": "Running Man"}, {"_id": 2, "title": "Runs"},
            {"_id": 3, "title": "Run Lola Run"}, {"_id": 4, "title": "The Matrix"}]
    db.docs.insert_many(copy.deepcopy(docs))
    create_ready(db, "docs", static(title=[{"type": "string", "multi": {"en.stem": ENGLISH}},
                                           {"type": "token"}]))
    create_ready(db, "docs", static(title=ENGLISH), name="english")
    stems = multi("en.stem")
    assert sorted(ids(search(db, "docs", text("running", stems)))) == [1, 2, 3]
    assert_same(search(db, "docs", text("running", stems)),
                search(db, "docs", text("running", "title"), index="english"))
    assert ids(search(db, "docs", text("running", "title"))) == [1]
    assert ids(search(db, "docs", equals("title", "Runs"))) == [2]
    assert_errors([(text("running", multi("en")), BAD_VALUE, "en"),
                   (text("running", multi("stem")), BAD_VALUE, "stem")],
                  lambda operator: search(db, "docs", operator))


# --- embeddedDocument ------------------------------------------------------------------------

ORDERS = [
    {"_id": 1, "items": [{"name": "Red Apples", "color": "red"},
                         {"name": "green pear", "color": "green"}]},
    {"_id": 2, "items": [{"name": "green apple", "color": "green"},
                         {"name": "running shoes", "color": "white"}]},
    {"_id": 3, "items": {"name": "apples and pears", "color": "yellow"}},
    {"_id": 4, "items": [{"name": "pear", "color": "green"}]},
    {"_id": 5, "title": "no items, apples in the title"},
]


def items(name_mapping):
    return static(items={"type": "embeddedDocuments", "fields": {
        "name": name_mapping, "color": {"type": "token"}}})


def embedded(operator, aggregate=None):
    score = {"score": {"embedded": {"aggregate": aggregate}}} if aggregate else {}
    return {"embeddedDocument": {"path": "items", "operator": operator, **score}}


def test_a_multi_of_an_embedded_documents_field(db):
    db.orders.insert_many(copy.deepcopy(ORDERS))
    create_ready(db, "orders", items({"type": "string", "multi": {"english": ENGLISH}}))
    create_ready(db, "orders", items(ENGLISH), name="english")
    name_en = multi("english", "items.name")

    def orders(operator, index="default"):
        return search(db, "orders", operator, index=index)

    # "apples" and "apple" are one stem; plainly, "apples" only.
    assert sorted(ids(orders(embedded(text("apples", name_en))))) == [1, 2, 3]
    assert sorted(ids(orders(embedded(text("apples", "items.name"))))) == [1, 3]
    # One element must meet every clause: 1's apples are red, 2's green.
    green_apples = compound(must=[text("apples", name_en), equals("items.color", "green")])
    assert ids(orders(embedded(green_apples))) == [2]
    for operator in [text("apples pears", name_en), text("run", name_en),
                     phrase("green apples", name_en), wildcard("appl*", name_en),
                     regex("pear|appl", name_en), green_apples,
                     compound(should=[text("pears", name_en), equals("items.color", "green")])]:
        for aggregate in [None, "maximum", "mean"]:
            want = orders(embedded(plain(operator), aggregate), index="english")
            assert want, operator
            assert_same(orders(embedded(operator, aggregate)), want)
    assert search_meta(db, "orders", embedded(text("apples", name_en)),
                       count={"type": "total"}) == [{"count": {"total": 3}}]
    assert_errors([(embedded(text("apples", multi("nope", "items.name"))), BAD_VALUE, "nope")],
                  lambda operator: orders(operator))
    code, message = error_of(lambda: orders(embedded({"wildcard": {"query": "appl*",
                                                                   "path": name_en}})))
    assert code == BAD_VALUE and "allowAnalyzedField" in message
    assert "\x00" not in message, f"the error names an internal path: {message!r}"


# --- writes and restarts ---------------------------------------------------------------------

def test_writes_are_reflected_in_the_multi_fields(db):
    docs = {1: {"_id": 1, "title": "Running Man"}, 2: {"_id": 2, "title": "Run Lola Run"},
            3: {"_id": 3, "title": "The Matrix"}, 4: {"_id": 4, "title": "Dogs Run Free"}}
    db.movies.insert_many(copy.deepcopy(list(docs.values())))
    create_ready(db, "movies", static(title=TITLE))
    create_ready(db, "movies", static(title=ENGLISH), name="english")
    create_ready(db, "movies", static(title=KEYWORD), name="keyword")

    def check(expected_running, expected_matrix):
        current = list(docs.values())
        for operator, index, expected in [(text("running", EN), "english", expected_running),
                                          (text("The Matrix", KW), "keyword", expected_matrix)]:
            got = search(db, "movies", operator)
            assert sorted(ids(got)) == expected, operator
            assert_same(got, search(db, "movies", plain(operator), index=index))
        assert_same(search(db, "movies", text("running", EN)),
                    ranked(Field(current, "title", english).text("running"), current))
        assert search_meta(db, "movies", text("running", EN), count={"type": "total"}) == \
            [{"count": {"total": len(expected_running)}}]

    check([1, 2, 4], [3])
    docs[1]["title"] = "Walking Man"
    db.movies.update_one({"_id": 1}, {"$set": {"title": "Walking Man"}})
    check([2, 4], [3])
    docs[5] = {"_id": 5, "title": ["Matrix Runs", "The Matrix"]}
    db.movies.insert_one(copy.deepcopy(docs[5]))
    check([2, 4, 5], [3, 5])
    del docs[2]
    db.movies.delete_one({"_id": 2})
    check([4, 5], [3, 5])
    docs[3] = {"_id": 3, "title": "Running Late"}
    db.movies.replace_one({"_id": 3}, docs[3])
    check([3, 4, 5], [5])
    del docs[4]["title"]
    db.movies.update_one({"_id": 4}, {"$unset": {"title": ""}})
    check([3, 5], [5])
    docs[5]["title"] = "The Matrix"
    db.movies.update_one({"_id": 5}, {"$set": {"title": "The Matrix"}})
    check([3], [5])


def test_multi_fields_answer_the_same_after_a_restart_and_a_crash(own_server):
    later = {"_id": 14, "title": "Runs Again", "plot": "Indexed as a write after the build"}
    queries = [(text("running", EN), "english"), (text("The Matrix", KW), "keyword"),
               (phrase("dog life", EN), "english"), (wildcard("run*", ["plot", EN]), "english"),
               (text("running", TAGLINE_EN), "english"), (text("run", ST), "stems")]

    def answers(db):
        return [found(db, operator) for operator, _ in queries]

    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as client:
        db = client[DATABASE]
        db.movies.insert_many(copy.deepcopy(MOVIES))
        for name in ["default", "english", "keyword", "stems"]:
            create_ready(db, "movies", INDEXES[name], name=name)
        db.movies.insert_one(dict(later))
        for operator, index in queries:
            want = found(db, plain(operator), index=index)
            assert want, operator
            assert_same(found(db, operator), want)
        assert 14 in ids(found(db, text("running", EN)))
        before = answers(db)
    for crash in (False, True):
        own_server.restart(crash=crash)
        with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as client:
            db = client[DATABASE]
            for name in ["default", "english", "keyword", "stems"]:
                wait_ready(db, "movies", name=name)
            for got, want in zip(answers(db), before):
                assert_same(got, want)

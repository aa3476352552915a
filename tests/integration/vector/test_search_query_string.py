"""Atlas Search's `queryString` operator against a real quarryd: Lucene's classic QueryParser
syntax (whitespace-separated clauses OR'd; AND/&&, OR/||, NOT/!, + and -; parentheses;
`field:` prefixes, nested paths too; Lucene's precedence quirk), and each kind of clause it
parses: phrases with slop, fuzzy terms, wildcards, regular expressions, term ranges, boosts and
escapes; its options (`score`), its errors, highlights, and queryString inside `compound` and
`$searchMeta`.

Most tests are equivalences: a queryString finds the same documents with the same scores as the
operator tree it stands for (text, phrase, wildcard, regex and compound, all tested on their own
in test_full_text_search.py and test_search_facets_and_sort.py). The others check the _ids
worked out by hand from the corpus below (lucene.standard: words lowercased, no stop words).
"""
import pytest

from test_full_text_search import (DYNAMIC, Field, among, assert_errors, assert_highlights,
                                   create_ready, expected_highlights, highlights, ids, parts,
                                   phrase, ranked, search, search_meta, text)

NOT_IMPLEMENTED, BAD_VALUE = 238, 2

MOVIES = [
    {"_id": 1, "title": "Captain Kirk Returns", "genres": ["Sci-Fi", "Adventure"],
     "plot": "Captain Kirk returns to the bridge of the starship",
     "meta": {"title": "Star Voyage"}},
    {"_id": 2, "title": "The Chess Player", "genres": ["Drama"],
     "plot": "A lonely chess player challenges the captain to a game of chess"},
    {"_id": 3, "title": "Kirk and the Klingons", "genres": ["Sci-Fi", "Action"],
     "plot": "Kirk fights the Klingons while the captain of the enemy waits",
     "meta": {"title": "Star Wars"}},
    {"_id": 4, "title": "New York Stories", "genres": ["Drama", "Comedy"],
     "plot": "Three stories of life in New York city"},
    {"_id": 5, "title": "York", "genres": ["Drama"],
     "plot": "A farmer from York moves to a new town"},
    {"_id": 6, "title": "Old and New", "genres": ["History"],
     "plot": "The new and old York meet at last"},
    {"_id": 7, "title": "Dirk the Daring", "genres": ["Adventure", "Fantasy"],
     "plot": "Dirk, a knight of the dark ages, rescues a princess"},
    {"_id": 8, "title": "Captive Hearts", "genres": ["Romance"],
     "plot": "A captive captain escapes from a cabin on the caravan"},
    {"_id": 9, "title": "Cape Fear", "genres": ["Thriller"],
     "plot": "A lawyer at the cape is captured by a criminal"},
    {"_id": 10, "title": "Bridge of Spies", "genres": ["Drama", "History"],
     "plot": "A lawyer negotiates across the bridge in Berlin"},
    {"_id": 11, "title": "Coding Life", "genres": ["Comedy"],
     "plot": "A programmer writes c++ code all night"},
    {"_id": 12, "title": "Golden Ratio", "genres": ["Documentary"],
     "plot": "A painter measures the golden ratio of a shell"},
    {"_id": 13, "title": "Spock's Chess Game", "genres": ["Sci-Fi"],
     "plot": "Spock beats Kirk at three dimensional chess"},
    {"_id": 14, "title": "Dark Star", "genres": ["Sci-Fi", "Comedy"],
     "plot": "A dark ship drifts through space with a bored crew"},
    {"_id": 15, "title": "The Kick", "genres": ["Action", "Sport"],
     "plot": "A boxer learns to kick with the captain of the team"},
    {"_id": 16, "title": "Apollo", "genres": ["History", "Drama"],
     "plot": "Astronauts fly to the moon", "meta": {"title": "Moon Voyage"}},
    {"_id": 17, "title": "Brooklyn", "genres": ["Romance", "Drama"],
     "plot": "A young woman moves from Ireland to New York"},
    {"_id": 18, "title": "Captain Blood", "genres": ["Adventure", "Action"],
     "plot": "A doctor becomes a pirate captain and a captain of the seas"},
    {"_id": 19, "title": "Zulu", "genres": ["War", "History"],
     "plot": "Soldiers defend a mission station"},
    {"_id": 20, "title": "Amadeus", "genres": ["Drama", "Music"],
     "plot": "A jealous composer and a young genius", "meta": {"title": "Music Voyage"}},
    {"_id": 21, "title": "Untitled Kirk Project", "genres": []},  # no plot
]
# The plots holding each word (worked out by hand, checked by test_the_corpus_is_as_described).
CAPTAIN, KIRK, CHESS = {1, 2, 3, 8, 15, 18}, {1, 3, 13}, {2, 13}

DATABASE = "t_search_query_string"


@pytest.fixture(scope="module")
def movies(client):
    """One database for the module: the movies under a dynamic index named "default"."""
    client.drop_database(DATABASE)
    db = client[DATABASE]
    db.movies.insert_many([dict(m) for m in MOVIES])
    create_ready(db, "movies", DYNAMIC)
    yield db
    client.drop_database(DATABASE)


# --- operators -------------------------------------------------------------------------------

def qs(query, default_path="plot", **options):
    return {"queryString": {"defaultPath": default_path, "query": query, **options}}


def t(query, path="plot", **options):
    return text(query, path, **options)


def compound(must=(), should=(), must_not=(), filter_=(), **options):
    clauses = {"must": must, "should": should, "mustNot": must_not, "filter": filter_}
    return {"compound": {**{k: list(v) for k, v in clauses.items() if v}, **options}}


def wildcard(query, path="plot"):
    return {"wildcard": {"query": query, "path": path, "allowAnalyzedField": True}}


def regex(query, path="plot"):
    return {"regex": {"query": query, "path": path, "allowAnalyzedField": True}}


def boosted(value):
    return {"score": {"boost": {"value": value}}}


def found(db, operator, **options):
    return search(db, "movies", operator, **options)


def assert_same(got, want):
    """Same _ids in the same order, scores equal to within rel=1e-6."""
    assert ids(got) == ids(want)
    assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-6)


def test_the_corpus_is_as_described():
    plot = Field(MOVIES, "plot")
    for word, holders in [("captain", CAPTAIN), ("kirk", KIRK), ("chess", CHESS)]:
        assert set(plot.text(word)) == holders


# --- equivalences: a queryString scores as the operator tree it stands for -------------------

EQUIVALENCES = [
    # One word is the text operator on defaultPath, whatever its case.
    ("kirk", t("kirk")),
    ("Captain", t("captain")),
    # Whitespace ORs; lowercase and/or/not are ordinary words.
    ("captain kirk", compound(should=[t("captain"), t("kirk")])),
    ("captain kirk", t("captain kirk")),
    ("captain OR kirk", compound(should=[t("captain"), t("kirk")])),
    ("captain || kirk", compound(should=[t("captain"), t("kirk")])),
    ("captain and kirk", compound(should=[t("captain"), t("and"), t("kirk")])),
    ("captain or kirk", compound(should=[t("captain"), t("or"), t("kirk")])),
    ("captain not kirk", compound(should=[t("captain"), t("not"), t("kirk")])),
    # AND, &&, + require; NOT, !, - prohibit.
    ("captain AND kirk", compound(must=[t("captain"), t("kirk")])),
    ("captain && kirk", compound(must=[t("captain"), t("kirk")])),
    ("+captain +kirk", compound(must=[t("captain"), t("kirk")])),
    ("+captain kirk", compound(must=[t("captain")], should=[t("kirk")])),
    ("captain -kirk", compound(should=[t("captain")], must_not=[t("kirk")])),
    ("captain NOT kirk", compound(should=[t("captain")], must_not=[t("kirk")])),
    ("captain !kirk", compound(should=[t("captain")], must_not=[t("kirk")])),
    ("captain AND NOT kirk", compound(must=[t("captain")], must_not=[t("kirk")])),
    # Lucene's precedence: AND makes the clause before it required too, OR leaves it alone.
    ("captain AND kirk OR chess", compound(must=[t("captain"), t("kirk")], should=[t("chess")])),
    ("chess OR captain AND kirk", compound(must=[t("captain"), t("kirk")], should=[t("chess")])),
    ("captain OR kirk AND chess", compound(must=[t("kirk"), t("chess")], should=[t("captain")])),
    ("kirk OR chess AND spock OR captain",
     compound(must=[t("chess"), t("spock")], should=[t("kirk"), t("captain")])),
    # Parentheses group.
    ("(captain OR kirk) AND chess",
     compound(must=[compound(should=[t("captain"), t("kirk")]), t("chess")])),
    ("(captain OR kirk) AND (chess OR klingons)",
     compound(must=[compound(should=[t("captain"), t("kirk")]),
                    compound(should=[t("chess"), t("klingons")])])),
    ("captain AND NOT (kirk OR chess)",
     compound(must=[t("captain")], must_not=[compound(should=[t("kirk"), t("chess")])])),
    ("(captain -kirk) AND chess",
     compound(must=[compound(should=[t("captain")], must_not=[t("kirk")]), t("chess")])),
    ("((captain))", t("captain")),
    ("-kirk captain", compound(should=[t("captain")], must_not=[t("kirk")])),
    ("captain AND -kirk", compound(must=[t("captain")], must_not=[t("kirk")])),
    ("captain\t\n kirk\u3000chess", compound(should=[t("captain"), t("kirk"), t("chess")])),
    # field: searches that field; the prefix covers one clause or one group.
    ("plot:(captain OR kirk) AND chess",
     compound(must=[compound(should=[t("captain"), t("kirk")]), t("chess")])),
    ("title:kirk", t("kirk", "title")),
    ("title:(captain OR kirk)", compound(should=[t("captain", "title"), t("kirk", "title")])),
    ("title:captain kirk", compound(should=[t("captain", "title"), t("kirk")])),
    ("captain AND genres:adventure", compound(must=[t("captain"), t("adventure", "genres")])),
    ("title:(+captain -blood)", compound(must=[t("captain", "title")],
                                        must_not=[t("blood", "title")])),
    ("genres:(comedy OR drama) -genres:history",
     compound(should=[compound(should=[t("comedy", "genres"), t("drama", "genres")])],
              must_not=[t("history", "genres")])),
    ("meta.title:voyage", t("voyage", "meta.title")),
    ("meta.title:(star OR voyage) kirk",
     compound(should=[compound(should=[t("star", "meta.title"), t("voyage", "meta.title")]),
                      t("kirk")])),
    # Phrases, with slop; with a field.
    ('"captain kirk"', phrase("captain kirk", "plot")),
    ('"captain kirk"~1', phrase("captain kirk", "plot", slop=1)),
    ('"new york"', phrase("new york", "plot")),
    ('"new york"~2', phrase("new york", "plot", slop=2)),
    ('title:"new york"', phrase("new york", "title")),
    ('"new york" OR chess', compound(should=[phrase("new york", "plot"), t("chess")])),
    ('"captain"', t("captain")),
    ('title:"captain returns"~1', phrase("captain returns", "title", slop=1)),
    # Fuzzy terms: ~ alone is maxEdits 2; the term is lowercased like a text query.
    ("kirk~", t("kirk", fuzzy={"maxEdits": 2})),
    ("kirk~2", t("kirk", fuzzy={"maxEdits": 2})),
    ("kirk~1", t("kirk", fuzzy={"maxEdits": 1})),
    ("Kirk~1", t("kirk", fuzzy={"maxEdits": 1})),
    ("kirk~1 AND captain", compound(must=[t("kirk", fuzzy={"maxEdits": 1}), t("captain")])),
    # As Lucene reads ~N: more than 2 edits is 2; below 1, the older similarity, (1 - N) of
    # the word's characters ("captai" has 6: 0.8 gives 1 edit, 0.5 gives 2).
    ("kirk~3", t("kirk", fuzzy={"maxEdits": 2})),
    ("captai~0.8", t("captai", fuzzy={"maxEdits": 1})),
    ("captai~0.5", t("captai", fuzzy={"maxEdits": 2})),
    # Wildcards and regular expressions match whole terms of the analyzed field.
    ("capt*", wildcard("capt*")),
    ("Cap*", wildcard("cap*")),
    ("ca?tain", wildcard("ca?tain")),
    ("title:capt*", wildcard("capt*", "title")),
    ("title:(capt* OR kirk)", compound(should=[wildcard("capt*", "title"), t("kirk", "title")])),
    ("capt* -kirk", compound(should=[wildcard("capt*")], must_not=[t("kirk")])),
    ("/ca.*n/", regex("ca.*n")),
    ("title:/c.*s/", regex("c.*s", "title")),
    ("/ca.*n/ AND chess", compound(must=[regex("ca.*n"), t("chess")])),
    # Lucene's parser normalizes a regex by the analyzer, as it does a wildcard.
    ("/CA.*N/", regex("ca.*n")),
    # ^N boosts one clause (or a group).
    ("captain^3 kirk", compound(should=[t("captain", **boosted(3)), t("kirk")])),
    ("captain kirk^0.5", compound(should=[t("captain"), t("kirk", **boosted(0.5))])),
    ("(captain kirk)^2", compound(should=[t("captain"), t("kirk")], **boosted(2))),
    ('"new york"^2', phrase("new york", "plot", **boosted(2))),
    ('"new york"~2^3', phrase("new york", "plot", slop=2, **boosted(3))),
    ("kirk~1^2", t("kirk", fuzzy={"maxEdits": 1}, **boosted(2))),
    ("title:captain^2 kirk", compound(should=[t("captain", "title", **boosted(2)), t("kirk")])),
    # \ escapes: the character is part of the word, not syntax.
    ("c\\+\\+", t("c++")),
    ("a\\:b", t("a:b")),
    ("title\\:kirk", t("title:kirk")),
    ("\\(captain\\)", t("(captain)")),
    ('\\"captain kirk\\"', t('"captain kirk"')),
    ("kirk\\!", t("kirk!")),
    # A clause the analyzer leaves no term of is dropped, as Lucene drops its null query.
    ("captain AND ...", t("captain")),
    # - and + inside a word are part of it (only a word's first character is an operator).
    ("c++", t("c++")),
    ("genres:sci-fi", t("sci-fi", "genres")),
    # Range bounds are normalized by the field's analyzer, as Lucene's
    # QueryParserBase.newRangeQuery does: lucene.standard lowercases them. (No other operator
    # ranges over the terms of analyzed strings; test_ranges_... checks the lowercase one.)
    ("title:[B TO D]", qs("title:[b TO d]")),
]


@pytest.mark.parametrize("query,operator", EQUIVALENCES,
                         ids=[f"{q} == {next(iter(o))}" for q, o in EQUIVALENCES])
def test_a_query_string_scores_as_the_operator_tree_it_stands_for(movies, query, operator):
    want = found(movies, operator)
    assert want, "the equivalence is only worth something if it finds documents"
    assert_same(found(movies, qs(query)), want)


def test_another_default_path_is_searched_by_unprefixed_clauses(movies):
    assert_same(found(movies, qs("voyage", "meta.title")), found(movies, t("voyage", "meta.title")))
    got = found(movies, qs("drama AND history", "genres"))
    assert_same(got, found(movies, compound(must=[t("drama", "genres"), t("history", "genres")])))
    assert sorted(ids(got)) == [10, 16]
    # A prefix still wins over the default path.
    assert sorted(ids(found(movies, qs("plot:kirk", "title")))) == sorted(KIRK)


# --- the documents found, by hand --------------------------------------------------------

FOUND = [
    ("captain", CAPTAIN),
    ("captain kirk", CAPTAIN | KIRK),
    ("captain AND kirk", {1, 3}),
    ("captain AND kirk OR chess", {1, 3}),  # chess only adds to the score
    ("chess OR captain AND kirk", {1, 3}),
    ("captain OR kirk AND chess", {13}),  # captain only adds to the score
    ("(captain OR kirk) AND chess", {2, 13}),
    ("(captain OR kirk) AND (chess OR klingons)", {2, 3, 13}),
    ("captain -kirk", {2, 8, 15, 18}),
    ("captain AND NOT kirk", {2, 8, 15, 18}),
    ("captain and kirk", CAPTAIN | KIRK | {6, 20}),  # "and" is a word of 6, 18 and 20
    ("title:kirk", {1, 3, 21}),  # 21 has no plot
    ("title:captain kirk", {1, 18} | KIRK),
    ("captain AND genres:adventure", {1, 18}),
    ("genres:drama", {2, 4, 5, 10, 16, 17, 20}),
    ("genres:(comedy OR drama) -genres:history", {2, 4, 5, 11, 14, 17, 20}),
    ("meta.title:voyage", {1, 16, 20}),
    ("meta.title:star", {1, 3}),
    ('"new york"', {4, 17}),
    ('"new york"~1', {4, 17}),
    ('"new york"~2', {4, 6, 17}),  # "new and old York"
    ("new york", {4, 5, 6, 17}),
    ("kirk~1", {1, 3, 7, 13, 15}),  # dirk, kick
    ("kirk~", {1, 3, 4, 5, 6, 7, 13, 14, 15, 17}),  # and dark, york
    ("capt*", {1, 2, 3, 8, 9, 15, 18}),  # captain, captive, captured
    ("Cap*", {1, 2, 3, 8, 9, 15, 18}),  # and cape, in 9 already
    ("title:Cap*", {1, 8, 9, 18}),
    ("/ca.*n/", {1, 2, 3, 8, 15, 18}),  # captain, cabin, caravan; not captured
    ("c\\+\\+", {11}),
]


@pytest.mark.parametrize("query,expected", FOUND, ids=[q for q, _ in FOUND])
def test_a_query_string_finds_the_documents_worked_out_by_hand(movies, query, expected):
    assert sorted(ids(found(movies, qs(query)))) == sorted(expected)


RANGES = [  # title terms, sorted: amadeus and apollo blood bridge brooklyn cape captain captive
    # chess coding daring dark dirk fear game golden hearts kick kirk klingons life new of old
    # player project ratio returns spies spock's star stories the untitled york zulu
    ("title:[b TO d]", {1, 2, 8, 9, 10, 11, 13, 17, 18}),  # "dark" and "dirk" sort after "d"
    ("title:[b TO dirk]", {1, 2, 7, 8, 9, 10, 11, 13, 14, 17, 18}),
    ("title:[bridge TO chess]", {1, 2, 8, 9, 10, 13, 17, 18}),
    ("title:{bridge TO chess}", {1, 8, 9, 17, 18}),
    ("title:{bridge TO chess]", {1, 2, 8, 9, 13, 17, 18}),
    ("title:[bridge TO chess}", {1, 8, 9, 10, 17, 18}),
    ("title:[* TO apollo]", {3, 6, 16, 20}),
    ("title:{untitled TO *]", {4, 5, 19}),
    ("title:[zulu TO zzz]", {19}),
    ("title:{zulu TO zzz}", set()),
    ("[york TO z]", {4, 5, 6, 17, 20}),  # defaultPath plot: york, young
]


@pytest.mark.parametrize("query,expected", RANGES, ids=[q for q, _ in RANGES])
def test_ranges_match_the_terms_between_their_bounds_in_lexicographic_order(
        movies, query, expected):
    got = found(movies, qs(query))
    assert sorted(ids(got)) == sorted(expected)
    assert all(score == pytest.approx(1.0) for _, score in got), got  # constant, like wildcard


def test_a_range_combines_with_other_clauses(movies):
    kirk = Field(MOVIES, "plot").text("kirk")
    got = found(movies, qs("title:[b TO d] AND kirk"))
    assert sorted(ids(got)) == [1, 13]
    assert_same(got, ranked({i: 1 + kirk[i] for i in (1, 13)}, MOVIES))


def test_a_query_of_only_prohibited_clauses_matches_nothing(movies):
    for query in ["NOT kirk", "-kirk", "!kirk", "-kirk -chess", "NOT (captain OR kirk)",
                  "-title:kirk", "NOT zebra"]:
        assert found(movies, qs(query)) == [], query


def test_words_no_document_holds_find_nothing(movies):
    for query in ["zebra", "zebra AND captain", "+zebra captain", '"kirk captain"', "zeb*",
                  "nosuchfield:captain", "title:[x TO xz]", '""']:
        assert found(movies, qs(query)) == [], query


# --- options ----------------------------------------------------------------------------------

def test_score_boost_multiplies_and_constant_replaces_the_whole_score(movies):
    query = "captain AND kirk OR chess title:kirk"
    plain = found(movies, qs(query))
    assert len(plain) >= 2
    assert_same(found(movies, qs(query, score={"boost": {"value": 2}})),
                [(i, 2 * s) for i, s in plain])
    constant = found(movies, qs(query, score={"constant": {"value": 5}}))
    assert sorted(ids(constant)) == sorted(ids(plain))
    assert [s for _, s in constant] == pytest.approx([5.0] * len(plain))


def test_malformed_query_string_operators_answer_bad_value(movies):
    cases = [
        ({"queryString": {"query": "kirk"}}, BAD_VALUE, ""),
        ({"queryString": {"defaultPath": "plot"}}, BAD_VALUE, ""),
        ({"queryString": {}}, BAD_VALUE, ""),
        (qs("kirk", default_path=5), BAD_VALUE, ""),
        (qs("kirk", default_path=["plot"]), BAD_VALUE, ""),
        (qs(5), BAD_VALUE, ""),
        (qs(["kirk"]), BAD_VALUE, ""),
        (qs(None), BAD_VALUE, ""),
        (qs("kirk", foo=1), BAD_VALUE, ""),
    ]
    assert_errors(cases, lambda operator: found(movies, operator))


SYNTAX_ERRORS = [
    "(captain", "captain)", "(captain OR (kirk AND chess)", '"captain kirk', 'captain "kirk',
    "captain AND", "captain OR", "captain AND NOT", "AND kirk", "", "   ", "title:",
    "captain^", "kirk~1.5", "*ain", "?irk", "title:*ain", "*", "title:*",
]


@pytest.mark.parametrize("query", SYNTAX_ERRORS)
def test_syntax_errors_answer_bad_value(movies, query):
    assert_errors([(qs(query), BAD_VALUE, "")], lambda operator: found(movies, operator))


def test_star_colon_star_is_every_document_scored_one(movies):
    every = sorted(m["_id"] for m in MOVIES)
    got = found(movies, qs("*:*"))
    assert sorted(ids(got)) == every and {score for _, score in got} == {1.0}
    # A clause like any other: boosted, and with a prohibited word.
    assert {score for _, score in found(movies, qs("*:*^3"))} == {3.0}
    kirk = set(ids(found(movies, qs("kirk"))))
    assert kirk and sorted(ids(found(movies, qs("*:* -kirk")))) == sorted(set(every) - kirk)
    # Other fields with "*:" stay refused.
    assert_errors([(qs("*:kirk"), NOT_IMPLEMENTED, "")], lambda operator: found(movies, operator))


def test_a_fuzzy_word_is_normalized_not_stemmed(client):
    db = client["query_string_fuzzy"]
    client.drop_database("query_string_fuzzy")
    db.docs.insert_many([{"_id": 1, "t": "he plays"}, {"_id": 2, "t": "a play"}])
    create_ready(db, "docs", {"analyzer": "lucene.english", "mappings": {"dynamic": True}})
    # english holds "plays" as "plai" and "play" as "plai" too; Lucene's parser sends a fuzzy
    # word only lowercased: "PLAYS~1" is "plays", two edits from "plai".
    assert ids(search(db, "docs", qs("PLAYS~1", "t"))) == []
    assert sorted(ids(search(db, "docs", qs("plai~1", "t")))) == [1, 2]
    assert sorted(ids(search(db, "docs", qs("plays", "t")))) == [1, 2]
    client.drop_database("query_string_fuzzy")


# --- highlights, compound, $searchMeta ----------------------------------------------------------

def assert_same_highlights(got, want):
    assert list(got) == list(want)
    for doc_id, passages in got.items():
        assert_highlights(passages, want[doc_id])


def test_highlights_mark_the_words_the_query_string_searched(movies):
    got = highlights(movies, "movies", qs("chess captain"), {"path": "plot"})
    assert_same_highlights(got, highlights(
        movies, "movies", compound(should=[t("chess"), t("captain")]), {"path": "plot"}))
    assert sorted(got) == sorted(CAPTAIN | CHESS)
    assert [h["texts"] for h in got[2]] == [parts(
        "A lonely ", "chess", " player challenges the ", "captain", " to a game of ", "chess")]
    for doc in MOVIES:
        if doc["_id"] in got:
            assert_highlights(got[doc["_id"]],
                              expected_highlights(doc, {"plot": among("chess", "captain")}))
    # A clause on another field marks that field only.
    paths = {"path": ["plot", "title"]}
    got = highlights(movies, "movies", qs("chess title:captain"), paths)
    assert_same_highlights(got, highlights(
        movies, "movies", compound(should=[t("chess"), t("captain", "title")]), paths))
    assert [(h["path"], h["texts"]) for h in got[18]] == [("title", parts("", "Captain", " Blood"))]
    # A phrase marks its words where they make the phrase.
    got = highlights(movies, "movies", qs('"new york"'), {"path": "plot"})
    assert_same_highlights(got, highlights(movies, "movies", phrase("new york", "plot"),
                                           {"path": "plot"}))
    assert [h["texts"] for h in got[4]] == [
        parts("Three stories of life in ", "New", " ", "York", " city")]


def test_query_strings_are_clauses_of_compound(movies):
    got = found(movies, compound(must=[qs("captain OR chess")],
                                 must_not=[qs("action", default_path="genres")]))
    assert_same(got, found(movies, compound(must=[compound(should=[t("captain"), t("chess")])],
                                            must_not=[t("action", "genres")])))
    assert sorted(ids(got)) == [1, 2, 8, 13]
    # Beside a filter, should clauses only score, unless minimumShouldMatch asks for one.
    for minimum, expected in [(0, [1, 3, 7, 13, 14, 18]), (1, [1, 3, 18])]:
        got = found(movies, compound(should=[qs("kirk -chess"), qs("title:captain")],
                                     filter_=[qs("genres:(sci OR adventure)")],
                                     minimumShouldMatch=minimum))
        assert_same(got, found(movies, compound(
            should=[compound(should=[t("kirk")], must_not=[t("chess")]), t("captain", "title")],
            filter_=[compound(should=[t("sci", "genres"), t("adventure", "genres")])],
            minimumShouldMatch=minimum)))
        assert sorted(ids(got)) == expected


def test_search_meta_counts_what_the_query_string_matches(movies):
    for query, expected in [("captain OR chess", CAPTAIN | CHESS),
                            ("captain -kirk", {2, 8, 15, 18}),
                            ("title:[b TO d]", RANGES[0][1]), ("-kirk", set())]:
        assert search_meta(movies, "movies", qs(query), count={"type": "total"}) == \
            [{"count": {"total": len(expected)}}], query


def test_query_string_scores_are_bm25_like_text(movies):
    """Anchors the equivalences to BM25 worked out here (k1 = 1.2, b = 0.75, Lucene's idf)."""
    plot = Field(MOVIES, "plot")
    assert_same(found(movies, qs("captain kirk")), ranked(plot.text("captain kirk"), MOVIES))
    captain, kirk = plot.text("captain"), plot.text("kirk")
    both = {i: captain[i] + kirk[i] for i in captain if i in kirk}
    assert_same(found(movies, qs("captain AND kirk")), ranked(both, MOVIES))
    assert_same(found(movies, qs('"new york"~2')), ranked(plot.phrase("new york", slop=2), MOVIES))
    assert_same(found(movies, qs("kirk~1")), ranked(plot.fuzzy("kirk", max_edits=1), MOVIES))

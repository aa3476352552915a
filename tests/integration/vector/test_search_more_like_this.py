"""Atlas Search's `moreLikeThis` operator against a real quarryd.

`{moreLikeThis: {like: <document> | [<documents>], score}}` runs as Lucene's MoreLikeThis runs
with Atlas's (mongot's) settings: every string of the like documents is taken at its dotted path
(sub-documents give dotted paths, arrays their elements at the array's path, other values are
ignored); a path counts only where the index may hold strings (a string field of a static
mapping, any path under a dynamic one), analyzed with the field's search analyzer, and once more
per `multi` analyzer of the field, as a field of its own. A term's frequency is its count over all
the like documents' strings for that field (only the first 5000 tokens of each string count);
terms that fewer than two documents hold in the field are dropped; the others weigh tf times
Lucene's classic idf, ln((N + 1) / (n + 1)) + 1, and the 25 heaviest over all fields are searched
as `text` searches them: a document scores the sum of its BM25 over the kept terms it holds.

Covered: a score spelled out by hand and the same answer as `text`; a like copied from a
collection document; terms only one document holds; the 25-term cap, checked against the answers
other weightings and other caps would give; frequencies summed over like documents, arrays and
values and never across fields; nested paths; the 5000-token limit of each value; static
mappings (token, number, document and unmapped paths ignored, a dynamic sub-document counted);
search analyzers (keyword, English over a standard index); an English field's stems; multi
analyzers (a field and each multi scored with its own statistics); score options; compound;
$searchMeta counts; writes; and the errors of the operator.

Expected answers are computed here: `Index` re-implements the choice of terms from the like
documents (test_full_text_search's analyzers and Field give the terms each document holds and
their BM25, k1 = 1.2, b = 0.75, Lucene's idf), compared with rel=1e-6; equal scores come in
insertion order. The test data keep the 25th and 26th weights apart, as the server weighs in
float.
"""
import copy
import math

import pytest

from test_full_text_search import (DYNAMIC, MOVIES, STRING, Field, add, assert_errors,
                                   create_ready, english, ids, ranked, search, search_meta,
                                   standard, static, text)

BAD_VALUE = 2
MAX_QUERY_TERMS, MIN_DOC_FREQ, MAX_TOKENS_PER_VALUE = 25, 2, 5000

ENGLISH = {"type": "string", "analyzer": "lucene.english"}
# Porter's stems of words these tests use that test_full_text_search's english does not know.
MORE_STEMS = {"hounds": "hound", "cats": "cat", "rivers": "river"}


def english_stems(value):
    return [MORE_STEMS.get(t, t) for t in english(value)]


def keyword(value):
    return [value]


# --- the choice of terms, re-implemented -----------------------------------------------------

def like_strings(value, path=""):
    """(dotted path, string) of every string below a like document."""
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, list):
        return [s for v in value for s in like_strings(v, path)]
    if isinstance(value, dict):
        return [s for k, v in value.items()
                for s in like_strings(v, f"{path}.{k}" if path else k)]
    return []


def classic_weight(tf, n_docs, df):
    return tf * (math.log((n_docs + 1) / (df + 1)) + 1)


def dynamic(path):
    """A dynamic mapping: every path holds strings, analyzed by lucene.standard."""
    return [(path, standard, standard)]


def fields_of(mapping):
    """`mapping` ({path: [(field name, index analyzer, search analyzer)]}) as a function; a
    multi's field name is its path, a NUL and the multi's name."""
    return lambda path: mapping.get(path, [])


class Index:
    """A search index over `docs`: `fields_at(path)` names the fields a string at `path` goes to,
    as [(field name, index analyzer, search analyzer)]; no field where it holds no strings."""

    def __init__(self, docs, fields_at):
        self.docs, self.fields_at = docs, fields_at
        self.fields, self.analyzers = {}, {}

    def field(self, name):
        if name not in self.fields:
            self.fields[name] = Field(self.docs, name.split("\0")[0], self.analyzers[name])
        return self.fields[name]

    def frequencies(self, likes):
        """{(field name, term): its count in the like documents' strings for that field}."""
        counts = {}
        for like in likes if isinstance(likes, list) else [likes]:
            for path, value in like_strings(like):
                for name, analyze, search_analyze in self.fields_at(path):
                    self.analyzers[name] = analyze
                    terms = [t for t in search_analyze(value) if t is not None]
                    for term in terms[:MAX_TOKENS_PER_VALUE]:
                        counts[name, term] = counts.get((name, term), 0) + 1
        return counts

    def candidates(self, likes, weigh=classic_weight, n_docs=None):
        """[(weight, field name, term)] of the terms two documents or more hold, heaviest
        first, ties by field name then term."""
        out = []
        for (name, term), tf in self.frequencies(likes).items():
            field = self.field(name)
            df = field.df(term)
            if df >= MIN_DOC_FREQ:
                out.append((weigh(tf, field.n_docs if n_docs is None else n_docs, df), name,
                            term))
        return sorted(out, key=lambda c: (-c[0], c[1], c[2]))

    def chosen(self, likes, keep=MAX_QUERY_TERMS, **weighing):
        found = self.candidates(likes, **weighing)
        if len(found) > keep and weighing == {}:
            # The server weighs in float: the test data keep the last kept weight and the first
            # dropped one equal (the same tf and df) or clearly apart.
            last, first_out = found[keep - 1][0], found[keep][0]
            assert last == first_out or last > first_out * (1 + 1e-4), (last, first_out)
        return [(name, term) for _, name, term in found[:keep]]

    def scores(self, chosen):
        """{_id: the sum of BM25 over the chosen (field, term) pairs the document holds}."""
        out = {}
        for name, term in chosen:
            field = self.field(name)
            idf = field.idf_of(field.df(term))
            for doc_id, held in field.terms.items():
                if term in held:
                    out[doc_id] = out.get(doc_id, 0) + idf * field.tf(doc_id, held.count(term))
        return out

    def more_like_this(self, likes, **options):
        return self.scores(self.chosen(likes, **options))


def mlt(like, **options):
    return {"moreLikeThis": {"like": like, **options}}


def check(db, coll, operator, expected, docs, index="default"):
    got = search(db, coll, operator, index=index)
    want = ranked(expected, docs)
    assert ids(got) == ids(want), operator
    assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-6), operator


# --- scores ----------------------------------------------------------------------------------

SMALL = [{"_id": 1, "t": "red fox"}, {"_id": 2, "t": "red dog"}, {"_id": 3, "t": "blue fox fox"},
         {"_id": 4, "t": "green owl"}, {"_id": 5, "u": "red owl"}]


def test_a_score_spelled_out_by_hand_and_the_same_as_text(db):
    db.docs.insert_many(SMALL)
    create_ready(db, "docs", DYNAMIC)
    # In t: four documents, 9 terms (avgdl 9/4); red and fox in two each, owl in one (doc 5's
    # owl is in u). idf = ln(1 + (4 - 2 + 0.5) / (2 + 0.5)) = ln 2.
    norm = {2: 1.2 * (0.25 + 0.75 * 2 / 2.25), 3: 1.2 * (0.25 + 0.75 * 3 / 2.25)}
    want = {1: math.log(2) * 2 * (1 / (1 + norm[2])),
            3: math.log(2) * 2 / (2 + norm[3]),
            2: math.log(2) * 1 / (1 + norm[2])}
    assert Index(SMALL, dynamic).more_like_this({"t": "red owl fox"}) == \
        pytest.approx(want, rel=1e-12)
    check(db, "docs", mlt({"t": "red owl fox"}), want, SMALL)
    check(db, "docs", mlt([{"t": "Fox!"}, {"t": ["owl", "RED"]}]), want, SMALL)
    as_text = search(db, "docs", text("red fox", "t"))
    got = search(db, "docs", mlt({"t": "red owl fox"}))
    assert ids(got) == ids(as_text) == [1, 3, 2]
    assert [s for _, s in got] == pytest.approx([s for _, s in as_text], rel=1e-9)


@pytest.fixture
def movies(db):
    """test_full_text_search's MOVIES under a dynamic index named "default"."""
    db.movies.insert_many(copy.deepcopy(MOVIES))
    create_ready(db, "movies", DYNAMIC)
    return db


MOVIE_INDEX = Index(MOVIES, dynamic)
LIKE_RIVER_FOX = {"title": "A fox by the river", "plot": "The dog and the fox run to the river",
                  "tags": ["fox", "boat", 3]}


def test_a_like_copied_from_a_document_finds_the_documents_sharing_its_words(movies):
    first = copy.deepcopy(MOVIES[0])
    expected = MOVIE_INDEX.more_like_this(first)
    chosen = MOVIE_INDEX.chosen(first)
    # Title, plot and tags each count as a field of their own: fox is searched in title and
    # plot, not in tags, where only document 1 holds it.
    assert {name for name, term in chosen if term == "fox"} == {"title", "plot"}
    assert ("title", "quick") not in chosen and ("plot", "quick") not in chosen  # only in 1
    assert 1 in expected and 7 not in expected and len(expected) < len(MOVIES)
    check(movies, "movies", mlt(first), expected, MOVIES)
    for like in [MOVIES[1], MOVIES[4], [MOVIES[2], MOVIES[5]], LIKE_RIVER_FOX,
                 {"plot": "the the the", "tags": "classic"}]:
        check(movies, "movies", mlt(copy.deepcopy(like)), MOVIE_INDEX.more_like_this(like),
              MOVIES)


def test_terms_only_one_document_holds_are_never_searched(db):
    docs = [{"_id": 1, "t": "zebra yak quagga"}, {"_id": 2, "t": "red fox"},
            {"_id": 3, "t": "red dog"}, {"_id": 4, "u": "zebra yak"}]
    db.docs.insert_many(docs)
    create_ready(db, "docs", DYNAMIC)
    # A copy of document 1: each of its words is in no other document's t (4 holds them in u).
    assert search(db, "docs", mlt({"t": "zebra yak quagga"})) == []
    assert search(db, "docs", mlt(docs[0])) == []
    assert search(db, "docs", mlt({"t": "never seen words"})) == []
    # Red, in two documents, is searched; zebra is not, so document 1 does not match.
    index = Index(docs, dynamic)
    like = {"t": "zebra zebra zebra red"}
    assert index.chosen(like) == [("t", "red")]
    check(db, "docs", mlt(like), index.more_like_this(like), docs)
    assert sorted(ids(search(db, "docs", mlt(like)))) == [2, 3]


# --- the 25 heaviest terms -------------------------------------------------------------------

# (prefix, words, tf in the like document, documents holding each in t). The a, x and y words
# are in documents 0-19, the z words in documents 0-21 (20 and 21 hold z words only). Classic
# weights over the 22 documents holding t: a 18.2, y 8.6, x 7.6, z 6.9: a, y and x make the 25.
CAP_TIERS = [("a", 10, 6, 2), ("x", 5, 3, 4), ("y", 10, 6, 14), ("z", 15, 4, 10)]
CAP_WORDS = [(f"{p}{i:02d}", tf, df) for p, n, tf, df in CAP_TIERS for i in range(n)]


def cap_docs():
    held = {d: [] for d in range(22)}
    start = 0
    for word, _, df in CAP_WORDS:
        span = 22 if word.startswith("z") else 20
        for j in range(df):
            held[(start + 7 * j) % span].append(word)
        start += df
    docs = [{"_id": d, "t": " ".join(words)} for d, words in held.items()]
    # Documents without t: the collection holds 52, the field 22.
    return docs + [{"_id": 100 + k, "u": " ".join(w for w, *_ in CAP_WORDS[k::30])}
                   for k in range(30)]


def cap_like():
    # Round after round, z first: the first 25 words to appear are not the 25 kept.
    order = sorted(CAP_WORDS, key=lambda w: ("zxya".index(w[0][0]), w[0]))
    return {"t": " ".join(w for r in range(6) for w, tf, _ in order if tf > r)}


def test_only_the_25_heaviest_terms_are_searched(db):
    docs = cap_docs()
    db.docs.insert_many(docs)
    create_ready(db, "docs", DYNAMIC)
    index, like = Index(docs, dynamic), cap_like()
    assert all(Field(docs, "t").df(w) == df for w, _, df in CAP_WORDS)
    assert index.frequencies(like) == {("t", w): tf for w, tf, _ in CAP_WORDS}
    chosen = index.chosen(like)
    assert sorted(t for _, t in chosen) == sorted(w for w, *_ in CAP_WORDS if w[0] in "axy")
    expected = index.more_like_this(like)
    assert sorted(expected) == list(range(20))  # 20 and 21 hold only z words
    # Other weightings, caps and field sizes would find other documents or scores.
    alternatives = {
        "BM25's idf": index.more_like_this(like, weigh=lambda tf, n, df: tf * math.log(
            1 + (n - df + 0.5) / (df + 0.5))),
        "tf alone": index.more_like_this(like, weigh=lambda tf, n, df: tf),
        "idf alone": index.more_like_this(like, weigh=lambda tf, n, df: classic_weight(1, n, df)),
        "N of the collection": index.more_like_this(like, n_docs=len(docs)),
        "24 terms": index.more_like_this(like, keep=24),
        "26 terms": index.more_like_this(like, keep=26),
        "every term": index.more_like_this(like, keep=len(CAP_WORDS)),
    }
    for name, other in alternatives.items():
        assert other != pytest.approx(expected, rel=1e-6), name
    check(db, "docs", mlt(like), expected, docs)
    # The same words as several like documents, one word each, choose the same.
    likes = [{"t": " ".join([w] * tf)} for w, tf, _ in CAP_WORDS]
    check(db, "docs", mlt(likes), expected, docs)


# --- frequencies in the like documents -------------------------------------------------------

FILLERS = [f"f{i:02d}" for i in range(24)]
TF_DOCS = [{"_id": k, "t": " ".join(FILLERS[(2 * k + j) % 24] for j in range(4))}
           for k in range(12)] + [
    {"_id": "fox1", "t": "fox"}, {"_id": "fox2", "t": "fox den"},
    {"_id": "fox3", "t": "red fox fox"}, {"_id": "owl1", "t": "owl"},
    {"_id": "owl2", "t": "owl den"}]
# In t (17 documents): each filler in two, fox in three, owl in two. Fillers (tf 4) weigh 11.2;
# fox weighs 7.5 with tf 3 but 5.0 with tf 2; owl 5.6 with tf 2, 14.0 with tf 5. 24 fillers
# and the heavier of fox and owl make 25.
TF_LIKES = [
    {"t": " ".join(w for w in FILLERS for _ in range(4)) + " owl", "u": "owl owl owl"},
    {"t": ["fox", "fox"], "n": 5},
    {"t": "fox", "flag": True},
    {"t": "owl", "year": 1999},
]


def test_frequencies_sum_over_like_documents_arrays_and_values_but_not_fields(db):
    db.docs.insert_many(TF_DOCS)
    create_ready(db, "docs", DYNAMIC)
    index = Index(TF_DOCS, dynamic)
    freq = index.frequencies(TF_LIKES)
    assert (freq["t", "fox"], freq["t", "owl"], freq["u", "owl"]) == (3, 2, 3)
    # fox (three times in two like documents) beats owl (twice in two); counting like
    # documents, the first array element only or u with t would keep owl instead.
    chosen = index.chosen(TF_LIKES)
    assert ("t", "fox") in chosen and ("t", "owl") not in chosen and len(chosen) == 25
    expected = index.more_like_this(TF_LIKES)
    assert {"fox1", "fox2", "fox3"} <= set(expected) and not {"owl1", "owl2"} & set(expected)
    check(db, "docs", mlt(TF_LIKES), expected, TF_DOCS)
    # Without the last like document fox is still kept; without the third, owl is.
    check(db, "docs", mlt(TF_LIKES[:3]), index.more_like_this(TF_LIKES[:3]), TF_DOCS)
    fewer = [TF_LIKES[0], TF_LIKES[1], TF_LIKES[3]]
    assert ("t", "owl") in index.chosen(fewer) and ("t", "fox") not in index.chosen(fewer)
    check(db, "docs", mlt(fewer), index.more_like_this(fewer), TF_DOCS)


NESTED = [
    {"_id": 1, "t": "alpha beta", "meta": {"tags": ["alpha", "gamma"]},
     "reviews": [{"text": "beta"}]},
    {"_id": 2, "t": "alpha", "meta": {"tags": "alpha"}, "reviews": [{"text": "gamma beta"}]},
    {"_id": 3, "t": "gamma", "meta": {"tags": ["beta", "gamma"]}, "reviews": {"text": "alpha"}},
    {"_id": 4, "t": "beta gamma", "meta": {"director": "alpha"},
     "reviews": [{"text": "alpha"}, {"text": "beta"}]},
    {"_id": 5, "t": "delta", "meta": {"tags": ["delta"]}},
]


def test_sub_documents_and_arrays_give_each_string_its_dotted_path(db):
    db.docs.insert_many(NESTED)
    create_ready(db, "docs", DYNAMIC)
    index = Index(NESTED, dynamic)
    cases = [  # like, the documents it finds
        ({"meta": {"tags": ["alpha", "beta", 3]}}, [1, 2]),  # beta: one document's tags
        ({"reviews": [{"text": "alpha"}, {"text": "alpha beta"}]}, [1, 2, 3, 4]),
        ({"meta": {"tags": "gamma", "director": "alpha"}, "t": ["delta", "gamma"]}, [1, 3, 4]),
        ([{"meta": [{"tags": "alpha"}]}, {"t": [["alpha"]]}], [1, 2]),
        ({"t": 1, "meta": {"tags": [None, 2.5, {"x": 1}]}, "reviews": []}, []),
    ]
    for like, found in cases:
        expected = index.more_like_this(like)
        assert sorted(expected) == found, like
        check(db, "docs", mlt(like), expected, NESTED)


def test_only_the_first_5000_tokens_of_each_value_count(db):
    docs = [{"_id": 1, "t": "elk owl"}, {"_id": 2, "t": "elk"}, {"_id": 3, "t": "owl den"},
            {"_id": 4, "t": "fox"}, {"_id": 5, "t": "fox den"}, {"_id": 6, "t": "den"}]
    db.docs.insert_many(docs)
    create_ready(db, "docs", DYNAMIC)
    index = Index(docs, dynamic)
    long_value = "elk " * 4999 + "owl elk fox"  # owl is the 5000th token, fox the 5002nd
    cases = [({"t": long_value}, [1, 2, 3]),
             ({"t": [long_value, "fox"]}, [1, 2, 3, 4, 5]),
             ([{"t": long_value}, {"t": "fox"}], [1, 2, 3, 4, 5]),
             ({"t": "elk " * 5000 + "owl"}, [1, 2])]
    for like, found in cases:
        expected = index.more_like_this(like)
        assert sorted(expected) == found
        check(db, "docs", mlt(like), expected, docs)


# --- mappings and analyzers ------------------------------------------------------------------

MAPPED = [
    {"_id": 1, "t": "alpha beta", "code": "alpha", "year": 1999, "notes": "alpha",
     "meta": {"director": "beta", "writer": "alpha"}, "info": {"x": "gamma"}},
    {"_id": 2, "t": "beta", "code": "alpha", "year": 2001, "notes": "alpha gamma",
     "meta": {"director": "beta gamma", "writer": "alpha"}, "info": {"x": "gamma", "y": "beta"}},
    {"_id": 3, "t": "gamma", "code": "gamma", "notes": "beta",
     "meta": {"director": "delta", "writer": "gamma"}, "info": {"y": "beta"}},
    {"_id": 4, "t": "delta alpha", "code": "beta", "meta": {"writer": "delta"},
     "info": {"z": {"deep": "alpha"}}},
    {"_id": 5, "t": "alpha", "notes": "delta", "info": {"z": {"deep": "alpha"}}},
]
MAPPED_DEFINITION = static(
    t=STRING, code={"type": "token"}, year={"type": "number"},
    meta={"type": "document", "fields": {"director": STRING}},
    info={"type": "document", "dynamic": True})


def mapped_fields(path):
    if path in ("t", "meta.director") or path.startswith("info."):
        return dynamic(path)
    return []


def test_a_static_mapping_counts_only_the_paths_it_holds_strings_at(db):
    db.docs.insert_many(MAPPED)
    create_ready(db, "docs", MAPPED_DEFINITION)
    index = Index(MAPPED, mapped_fields)
    # The token field holds alpha in two documents, but as a token, not as text.
    assert sorted(ids(search(db, "docs", {"equals": {"path": "code", "value": "alpha"}}))) == \
        [1, 2]
    ignored = {"code": "alpha alpha", "year": "alpha", "notes": "alpha gamma",
               "meta": {"writer": "alpha"}, "unmapped": {"x": "beta"}}
    assert search(db, "docs", mlt(ignored)) == []
    assert search(db, "docs", mlt([ignored, {"meta": "beta", "info": "gamma"}])) == []
    counted = {"t": "alpha", "meta": {"director": "beta"}, "info": {"x": "gamma",
                                                                   "z": {"deep": "alpha"}}}
    expected = index.more_like_this(counted)
    assert sorted(expected) == [1, 2, 4, 5]
    check(db, "docs", mlt(counted), expected, MAPPED)
    check(db, "docs", mlt([ignored, counted]), expected, MAPPED)
    both = {**ignored, **counted, "meta": {"director": "beta", "writer": "alpha"}}
    check(db, "docs", mlt(both), expected, MAPPED)


ANIMALS = [
    {"_id": 1, "t": "The quick fox"},
    {"_id": 2, "t": "Foxes and the hound"},
    {"_id": 3, "t": "A dog runs to the river"},
    {"_id": 4, "t": "Dogs running by the river"},
    {"_id": 5, "t": "The lazy cat sleeps"},
    {"_id": 6, "t": "Cats and dogs"},
    {"_id": 7, "t": "The hounds end"},
]
LIKE_ANIMALS = {"t": "The running foxes and the dogs by the river"}


def test_an_english_field_stems_the_like_documents_words(db):
    db.docs.insert_many(ANIMALS)
    create_ready(db, "docs", static(t=ENGLISH))
    index = Index(ANIMALS, lambda path: [(path, english_stems, english_stems)] if path == "t"
                  else [])
    assert sorted(t for _, t in index.chosen(LIKE_ANIMALS)) == ["dog", "fox", "river", "run"]
    expected = index.more_like_this(LIKE_ANIMALS)
    assert sorted(expected) == [1, 2, 3, 4, 6]
    check(db, "docs", mlt(LIKE_ANIMALS), expected, ANIMALS)
    like = {"t": ["Hounds", "a cat's hound", "the the the"]}
    assert sorted(index.more_like_this(like)) == [2, 5, 6, 7]
    check(db, "docs", mlt(like), index.more_like_this(like), ANIMALS)


def test_the_like_documents_are_analyzed_by_the_fields_search_analyzer(db):
    db.docs.insert_many(ANIMALS)
    create_ready(db, "docs", static(t={"type": "string", "searchAnalyzer": "lucene.english"}),
                 name="english_queries")
    create_ready(db, "docs", static(t={"type": "string", "searchAnalyzer": "lucene.keyword"}),
                 name="keyword_queries")
    # Indexed by lucene.standard (which keeps "the", in five documents), queried in English:
    # the stop words are gone, and of run, fox, dog and river only river is in two documents.
    english_queries = Index(ANIMALS, lambda path: [(path, standard, english_stems)])
    assert english_queries.chosen(LIKE_ANIMALS) == [("t", "river")]
    check(db, "docs", mlt(LIKE_ANIMALS), english_queries.more_like_this(LIKE_ANIMALS), ANIMALS,
          index="english_queries")
    assert sorted(ids(search(db, "docs", mlt(LIKE_ANIMALS), index="english_queries"))) == [3, 4]
    # Queried as whole values: "the river" and "Dogs" are no indexed term, "river" and "and" are.
    keyword_queries = Index(ANIMALS, lambda path: [(path, standard, keyword)])
    like = {"t": ["river", "the river", "Dogs", "and"]}
    assert sorted(keyword_queries.chosen(like)) == [("t", "and"), ("t", "river")]
    check(db, "docs", mlt(like), keyword_queries.more_like_this(like), ANIMALS,
          index="keyword_queries")
    assert sorted(ids(search(db, "docs", mlt(like), index="keyword_queries"))) == [2, 3, 4, 6]


TITLES = [
    {"_id": 1, "title": "Foxes and Dogs", "plot": "a chase"},
    {"_id": 2, "title": "The Fox", "plot": "a fox"},
    {"_id": 3, "title": "Running Fox", "plot": "the chase"},
    {"_id": 4, "title": "Dogs Run"},
    {"_id": 5, "title": "Runs"},
    {"_id": 6, "title": "The", "plot": "nothing"},  # no English term: not in the multi's N
    {"_id": 7, "title": "Jumping Dogs"},
    {"_id": 8, "title": "Quick Brown Dog"},
    {"_id": 9, "title": ["Run", "The Dog"]},
]
# Stems in the index, but the like analyzed by lucene.standard.
STEMS = {"type": "string", "analyzer": "lucene.english", "searchAnalyzer": "lucene.standard"}


def test_each_multi_analyzer_is_a_field_with_its_own_statistics(db):
    db.docs.insert_many(TITLES)
    create_ready(db, "docs", static(
        title={"type": "string", "multi": {"english": ENGLISH, "stems": STEMS}}, plot=STRING))
    index = Index(TITLES, fields_of({
        "title": [("title", standard, standard), ("title\0english", english, english),
                  ("title\0stems", english, standard)],
        "plot": [("plot", standard, standard)]}))
    like = {"title": "Running foxes and dogs run"}
    # running, foxes and "and" are each in one title; their English stems run and fox in three.
    assert sorted(index.chosen(like)) == [
        ("title", "dogs"), ("title", "run"), ("title\0english", "dog"),
        ("title\0english", "fox"), ("title\0english", "run"), ("title\0stems", "run")]
    assert index.field("title\0english").n_docs == 8 and index.field("title").n_docs == 9
    expected = index.more_like_this(like)
    assert sorted(expected) == [1, 2, 3, 4, 5, 7, 8, 9]
    check(db, "docs", mlt(like), expected, TITLES)
    # "Runs" is found through the English multi alone.
    only_running = {"title": "running", "plot": "chase"}
    assert sorted(index.more_like_this(only_running)) == [1, 3, 4, 5, 9]
    check(db, "docs", mlt(only_running), index.more_like_this(only_running), TITLES)


# --- score, compound, $searchMeta, writes ----------------------------------------------------

def test_score_options_apply_to_the_summed_score(movies):
    bm25 = MOVIE_INDEX.more_like_this(LIKE_RIVER_FOX)
    assert len(bm25) >= 4
    cases = [({"boost": {"value": 2.5}}, {i: 2.5 * s for i, s in bm25.items()}),
             ({"constant": {"value": 3}}, {i: 3.0 for i in bm25}),
             ({"function": {"multiply": [{"score": "relevance"}, {"constant": 2}]}},
              {i: 2 * s for i, s in bm25.items()}),
             ({"function": {"add": [{"score": "relevance"}, {"constant": 1}]}},
              {i: s + 1 for i, s in bm25.items()})]
    for score, expected in cases:
        check(movies, "movies", mlt(LIKE_RIVER_FOX, score=score), expected, MOVIES)


def test_more_like_this_inside_compound(movies):
    plot, title = Field(MOVIES, "plot"), Field(MOVIES, "title")
    like_scores = MOVIE_INDEX.more_like_this(LIKE_RIVER_FOX)
    hounds, river, space = title.text("hound"), plot.text("river"), plot.text("space")
    fox = plot.text("fox")
    expected = {i: s + river.get(i, 0) for i, s in like_scores.items() if i not in hounds}
    assert len(expected) < len(like_scores)
    check(movies, "movies", {"compound": {
        "must": mlt(LIKE_RIVER_FOX), "mustNot": text("hound", "title"),
        "should": text("river", "plot")}}, expected, MOVIES)
    # As a filter it matches without scoring; as a should clause it adds its score.
    classic_animals = MOVIE_INDEX.more_like_this({"tags": "classic animal"})
    assert sorted(classic_animals) == [1, 4, 5, 8]
    check(movies, "movies", {"compound": {"must": text("fox", "plot"),
                                          "filter": mlt({"tags": "classic animal"})}},
          {i: s for i, s in fox.items() if i in classic_animals}, MOVIES)
    check(movies, "movies", {"compound": {"should": [mlt(LIKE_RIVER_FOX), text("space", "plot")]}},
          add(like_scores, space), MOVIES)


def test_search_meta_counts_the_documents_more_like_this_matches(movies):
    for like in [LIKE_RIVER_FOX, MOVIES[3], {"plot": "monolith"}, [MOVIES[0], MOVIES[5]]]:
        n = len(MOVIE_INDEX.more_like_this(like))
        assert search_meta(movies, "movies", mlt(copy.deepcopy(like)),
                           count={"type": "total"}) == [{"count": {"total": n}}]
    assert len(MOVIE_INDEX.more_like_this(LIKE_RIVER_FOX)) > 0
    assert search_meta(movies, "movies", mlt({"plot": "monolith"}),
                       count={"type": "total"}) == [{"count": {"total": 0}}]


def test_writes_change_which_terms_two_documents_hold(db):
    docs = {1: {"_id": 1, "t": "red fox"}, 2: {"_id": 2, "t": "blue owl"},
            3: {"_id": 3, "t": "green"}}
    db.live.insert_many([dict(d) for d in docs.values()])
    create_ready(db, "live", DYNAMIC)
    like = {"t": "fox owl"}

    def check_now(found):
        current = list(docs.values())
        expected = Index(current, dynamic).more_like_this(like)
        assert sorted(expected) == found
        check(db, "live", mlt(like), expected, current)

    check_now([])
    docs[4] = {"_id": 4, "t": "fox den"}
    db.live.insert_one(dict(docs[4]))
    check_now([1, 4])
    docs[3]["t"] = "green owl owl"
    db.live.update_one({"_id": 3}, {"$set": {"t": "green owl owl"}})
    check_now([1, 2, 3, 4])
    del docs[1]
    db.live.delete_one({"_id": 1})
    check_now([2, 3])


# --- errors ----------------------------------------------------------------------------------

def test_malformed_more_like_this_answers_bad_value(movies):
    cases = [
        ({"moreLikeThis": {}}, BAD_VALUE, "like"),
        ({"moreLikeThis": {"score": {"boost": {"value": 2}}}}, BAD_VALUE, "like"),
        ({"moreLikeThis": {"like": []}}, BAD_VALUE, "like"),
        ({"moreLikeThis": {"like": "fox"}}, BAD_VALUE, "like"),
        ({"moreLikeThis": {"like": 5}}, BAD_VALUE, "like"),
        ({"moreLikeThis": {"like": None}}, BAD_VALUE, "like"),
        ({"moreLikeThis": {"like": [{"plot": "fox"}, "fox"]}}, BAD_VALUE, "like"),
        ({"moreLikeThis": {"like": [{"plot": "fox"}, [{"plot": "dog"}]]}}, BAD_VALUE, "like"),
        ({"moreLikeThis": {"like": {"plot": "fox"}, "bogusOption": 1}}, BAD_VALUE,
         "bogusOption"),
        ({"moreLikeThis": {"like": {"plot": "fox"}, "path": "plot"}}, BAD_VALUE, "path"),
        ({"moreLikeThis": {"like": {"plot": "fox"}, "score": {"bogus": 1}}}, BAD_VALUE, "bogus"),
        ({"moreLikeThis": "fox"}, BAD_VALUE, "moreLikeThis"),
        ({"compound": {"must": [{"moreLikeThis": {"like": []}}]}}, BAD_VALUE, "like"),
    ]
    assert_errors(cases, lambda operator: search(movies, "movies", operator))

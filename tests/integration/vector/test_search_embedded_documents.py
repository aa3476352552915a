"""Atlas Search's `embeddedDocuments` mapping and `embeddedDocument` operator against a real
quarryd: each element of an array of documents (or a single sub-document) is indexed as a small
document of its own, and `embeddedDocument` matches a document when ONE of its elements matches
the inner operator by itself; the elements' scores are combined by `aggregate` (sum, maximum,
minimum, mean) and then by `outerScore`.

Covered: same-element semantics (the point of the feature), each aggregate and outerScore, the
operators that may be inside (text, phrase, compound, equals, range, in, exists, wildcard, regex,
queryString, autocomplete), fields under the mapping being invisible to operators outside
`embeddedDocument` unless the field is also mapped as a `document`, a mapping under a document
field, embeddedDocuments inside embeddedDocuments, compound at both levels, `$searchMeta` counts,
writes, and the errors.

Most expected scores come from an equivalence: inside `embeddedDocument`, BM25's statistics are
those of the elements, so a collection holding each element as a document of its own (ELEMENTS)
scores the inner operator element by element, plainly, under a `document` mapping of the same
fields; combining those scores per parent document gives what `embeddedDocument` answers on
ORDERS. test_the_element_by_element_scores_are_bm25_over_the_elements anchors that to BM25
computed here.
"""
import copy

import pytest

from test_full_text_search import (STRING, Field, assert_errors, create_index, create_ready,
                                   equals, exists, ids, in_, phrase, range_, ranked, search,
                                   search_meta, static, text)
from test_vector_search import list_indexes

NOT_IMPLEMENTED, BAD_VALUE = 238, 2

ORDERS = [
    {"_id": 1, "title": "Fruit basket with apple",
     "items": [{"name": "red apple", "color": "red", "qty": 3},
               {"name": "green pear", "color": "green", "qty": 10}]},
    {"_id": 2, "title": "Apple pie kit",
     "items": [{"name": "green apple", "color": "green", "qty": 6},
               {"name": "butter", "color": "yellow", "qty": 1}]},
    {"_id": 3, "title": "Juice",  # a single sub-document is one element
     "items": {"name": "apple apple juice", "color": "yellow", "qty": 2}},
    {"_id": 4, "title": "Pear and apple",  # only documents are elements: not "apple", not 7
     "items": ["apple", {"name": "pear", "color": "green", "qty": 4}, 7]},
    {"_id": 5, "title": "Apple crate",
     "items": [{"name": "apple", "color": "red", "qty": 1},
               {"name": "big apple", "color": "green", "qty": 12},
               {"name": "small apple tart", "color": "red", "qty": 5}]},
    {"_id": 6, "title": "Apple, no items"},
    {"_id": 7, "title": "Empty apple box", "items": []},
    {"_id": 8, "title": "Kiwi",  # two green elements, one without a name
     "items": [{"name": "kiwi", "color": "green", "qty": 2.5}, {"color": "green"}]},
]

ITEM_FIELDS = {"name": STRING, "color": {"type": "token"}, "qty": {"type": "number"}}
EMBEDDED = {"type": "embeddedDocuments", "fields": ITEM_FIELDS}
INDEXES = {  # name -> definition, on ORDERS and (the first, second and last two) ELEMENTS
    # The index under test: the root dynamic, `items` embedded.
    "default": {"mappings": {"dynamic": True, "fields": {"items": EMBEDDED}}},
    # The same fields as a plain sub-document: what operators outside embeddedDocument see.
    "flat": {"mappings": {"dynamic": True, "fields": {
        "items": {"type": "document", "fields": ITEM_FIELDS}}}},
    # Both at once, with named fields and dynamically (as Atlas's docs write it).
    "dual": {"mappings": {"dynamic": True, "fields": {
        "items": [{"type": "document", "fields": ITEM_FIELDS}, EMBEDDED]}}},
    "dual_dynamic": {"mappings": {"dynamic": True, "fields": {
        "items": [{"type": "document", "dynamic": True},
                  {"type": "embeddedDocuments", "dynamic": True}]}}},
    "grams": static(items={"type": "embeddedDocuments",
                           "fields": {"name": {"type": "autocomplete"}}}),
    "grams_flat": static(items={"type": "document", "fields": {"name": {"type": "autocomplete"}}}),
}
ELEMENT_INDEXES = ["default", "flat", "grams", "grams_flat"]

DATABASE = "t_search_embedded_documents"


# --- elements, and their scores combined -------------------------------------------------------

def value_at(doc, path):
    for key in path.split("."):
        if not isinstance(doc, dict) or key not in doc:
            return None
        doc = doc[key]
    return doc


def nest(path, value, **fields):
    for key in reversed(path.split(".")):
        value = {key: value}
    return {**fields, **value}


def elements(docs, path="items"):
    """A document {_id: "<parent _id>.<n>", <path>: element} for each element of `docs` at
    `path`: the sub-documents of an array there, or the one sub-document there."""
    out = []
    for doc in docs:
        value = value_at(doc, path)
        values = value if isinstance(value, list) else [value]
        subdocs = [v for v in values if isinstance(v, dict)]
        out += [nest(path, e, _id=f"{doc['_id']}.{n}") for n, e in enumerate(subdocs)]
    return out


def parent_of(element_id):
    parent = element_id.rpartition(".")[0]
    return int(parent) if parent.isdigit() else parent


AGGREGATES = {"sum": sum, "maximum": max, "minimum": min, "mean": lambda s: sum(s) / len(s)}


def combine(element_scores, aggregate="sum"):
    """{parent _id: the aggregate of its matching elements' scores}."""
    grouped = {}
    for element_id, score in element_scores.items():
        grouped.setdefault(parent_of(element_id), []).append(score)
    return {parent: AGGREGATES[aggregate](scores) for parent, scores in grouped.items()}


ELEMENTS = elements(ORDERS)


def test_the_corpus_is_as_described():
    assert len(ELEMENTS) == 11
    assert [e["_id"] for e in ELEMENTS if parent_of(e["_id"]) in (3, 4)] == ["3.0", "4.0"]
    assert value_at(ELEMENTS[4], "items.name") == "apple apple juice"


# --- fixture and operators ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def orders(client):
    """ORDERS under every index of INDEXES, and ELEMENTS (each element a document of its own,
    as an array of one or as a sub-document in turn) under those of ELEMENT_INDEXES."""
    client.drop_database(DATABASE)
    db = client[DATABASE]
    db.orders.insert_many(copy.deepcopy(ORDERS))
    db.elements.insert_many([{**e, "items": e["items"] if n % 2 else [e["items"]]}
                             for n, e in enumerate(copy.deepcopy(ELEMENTS))])
    for name, definition in INDEXES.items():
        create_ready(db, "orders", definition, name=name)
    for name in ELEMENT_INDEXES:
        create_ready(db, "elements", INDEXES[name], name=name)
    yield db
    client.drop_database(DATABASE)


def embedded(operator, path="items", aggregate=None, outer=None, **options):
    """{embeddedDocument: ...}; `aggregate` and `outer` (an outerScore) go in score.embedded."""
    score = {**({"aggregate": aggregate} if aggregate else {}),
             **({"outerScore": outer} if outer else {})}
    return {"embeddedDocument": {"path": path, "operator": operator,
                                 **({"score": {"embedded": score}} if score else {}),
                                 **options}}


def name(query, **options):
    return text(query, "items.name", **options)


def color(value):
    return equals("items.color", value)


def compound(must=(), should=(), must_not=(), filter_=(), **options):
    clauses = {"must": must, "should": should, "mustNot": must_not, "filter": filter_}
    return {"compound": {**{k: list(v) for k, v in clauses.items() if v}, **options}}


def wildcard(query, path="items.name"):
    return {"wildcard": {"query": query, "path": path, "allowAnalyzedField": True}}


def regex(query, path="items.name"):
    return {"regex": {"query": query, "path": path, "allowAnalyzedField": True}}


def qs(query, default_path="items.name"):
    return {"queryString": {"defaultPath": default_path, "query": query}}


def autocomplete(query, path="items.name"):
    return {"autocomplete": {"query": query, "path": path}}


def assert_same(got, want):
    """Same _ids in the same order, scores equal to within rel=1e-6."""
    assert ids(got) == ids(want)
    assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-6)


def per_element(db, operator, index="flat"):
    """{element _id: score} of `operator`, run plainly on ELEMENTS."""
    return dict(search(db, "elements", operator, index=index))


def test_the_definitions_are_listed_as_given(orders):
    for index, definition in INDEXES.items():
        (listed,) = list_indexes(orders, "orders", name=index)
        assert listed["latestDefinition"] == definition, index
        assert listed["status"] == "READY"


# --- the point: one element must match the whole inner operator --------------------------------

SAME_ELEMENT = [  # inner operator, ORDERS it finds in embeddedDocument, and on the flat fields
    (compound(must=[name("apple"), color("green")]), [2, 5], [1, 2, 5]),
    (compound(must=[name("pear"), color("red")]), [], [1]),
    (compound(must=[name("red"), name("pear")]), [], [1]),
    (compound(must=[name("apple"), range_("items.qty", gte=10)]), [5], [1, 5]),
    (compound(must=[name("apple")], must_not=[color("red")]), [2, 3, 5], [2, 3]),
    (qs("apple AND pear"), [], [1]),
    (phrase("green apple", "items.name"), [2], [2]),
]


@pytest.mark.parametrize("operator,inside,flat", SAME_ELEMENT,
                         ids=[str(n) for n in range(len(SAME_ELEMENT))])
def test_a_document_matches_only_when_one_element_meets_every_condition(
        orders, operator, inside, flat):
    assert sorted(ids(search(orders, "orders", embedded(operator)))) == inside
    # Flattened, the conditions may be met by different elements.
    assert sorted(ids(search(orders, "orders", operator, index="flat"))) == flat


# --- equivalences: scores per element, combined --------------------------------------------------

INNER = [
    ("text", name("apple")),
    ("text, two words", name("green apple")),
    ("fuzzy text", name("aple", fuzzy={"maxEdits": 1})),
    ("text, boosted", name("apple", score={"boost": {"value": 2}})),
    ("phrase", phrase("green apple", "items.name")),
    ("compound must mustNot", compound(must=[name("apple")], must_not=[color("red")])),
    ("compound must filter", compound(must=[name("apple")],
                                      filter_=[range_("items.qty", gte=5)])),
    ("compound should", compound(should=[name("apple"), name("pear"), color("green")],
                                 minimumShouldMatch=1)),
    ("equals token", color("green")),
    ("range number", range_("items.qty", gte=5)),
    ("range fraction", range_("items.qty", gt=2, lte=4)),
    ("in", in_("items.color", ["red", "yellow"])),
    ("exists", exists("items.name")),
    ("wildcard", wildcard("app*")),
    ("regex", regex("ap+le|pear")),
    ("queryString", qs("apple AND green")),
    ("queryString phrase or word", qs('"big apple" OR pear')),
]


@pytest.mark.parametrize("operator", [o for _, o in INNER], ids=[n for n, _ in INNER])
def test_on_single_elements_embedded_document_scores_as_the_operator_on_flat_fields(
        orders, operator):
    want = search(orders, "elements", operator, index="flat")
    assert want, "the equivalence is only worth something if it finds elements"
    assert_same(search(orders, "elements", embedded(operator)), want)


@pytest.mark.parametrize("aggregate", list(AGGREGATES))
@pytest.mark.parametrize("operator", [o for _, o in INNER], ids=[n for n, _ in INNER])
def test_each_aggregate_combines_the_scores_of_the_matching_elements(orders, operator, aggregate):
    want = ranked(combine(per_element(orders, operator), aggregate), ORDERS)
    assert_same(search(orders, "orders", embedded(operator, aggregate=aggregate)), want)


def test_the_element_by_element_scores_are_bm25_over_the_elements(orders):
    """Anchors the equivalences: N is the number of elements holding items.name (10, not the 6
    documents), the average length is over elements; strings in the array are no elements."""
    names = Field(ELEMENTS, "items.name")
    assert names.n_docs == 10
    for query in ["apple", "green apple", "pear juice", "kiwi"]:
        want = ranked(names.text(query), ELEMENTS)
        assert want, query
        assert_same(search(orders, "elements", name(query), index="flat"), want)
        assert_same(search(orders, "orders", embedded(name(query))),
                    ranked(combine(names.text(query)), ORDERS))
    assert 4 not in ids(search(orders, "orders", embedded(name("apple"))))


def test_sum_is_the_default_and_mean_divides_by_the_matching_elements_only(orders):
    apple = Field(ELEMENTS, "items.name").text("apple")
    got = {aggregate: dict(search(orders, "orders", embedded(name("apple"), aggregate=aggregate)))
           for aggregate in AGGREGATES}
    assert dict(search(orders, "orders", embedded(name("apple")))) == \
        pytest.approx(got["sum"], rel=1e-12)
    # Order 5's three apples score differently (their names have 1, 2 and 3 words).
    five = [apple[f"5.{n}"] for n in range(3)]
    assert five[0] > five[1] > five[2]
    assert [got[a][5] for a in AGGREGATES] == pytest.approx(
        [sum(five), five[0], five[2], sum(five) / 3], rel=1e-9)
    # Order 2's butter does not match: the mean is its apple's score, not half of it.
    assert got["mean"][2] == pytest.approx(apple["2.0"], rel=1e-9)
    # Equals scores 1 per element: order 8's two green elements sum to 2.
    green = dict(search(orders, "orders", embedded(color("green"))))
    assert green == {1: 1.0, 2: 1.0, 4: 1.0, 5: 1.0, 8: 2.0}
    assert dict(search(orders, "orders", embedded(color("green"), aggregate="mean"))) == \
        {1: 1.0, 2: 1.0, 4: 1.0, 5: 1.0, 8: 1.0}


def test_outer_score_boosts_or_replaces_the_aggregate(orders):
    apple = per_element(orders, name("apple"))
    for aggregate in [None, "maximum", "mean"]:
        combined = combine(apple, aggregate or "sum")
        got = search(orders, "orders", embedded(name("apple"), aggregate=aggregate,
                                                outer={"boost": {"value": 3}}))
        assert_same(got, ranked({i: 3 * s for i, s in combined.items()}, ORDERS))
        got = search(orders, "orders", embedded(name("apple"), aggregate=aggregate,
                                                outer={"constant": {"value": 7}}))
        assert_same(got, ranked({i: 7.0 for i in combined}, ORDERS))
    assert sorted(ids(got)) == [1, 2, 3, 5]


def test_autocomplete_inside_matches_the_grams_of_one_element(orders):
    for query, found in [("app", [1, 2, 3, 5]), ("pe", [1, 4]), ("kiw", [8]), ("zz", [])]:
        operator = autocomplete(query)
        want = ranked(combine(per_element(orders, operator, index="grams_flat")), ORDERS)
        got = search(orders, "orders", embedded(operator), index="grams")
        assert sorted(ids(got)) == found, query
        assert_same(got, want)
    both = compound(must=[autocomplete("gre"), autocomplete("pea")])
    assert ids(search(orders, "orders", embedded(both), index="grams")) == [1]
    across = compound(must=[autocomplete("red"), autocomplete("pea")])
    assert search(orders, "orders", embedded(across), index="grams") == []
    assert ids(search(orders, "orders", across, index="grams_flat")) == [1]
    assert search(orders, "orders", autocomplete("app"), index="grams") == []


# --- what operators outside embeddedDocument see -----------------------------------------------

OUTSIDE = [name("apple"), phrase("green apple", "items.name"), color("green"),
           range_("items.qty", gte=0), in_("items.color", ["red", "green"]),
           exists("items.name"), wildcard("app*"), qs("apple pear"),
           qs("items.name:apple", default_path="title")]


def test_fields_under_embedded_documents_are_invisible_outside_embedded_document(orders):
    for operator in OUTSIDE:
        assert search(orders, "orders", operator) == [], operator
        assert search(orders, "orders", operator, index="flat"), operator  # they are there
    # The root is still dynamic.
    title = Field(ORDERS, "title")
    assert_same(search(orders, "orders", text("apple", "title")),
                ranked(title.text("apple"), ORDERS))
    assert search_meta(orders, "orders", name("apple"), count={"type": "total"}) == \
        [{"count": {"total": 0}}]


@pytest.mark.parametrize("index", ["dual", "dual_dynamic"])
def test_a_field_also_mapped_as_a_document_is_searchable_both_ways(orders, index):
    operators = [name("apple"), name("green pear"), phrase("green apple", "items.name"),
                 compound(must=[name("apple"), name("green")]), qs("apple AND pear")]
    if index == "dual":  # dynamically, items.color is a string, items.qty a number
        operators += [color("green"), compound(must=[name("apple"), color("green")])]
    for operator in operators:
        # Outside, with the documents' statistics; inside, with the elements'.
        flat = search(orders, "orders", operator, index="flat")
        assert flat, operator
        assert_same(search(orders, "orders", operator, index=index), flat)
        assert_same(search(orders, "orders", embedded(operator), index=index),
                    search(orders, "orders", embedded(operator)))
    assert sorted(ids(search(orders, "orders", compound(must=[name("apple"), name("green")]),
                             index=index))) == [1, 2]
    assert sorted(ids(search(orders, "orders",
                             embedded(compound(must=[name("apple"), name("green")])),
                             index=index))) == [2]


# --- compound at both levels, $searchMeta --------------------------------------------------------

def test_embedded_document_is_a_clause_of_a_compound_over_the_documents(orders):
    title = Field(ORDERS, "title").text("apple")
    green = combine(per_element(orders, color("green")))
    apple, pear = (combine(per_element(orders, name(q))) for q in ("apple", "pear"))

    def check(operator, want, found):
        got = search(orders, "orders", operator)
        assert sorted(ids(got)) == found, operator
        assert_same(got, ranked(want, ORDERS))

    # Both: a title with apple, and a green element.
    check(compound(must=[text("apple", "title"), embedded(color("green"))]),
          {i: title[i] + green[i] for i in title if i in green}, [1, 2, 4, 5])
    # mustNot at the top excludes a document with any red element (1 and 5)...
    check(compound(must=[text("apple", "title")], must_not=[embedded(color("red"))]),
          {i: title[i] for i in (2, 4, 6, 7)}, [2, 4, 6, 7])
    # ... inside, only the red elements: 5's big apple is green.
    check(embedded(compound(must=[name("apple")], must_not=[color("red")])),
          combine(per_element(orders, compound(must=[name("apple")], must_not=[color("red")]))),
          [2, 3, 5])
    # should adds the scores of each embeddedDocument that matches.
    check(compound(should=[embedded(name("apple")), embedded(name("pear"))]),
          {i: apple.get(i, 0) + pear.get(i, 0) for i in {**apple, **pear}}, [1, 2, 3, 4, 5])
    # filter matches without scoring.
    check(compound(must=[text("apple", "title")], filter_=[embedded(range_("items.qty", gte=10))]),
          {i: title[i] for i in (1, 5)}, [1, 5])
    check(compound(must=[embedded(name("apple")), embedded(color("green"))]),
          {i: apple[i] + green[i] for i in apple if i in green}, [1, 2, 5])


def test_search_meta_counts_documents_not_elements(orders):
    for operator, n in [(embedded(name("apple")), 4),  # six apple elements in four orders
                        (embedded(color("green")), 5),
                        (embedded(compound(must=[name("apple"), color("green")])), 2),
                        (embedded(compound(must=[name("pear"), color("red")])), 0),
                        (compound(must=[text("apple", "title"), embedded(color("green"))]), 4)]:
        assert search_meta(orders, "orders", operator, count={"type": "total"}) == \
            [{"count": {"total": n}}], operator
        assert search_meta(orders, "orders", operator) == [{"count": {"lowerBound": n}}]


# --- where the mapping sits: under a document, inside embeddedDocuments ------------------------

INVOICES = [
    {"_id": 1, "customer": "ada", "order": {"number": 1, "lines": [
        {"sku": "PEN-B", "desc": "blue pen", "qty": 10},
        {"sku": "INK-R", "desc": "red ink", "qty": 1}]}},
    {"_id": 2, "customer": "bob", "order": {"number": 2, "lines": [
        {"sku": "PEN-R", "desc": "red pen", "qty": 2}]}},
    {"_id": 3, "customer": "cy", "order": {"number": 3, "lines": {
        "sku": "PAD", "desc": "blue pad of paper, blue lines", "qty": 5}}},
    {"_id": 4, "customer": "dee", "order": {"number": 4}},
]


def test_an_embedded_documents_mapping_under_a_document_field(db):
    db.invoices.insert_many(copy.deepcopy(INVOICES))
    create_ready(db, "invoices", static(customer=STRING, order={"type": "document", "fields": {
        "number": {"type": "number"},
        "lines": {"type": "embeddedDocuments", "fields": {
            "desc": STRING, "sku": {"type": "token"}, "qty": {"type": "number"}}}}}))
    lines = elements(INVOICES, "order.lines")
    assert [e["_id"] for e in lines] == ["1.0", "1.1", "2.0", "3.0"]
    desc = Field(lines, "order.lines.desc")

    def lines_of(operator, **options):
        return search(db, "invoices", embedded(operator, path="order.lines", **options))

    for query in ["blue", "red pen", "ink"]:
        assert_same(lines_of(text(query, "order.lines.desc")),
                    ranked(combine(desc.text(query)), INVOICES))
    red_pen = compound(must=[text("red", "order.lines.desc"), text("pen", "order.lines.desc")])
    assert ids(lines_of(red_pen)) == [2]  # 1 has a blue pen and red ink
    assert ids(lines_of(compound(must=[equals("order.lines.sku", "PEN-B"),
                                       range_("order.lines.qty", gte=5)]))) == [1]
    assert lines_of(compound(must=[equals("order.lines.sku", "INK-R"),
                                   range_("order.lines.qty", gte=5)])) == []
    # Outside embeddedDocument the lines are invisible; the rest of the order is not.
    assert search(db, "invoices", text("blue", "order.lines.desc")) == []
    assert search(db, "invoices", equals("order.lines.sku", "PAD")) == []
    assert sorted(ids(search(db, "invoices", compound(must=[
        range_("order.number", lte=2),
        embedded(text("red", "order.lines.desc"), path="order.lines")])))) == [1, 2]
    assert_errors([(embedded(text("blue", "order.lines.desc"), path="order"), BAD_VALUE, ""),
                   (embedded(text("blue", "order.lines.desc"), path="lines"), BAD_VALUE, "")],
                  lambda operator: search(db, "invoices", operator))


KITS = [
    {"_id": 1, "items": [
        {"name": "bike", "parts": [{"name": "steel frame", "material": "steel"},
                                   {"name": "rubber wheel", "material": "rubber"}]},
        {"name": "car", "parts": [{"name": "steel wheel", "material": "steel"}]}]},
    {"_id": 2, "items": [{"name": "bike", "parts": [{"name": "carbon frame",
                                                     "material": "carbon"}]}]},
    {"_id": 3, "items": [{"name": "car", "parts": {"name": "rubber wheel", "material": "rubber"}}]},
    {"_id": 4, "items": [{"name": "wheel"}]},  # the word at the item level, no parts
    {"_id": 5, "items": {"name": "wagon", "parts": [
        {"name": "wooden wheel", "material": "wood"},
        {"name": "spare wheel and wheel hub", "material": "steel"}]}},
]
KIT_INDEX = static(items={"type": "embeddedDocuments", "fields": {
    "name": STRING,
    "parts": {"type": "embeddedDocuments", "fields": {
        "name": STRING, "material": {"type": "token"}}}}})


@pytest.fixture
def kits(db):
    db.kits.insert_many(copy.deepcopy(KITS))
    create_ready(db, "kits", KIT_INDEX)
    return db


def part(operator, aggregate=None):
    return embedded(operator, path="items.parts", aggregate=aggregate)


def part_name(query):
    return text(query, "items.parts.name")


def kit_ids(db, operator):
    return sorted(ids(search(db, "kits", operator)))


def test_nested_embedded_documents_match_some_part_of_some_item(kits):
    assert kit_ids(kits, embedded(part(part_name("wheel")))) == [1, 3, 5]  # 4's item is named so
    # The same part: a steel wheel (1's car, 5's spare), not 3's rubber one.
    steel_wheel = compound(must=[part_name("wheel"), equals("items.parts.material", "steel")])
    assert kit_ids(kits, embedded(part(steel_wheel))) == [1, 5]
    # The same item: a car with a rubber wheel is 3; 1's rubber wheel is on its bike.
    car_with_rubber_wheel = compound(must=[text("car", "items.name"), part(compound(must=[
        part_name("wheel"), equals("items.parts.material", "rubber")]))])
    assert kit_ids(kits, embedded(car_with_rubber_wheel)) == [3]
    bike_with_frame = compound(must=[text("bike", "items.name"), part(part_name("frame"))])
    assert kit_ids(kits, embedded(bike_with_frame)) == [1, 2]
    # Parts are invisible outside their own embeddedDocument, at the item level as at the root.
    assert kit_ids(kits, embedded(part_name("wheel"))) == []
    assert kit_ids(kits, part_name("wheel")) == []
    assert kit_ids(kits, text("wheel", "items.name")) == []
    assert kit_ids(kits, embedded(text("wheel", "items.name"))) == [4]


def test_nested_scores_combine_parts_into_items_and_items_into_documents(kits):
    items = elements(KITS, "items")
    parts = elements(items, "items.parts")
    assert len(parts) == 7 and parts[-1]["_id"] == "5.0.1"
    wheel = Field(parts, "items.parts.name").text("wheel")
    assert set(wheel) == {"1.0.1", "1.1.0", "3.0.0", "5.0.0", "5.0.1"}
    for outer in AGGREGATES:
        for inner in AGGREGATES:
            want = combine(combine(wheel, inner), outer)
            got = search(kits, "kits", embedded(part(part_name("wheel"), aggregate=inner),
                                                aggregate=outer))
            assert_same(got, ranked(want, KITS))
    # An item's own text adds to its parts' score.
    bike = Field(items, "items.name").text("bike")
    frame = combine(Field(parts, "items.parts.name").text("frame"))
    bike_with_frame = compound(must=[text("bike", "items.name"), part(part_name("frame"))])
    assert_same(search(kits, "kits", embedded(bike_with_frame)),
                ranked(combine({i: bike[i] + frame[i] for i in bike if i in frame}), KITS))


# --- writes --------------------------------------------------------------------------------------

def test_writes_are_reflected_element_by_element(db):
    docs = {d["_id"]: copy.deepcopy(d) for d in ORDERS}
    db.orders.insert_many(copy.deepcopy(ORDERS))
    create_ready(db, "orders", INDEXES["default"])

    def check(query, found=None):
        current = list(docs.values())
        want = ranked(combine(Field(elements(current), "items.name").text(query)), current)
        got = search(db, "orders", embedded(name(query)))
        assert_same(got, want)
        if found is not None:
            assert sorted(ids(got)) == found, query

    check("apple", [1, 2, 3, 5])
    # Rename an element: the old name no longer matches, the new one does.
    docs[2]["items"][0]["name"] = "green quince"
    db.orders.update_one({"_id": 2}, {"$set": {"items.0.name": "green quince"}})
    check("apple", [1, 3, 5])
    check("quince", [2])
    # Push an element; give a document without items a single sub-document.
    docs[4]["items"].append({"name": "apple", "color": "red"})
    db.orders.update_one({"_id": 4}, {"$push": {"items": {"name": "apple", "color": "red"}}})
    docs[6]["items"] = {"name": "crab apple"}
    db.orders.update_one({"_id": 6}, {"$set": {"items": {"name": "crab apple"}}})
    check("apple", [1, 3, 4, 5, 6])
    # Fewer elements: 5 keeps one apple of three.
    docs[5]["items"] = [{"name": "big apple", "color": "green"}]
    db.orders.update_one({"_id": 5}, {"$set": {"items": docs[5]["items"]}})
    check("apple", [1, 3, 4, 5, 6])
    red_apples = search(db, "orders", embedded(compound(must=[name("apple"), color("red")])))
    assert sorted(ids(red_apples)) == [1, 4]
    # Delete and replace whole documents.
    del docs[1]
    db.orders.delete_one({"_id": 1})
    docs[3] = {"_id": 3, "title": "Juice", "items": [{"name": "orange juice"}]}
    db.orders.replace_one({"_id": 3}, docs[3])
    check("apple", [4, 5, 6])
    check("juice pear", [3, 4])
    docs[9] = {"_id": 9, "items": [{"name": "apple"}, {"name": "apple pie"}]}
    db.orders.insert_one(copy.deepcopy(docs[9]))
    check("apple", [4, 5, 6, 9])
    assert search_meta(db, "orders", embedded(name("apple")), count={"type": "total"}) == \
        [{"count": {"total": 4}}]


# --- errors ----------------------------------------------------------------------------------

def test_malformed_embedded_document_operators_answer_bad_value(orders):
    apple = name("apple")
    cases = [
        ({"embeddedDocument": {"operator": apple}}, BAD_VALUE, ""),
        ({"embeddedDocument": {"path": "items"}}, BAD_VALUE, ""),
        ({"embeddedDocument": {}}, BAD_VALUE, ""),
        ({"embeddedDocument": {"path": "items", "operator": {}}}, BAD_VALUE, ""),
        ({"embeddedDocument": {"path": "items", "operator": {**apple, **color("red")}}},
         BAD_VALUE, ""),
        ({"embeddedDocument": {"path": "items", "operator": "text"}}, BAD_VALUE, ""),
        ({"embeddedDocument": {"path": 5, "operator": apple}}, BAD_VALUE, ""),
        (embedded(apple, foo=1), BAD_VALUE, ""),
        # The path must be mapped as embeddedDocuments in this index.
        (embedded(text("apple", "title"), path="title"), BAD_VALUE, ""),
        (embedded(apple, path="nosuch"), BAD_VALUE, ""),
        (embedded(apple, path="items.name"), BAD_VALUE, ""),
        # The inner operators' paths must be under it.
        (embedded(text("apple", "title")), BAD_VALUE, ""),
        (embedded(text("apple", "items_extra")), BAD_VALUE, ""),
        (embedded(compound(must=[apple, text("apple", "title")])), BAD_VALUE, ""),
        (embedded(qs("apple", default_path="title")), BAD_VALUE, ""),
        # score.embedded
        (embedded(apple, aggregate="median"), BAD_VALUE, ""),
        (embedded(apple, aggregate=5), BAD_VALUE, ""),
        (embedded(apple, score={"embedded": {"aggregate": "sum", "foo": 1}}), BAD_VALUE, ""),
    ]
    assert_errors(cases, lambda operator: search(orders, "orders", operator))
    # The index decides: on "flat", items is a document.
    assert_errors([(embedded(apple), BAD_VALUE, "")],
                  lambda operator: search(orders, "orders", operator, index="flat"))


def test_a_nested_embedded_document_must_be_under_its_parent(kits):
    # A part's operators reach the part's fields only, not its item's.
    cases = [(embedded(part(text("bike", "items.name"))), BAD_VALUE, ""),
             (embedded(part(compound(must=[part_name("wheel"), text("car", "items.name")]))),
              BAD_VALUE, "")]
    assert_errors(cases, lambda operator: search(kits, "kits", operator))


def test_invalid_embedded_documents_mappings(db):
    db.create_collection("docs")
    vector = {"type": "knnVector", "dimensions": 3, "similarity": "cosine"}
    cases = [(static(items={"type": "embeddedDocuments", "bogus": 1}), BAD_VALUE, ""),
             (static(items={"type": "embeddedDocuments", "dynamic": "yes"}), BAD_VALUE, ""),
             (static(items={"type": "embeddedDocuments", "fields": {"name": {"type": "bogus"}}}),
              BAD_VALUE, ""),
             (static(items={"type": "embeddedDocuments", "fields": {"v": vector}}),
              NOT_IMPLEMENTED, "")]
    assert_errors(cases, lambda definition: create_index(db, "docs", definition))
    assert list_indexes(db, "docs") == []

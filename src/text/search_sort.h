// $search's sort option: the order of the matches by values the index holds whole (numbers,
// dates, tokens, booleans, ObjectIds, UUIDs) and by score, instead of by score alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "text/inverted_index.h"

namespace quarry::text {

struct SearchSortField {
  std::string path;
  bool by_score = false;  // {$meta: "searchScore"}: `path` only names it
  bool descending = false;
  // Where documents without a value at `path` go: above every value, or (by default) below.
  bool no_data_highest = false;
};

struct SearchSort {
  std::vector<SearchSortField> fields;
};

// {<path>: 1 | -1 | {order: 1 | -1, noData: "lowest" | "highest"}, <name>: {$meta:
// "searchScore", order: 1 | -1}, ...}. Errors: BadValue, naming the option.
StatusWith<SearchSort> ParseSearchSort(bson::ValueView spec);

// What `label` sorts by: for each field, its least value at the path when ascending and its
// greatest when descending (an array's elements each count), or MinKey or MaxKey for no value;
// null for the score, which the comparison takes apart.
bson::Document SortKeyOf(const SearchSort& sort, const InvertedIndex& index, std::uint32_t label);

// <0, 0 or >0 as the match with key `a` and score `a_score` comes before, beside or after the
// one with `b` and `b_score`. Values of different types order as MongoDB orders them.
int CompareSortKeys(const SearchSort& sort, bson::DocumentView a, double a_score,
                    bson::DocumentView b, double b_score);

}  // namespace quarry::text

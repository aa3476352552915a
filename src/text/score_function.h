// Atlas Search's score.function: an expression over a matching document's relevance score and
// the numbers its fields hold (add, multiply, constant, gauss, log, log1p, path, score), which
// replaces the operator's score, as Lucene's FunctionScoreQuery replaces it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"

namespace quarry::text {

class ScoreFunction {
 public:
  // Reads a number a path holds for one document: `undefined` where it holds none.
  using NumberAt = std::function<double(const std::string& path, double undefined)>;

  // score.function's document `value`; BadValue naming `at` when it is malformed.
  static StatusWith<ScoreFunction> Parse(bson::ValueView value, const std::string& at);

  // The paths whose numbers the expression reads.
  std::vector<std::string> Paths() const;

  // The score of a document whose relevance is `relevance`. An expression that is not a number
  // (log of a negative) or is negative scores 0, as Lucene scores it.
  double Score(double relevance, const NumberAt& number_at) const;

 private:
  enum class Kind { kAdd, kMultiply, kConstant, kGauss, kLog, kLog1p, kPath, kRelevance };
  struct Node {
    Kind kind = Kind::kConstant;
    std::vector<Node> arguments;  // add and multiply; log and log1p have one
    double constant = 0;          // constant; a path's `undefined`
    std::string path;             // path; gauss's path
    double origin = 0, scale = 1, offset = 0, decay = 0.5;  // gauss
  };

  static StatusWith<Node> ParseNode(bson::ValueView value, const std::string& at, int depth);
  static StatusWith<Node> ParsePath(bson::ValueView value, const std::string& at);
  static StatusWith<Node> ParseGauss(bson::ValueView value, const std::string& at);
  static double Evaluate(const Node& node, double relevance, const NumberAt& number_at);
  static void CollectPaths(const Node& node, std::vector<std::string>* out);

  Node root_;
};

}  // namespace quarry::text

// $project's inclusions and exclusions against find's projection, an implementation of the
// same path rules of its own: random documents (nested documents, arrays of scalars, documents
// and arrays, missing fields) under random specifications of plain and dotted paths, with and
// without _id, must come out byte for byte the same. Also checks an inclusion without computed
// fields against the same inclusion with one, which takes the value-tree path.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "bson/builder.h"
#include "pipeline/pipeline_test_util.h"
#include "query/projection/projection.h"

namespace quarry::query {
namespace {

constexpr const char* kNames[] = {"a", "b", "c"};

class RandomDocuments {
 public:
  explicit RandomDocuments(std::uint32_t seed) : random_(seed) {}

  bson::Document Next(int id) {
    bson::DocumentBuilder b;
    b.AppendInt32("_id", id);
    FillFields(&b, 0);
    return std::move(b).Finish();
  }

 private:
  int Below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }

  void FillFields(bson::DocumentBuilder* b, int depth) {
    for (const char* name : kNames) {
      if (Below(4) == 0) continue;  // missing
      AppendValue(b, name, depth);
    }
  }

  void AppendValue(bson::DocumentBuilder* b, const std::string& key, int depth) {
    const int kind = depth >= 3 ? Below(3) : Below(6);
    if (kind == 0) {
      b->AppendInt32(key, Below(100));
    } else if (kind == 1) {
      b->AppendString(key, "s" + std::to_string(Below(10)));
    } else if (kind == 2) {
      b->AppendNull(key);
    } else if (kind == 3 || kind == 4) {
      b->OpenDocument(key);
      FillFields(b, depth + 1);
      b->Close();
    } else {
      b->OpenArray(key);
      const int elements = Below(4);
      for (int i = 0; i < elements; ++i) AppendValue(b, std::to_string(i), depth + 1);
      b->Close();
    }
  }

  std::mt19937 random_;
};

// Specifications whose paths collide with none of the others ("a" with "a.b").
std::vector<std::string> Specifications() {
  const std::vector<std::string> paths = {"a", "b", "a.b", "a.c", "b.c", "c.a", "a.b.c", "c.b.a"};
  std::vector<std::string> specs;
  for (int value : {0, 1}) {
    for (unsigned mask = 1; mask < (1u << paths.size()); ++mask) {
      std::vector<std::string> chosen;
      for (std::size_t i = 0; i < paths.size(); ++i) {
        if (mask & (1u << i)) chosen.push_back(paths[i]);
      }
      bool collides = false;
      for (const std::string& x : chosen) {
        for (const std::string& y : chosen) {
          collides = collides || (x != y && y.starts_with(x + "."));
        }
      }
      if (collides) continue;
      for (const char* id : {"", "\"_id\": 0, ", "\"_id\": 1, "}) {
        if (value == 0 && std::string(id) == "\"_id\": 1, ") continue;  // mixes the modes
        std::string spec = std::string("{") + id;
        for (std::size_t i = 0; i < chosen.size(); ++i) {
          spec += (i > 0 ? ", \"" : "\"") + chosen[i] + "\": " + std::to_string(value);
        }
        specs.push_back(spec + "}");
      }
    }
  }
  return specs;
}

std::string DocumentsJson(const std::vector<bson::Document>& docs) {
  std::string out = "[";
  for (std::size_t i = 0; i < docs.size(); ++i) {
    out += (i > 0 ? ", " : "") + docs[i].view().ToCanonicalJson();
  }
  return out + "]";
}

TEST(ProjectionDifferentialTest, ProjectReshapesAsFindsProjectionDoes) {
  RandomDocuments random(20261205);
  std::vector<bson::Document> docs;
  for (int id = 0; id < 40; ++id) docs.push_back(random.Next(id));
  const std::string docs_json = DocumentsJson(docs);
  const std::vector<std::string> specs = Specifications();
  ASSERT_GT(specs.size(), 100u);
  for (const std::string& spec : specs) {
    StatusWith<std::vector<bson::Document>> projected =
        testing::RunPipeline("[{\"$project\": " + spec + "}]", docs_json);
    ASSERT_TRUE(projected.ok()) << spec << ": " << projected.status().ToString();
    const bson::Document spec_doc = testing::Doc(spec);
    StatusWith<Projection> find_projection = Projection::Parse(spec_doc);
    ASSERT_TRUE(find_projection.ok()) << spec;
    ASSERT_EQ(projected.value().size(), docs.size());
    for (std::size_t i = 0; i < docs.size(); ++i) {
      StatusWith<bson::Document> expected = find_projection.value().Apply(docs[i]);
      ASSERT_TRUE(expected.ok()) << spec;
      ASSERT_EQ(projected.value()[i].view().ToCanonicalJson(),
                expected.value().view().ToCanonicalJson())
          << spec << " over " << docs[i].view().ToCanonicalJson();
      ASSERT_EQ(projected.value()[i].bytes(), expected.value().bytes()) << spec;
    }
  }
}

TEST(ProjectionDifferentialTest, AnInclusionIsTheSameWithAComputedFieldBeside) {
  RandomDocuments random(7);
  std::vector<bson::Document> docs;
  for (int id = 0; id < 40; ++id) docs.push_back(random.Next(id));
  const std::string docs_json = DocumentsJson(docs);
  for (const std::string& spec : Specifications()) {
    if (spec.find(": 1") == std::string::npos) continue;  // inclusions only
    StatusWith<std::vector<bson::Document>> plain =
        testing::RunPipeline("[{\"$project\": " + spec + "}]", docs_json);
    const std::string with_computed =
        spec.substr(0, spec.size() - 1) + ", \"zz\": {\"$literal\": 1}}";
    StatusWith<std::vector<bson::Document>> computed = testing::RunPipeline(
        "[{\"$project\": " + with_computed + "}, {\"$unset\": \"zz\"}]", docs_json);
    ASSERT_TRUE(plain.ok() && computed.ok()) << spec;
    EXPECT_EQ(testing::CanonDocs(plain.value()), testing::CanonDocs(computed.value())) << spec;
  }
}

}  // namespace
}  // namespace quarry::query

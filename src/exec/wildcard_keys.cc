// Wildcard index keys: a walk over every leaf of the projected document (mongod's
// WildcardKeyGenerator::_traverseWildcard), each leaf keyed by its path and value.
#include <algorithm>
#include <cstdint>
#include <string>

#include "bson/builder.h"
#include "exec/index_keys_internal.h"
#include "exec/wildcard_keys_internal.h"
#include "exec/wildcard_projection.h"
#include "storage/key_encoding.h"

namespace quarry::exec {
namespace {

constexpr char kNoBytes[] = "";
const bson::ValueView kUndefined(bson::Type::kUndefined, kNoBytes, 0);

class WildcardKeyGenerator {
 public:
  WildcardKeyGenerator(const IndexDescriptor& index, KeyOutput output)
      : descending_(index.fields().front().descending),
        collator_(index.collator()),
        output_(output) {}

  DocumentKeys Run(bson::DocumentView doc, const WildcardProjection& projection) {
    bson::Document projected;
    bool skip_id = false;
    const bson::DocumentView indexed = projection.Apply(doc, &projected, &skip_id);
    std::string path;
    Traverse(indexed, /*is_array=*/false, skip_id, &path);
    // A document with a repeated field name has two leaves on one path: like an array, it makes
    // a scan of that path meet the document twice.
    std::ranges::sort(paths_);
    for (auto repeated = std::ranges::adjacent_find(paths_); repeated != paths_.end();
         repeated = std::adjacent_find(repeated + 1, paths_.end())) {
      multikey_paths_.push_back(*repeated);
    }
    std::ranges::sort(multikey_paths_);
    multikey_paths_.erase(std::unique(multikey_paths_.begin(), multikey_paths_.end()),
                          multikey_paths_.end());
    SortAndDedupKeys(&keys_);
    DocumentKeys out;
    out.keys = std::move(keys_);
    out.multikey = !multikey_paths_.empty();
    out.multikey_paths = std::move(multikey_paths_);
    return out;
  }

 private:
  // The elements of `obj` under `*path`; an array's elements keep the array's path.
  void Traverse(bson::DocumentView obj, bool is_array, bool skip_id, std::string* path) {
    for (const bson::Element& element : obj) {
      if (element.key.find('.') != std::string_view::npos) continue;
      if (skip_id && element.key == "_id") continue;
      const std::size_t parent_size = path->size();
      if (!is_array) {
        if (!path->empty()) *path += '.';
        *path += element.key;
      }
      const bson::Type type = element.value.type();
      if (type == bson::Type::kArray && is_array) {
        AddKey(*path, element.value);  // an array in an array is a value
      } else if (type == bson::Type::kArray || type == bson::Type::kDocument) {
        if (type == bson::Type::kArray) multikey_paths_.push_back(*path);
        const bson::DocumentView nested = element.value.Document();
        if (nested.empty()) {
          AddKey(*path, type == bson::Type::kArray ? kUndefined : element.value);
        } else {
          arrays_entered_ += type == bson::Type::kArray ? 1 : 0;
          Traverse(nested, type == bson::Type::kArray, /*skip_id=*/false, path);
          arrays_entered_ -= type == bson::Type::kArray ? 1 : 0;
        }
      } else {
        AddKey(*path, element.value);
      }
      path->resize(parent_size);
    }
  }

  void AddKey(const std::string& path, bson::ValueView value) {
    // Below an array, the array's path already says that keys may repeat a document.
    if (arrays_entered_ == 0) paths_.push_back(path);
    if (output_ == KeyOutput::kMultikeyOnly) return;
    IndexKey key;
    key.encoded = EncodeWildcardPath(path);
    storage::AppendIndexKey(value, descending_, collator_, &key.encoded);
    if (output_ == KeyOutput::kKeysWithValues) {
      bson::DocumentBuilder values;
      values.AppendString("$_path", path);
      values.Append(path, value);
      key.values = std::move(values).Finish();
    }
    keys_.push_back(std::move(key));
  }

  const bool descending_;
  const bson::StringComparator* const collator_;  // the index's; null: simple
  const KeyOutput output_;
  std::vector<IndexKey> keys_;
  std::vector<std::string> paths_;  // of the keys added outside arrays
  int arrays_entered_ = 0;
  std::vector<std::string> multikey_paths_;
};

}  // namespace

std::string EncodeWildcardPath(std::string_view path) {
  bson::DocumentBuilder b;
  b.AppendString("p", path);
  const bson::Document doc = std::move(b).Finish();
  return storage::EncodeIndexKey(doc.Get("p"));
}

StatusWith<DocumentKeys> GenerateWildcardKeys(const IndexDescriptor& index, bson::DocumentView doc,
                                              KeyOutput output) {
  return WildcardKeyGenerator(index, output).Run(doc, *index.wildcard());
}

}  // namespace quarry::exec

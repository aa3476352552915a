// Oplog entries: their layouts (each document copied once, straight into the entry) and the
// one parser.
#include "storage/oplog_entry.h"

#include <memory>
#include <optional>

#include "base/endian.h"
#include "bson/builder.h"
#include "bson/document_diff.h"
#include "storage/oplog_entry_internal.h"
#include "storage/record_compression.h"

namespace quarry::storage {
namespace internal {
namespace {

constexpr std::uint8_t kUuidSubtype = 4;
// Room for everything but the documents: field names, op, ns (at most 255), ui, flags, ts, wall.
constexpr std::size_t kEntryOverhead = 384;

// Appends a document field and returns where its value landed.
Span AppendDocumentAt(bson::DocumentBuilder* b, std::string_view key, bson::DocumentView doc) {
  Span span{b->size() + 1 + key.size() + 1, doc.bytes().size()};
  b->AppendDocument(key, doc);
  return span;
}

// ts placeholder, op, ns and ui: how every entry starts.
void AppendHeader(std::string_view op, std::string_view ns, std::string_view uuid,
                  bson::DocumentBuilder* b, LaidOutEntry* entry) {
  b->AppendTimestamp("ts", 0);
  b->AppendString("op", op);
  // The string's bytes follow its int32 length.
  entry->ns = Span{b->size() + 1 + 3 + 4, ns.size()};
  b->AppendString("ns", ns);
  if (!uuid.empty()) b->AppendBinary("ui", kUuidSubtype, uuid);
}

// The bytes `doc` takes in its entry: its frame's when compressed, else its own.
std::size_t StoredSize(bson::DocumentView doc, const std::string& frame) {
  return frame.empty() ? doc.bytes().size() : frame.size();
}

// A document as BSON under `key`, or as its frame under `key` + "z" (`oz`, `prez`). The frame
// of `o` is then also the stored record.
Span AppendMaybeCompressed(bson::DocumentBuilder* b, std::string_view key, bson::DocumentView doc,
                           const std::string& frame) {
  if (frame.empty()) return AppendDocumentAt(b, key, doc);
  const std::string compressed_key = std::string(key) + "z";
  // The binary's bytes follow its type, key, int32 length and subtype.
  Span span{b->size() + 1 + compressed_key.size() + 1 + 4 + 1, frame.size()};
  b->AppendBinary(compressed_key, 0, frame);
  return span;
}

void Finish(bson::DocumentBuilder* b, LaidOutEntry* entry) {
  b->AppendDate("wall", 0);
  entry->bytes = std::move(*b).FinishBytes();
}

// The frame `doc` is logged as: the one it was read from, or a new one (empty: stays BSON).
std::string PreImageFrame(bson::DocumentView doc, std::string_view read_from) {
  return read_from.empty() ? CompressRecord(doc) : std::string(read_from);
}

// Whether a change stream can show `path`, a removed field, without the pre-image: a path whose
// components could be array indexes or parts of a field name with dots is mapped to its real
// components (disambiguatedPaths) by looking it up in the pre-image.
bool ResolvesWithoutPreImage(std::string_view path) {
  return path.find('.') == std::string_view::npos &&
         path.find_first_not_of("0123456789") != std::string_view::npos;
}

// `d` (bson::DiffAsDocument), or nullopt when a change stream would need the pre-image itself.
std::optional<bson::Document> LoggedChanges(bson::DocumentView before, bson::DocumentView after) {
  const bson::DocumentDiff diff = bson::DiffDocuments(before, after);
  for (const std::string& removed : diff.removed_fields) {
    if (!ResolvesWithoutPreImage(removed)) return std::nullopt;
  }
  return bson::DiffAsDocument(diff);
}

}  // namespace

LaidOutEntry LayOutInsert(const CollectionRef& collection, bson::DocumentView document) {
  LaidOutEntry entry;
  const std::string frame = CompressRecord(document);
  bson::DocumentBuilder b(StoredSize(document, frame) + kEntryOverhead);
  AppendHeader("i", collection.ns, collection.uuid, &b, &entry);
  entry.document = AppendMaybeCompressed(&b, "o", document, frame);
  Finish(&b, &entry);
  return entry;
}

LaidOutEntry LayOutUpdate(const CollectionRef& collection, bson::DocumentView pre_image,
                          bson::DocumentView post_image, UpdateKind kind,
                          std::string_view read_frame) {
  LaidOutEntry entry;
  const std::string frame = CompressRecord(post_image);
  const std::string pre_frame = PreImageFrame(pre_image, read_frame);
  // Only a change stream's updateDescription needs the pre-image of a modification in a
  // collection without pre-images: what changed is logged instead when that is smaller (most
  // updates set a few fields of a larger document).
  std::optional<bson::Document> changes;
  if (kind == UpdateKind::kModify && !collection.pre_and_post_images && pre_frame.empty()) {
    changes = LoggedChanges(pre_image, post_image);
    if (changes.has_value() && changes->size() >= pre_image.bytes().size()) changes.reset();
  }
  bson::DocumentBuilder b(
      (changes.has_value() ? changes->size() : StoredSize(pre_image, pre_frame)) +
      StoredSize(post_image, frame) + kEntryOverhead);
  AppendHeader("u", collection.ns, collection.uuid, &b, &entry);
  b.OpenDocument("o2").Append("_id", post_image.Get("_id")).Close();
  entry.document = AppendMaybeCompressed(&b, "o", post_image, frame);
  if (changes.has_value()) {
    // The commit pipeline then keeps the pre-image it checks the stored record against itself.
    b.AppendDocument("d", *changes);
  } else {
    entry.pre = AppendMaybeCompressed(&b, "pre", pre_image, pre_frame);
  }
  if (kind == UpdateKind::kReplace) b.AppendBool("r", true);
  b.AppendBool("images", collection.pre_and_post_images);
  Finish(&b, &entry);
  return entry;
}

LaidOutEntry LayOutDelete(const CollectionRef& collection, bson::DocumentView deleted,
                          std::string_view read_frame) {
  LaidOutEntry entry;
  const bool images = collection.pre_and_post_images;
  const std::string pre_frame = images ? PreImageFrame(deleted, read_frame) : std::string();
  bson::DocumentBuilder b((images ? StoredSize(deleted, pre_frame) : 0) + kEntryOverhead);
  AppendHeader("d", collection.ns, collection.uuid, &b, &entry);
  b.OpenDocument("o").Append("_id", deleted.Get("_id")).Close();
  b.AppendBool("images", images);
  if (images) entry.pre = AppendMaybeCompressed(&b, "pre", deleted, pre_frame);
  Finish(&b, &entry);
  return entry;
}

LaidOutEntry LayOutCommand(std::string_view db, std::string_view uuid, bson::DocumentView o) {
  LaidOutEntry entry;
  bson::DocumentBuilder b(o.bytes().size() + kEntryOverhead);
  std::string ns(db);
  ns.append(".$cmd");
  AppendHeader("c", ns, uuid, &b, &entry);
  b.AppendDocument("o", o);
  Finish(&b, &entry);
  return entry;
}

void AddTransactionFields(bson::DocumentView lsid, std::int64_t txn_number, std::string* entry) {
  bson::DocumentBuilder b;
  b.AppendDocument("lsid", lsid);
  b.AppendInt64("txnNumber", txn_number);
  const bson::Document fields = std::move(b).Finish();
  // The elements alone, without the length and terminator of their document.
  const std::string_view elements = std::string_view(fields.bytes()).substr(4, fields.size() - 5);
  entry->insert(entry->size() - kWallElementSize - 1, elements);
  StoreLittleEndian32(static_cast<std::uint32_t>(entry->size()), entry->data());
}

}  // namespace internal

bool SplitNamespace(std::string_view ns, std::string_view* db, std::string_view* coll) {
  std::size_t dot = ns.find('.');
  if (dot == std::string_view::npos) {
    *db = ns;
    *coll = {};
    return false;
  }
  *db = ns.substr(0, dot);
  *coll = ns.substr(dot + 1);
  return true;
}

std::optional<std::string_view> StoredRecordOf(bson::DocumentView entry) {
  for (const bson::Element& e : entry) {
    if (e.key == "o" && e.value.type() == bson::Type::kDocument) {
      return e.value.Document().bytes();
    }
    if (e.key == "oz" && e.value.type() == bson::Type::kBinary) return e.value.Binary().data;
  }
  return std::nullopt;
}

bson::ValueView OplogEntry::DocumentId() const {
  if (op == "u" && o2.has_value()) {
    bson::ValueView id = o2->Get("_id");
    if (id.exists()) return id;
  }
  return o.Get("_id");
}

StatusWith<OplogEntry> ParseOplogEntry(bson::DocumentView raw) {
  OplogEntry entry;
  bool has_ts = false;
  bool has_op = false;
  bool has_ns = false;
  bool has_o = false;
  for (const bson::Element& e : raw) {
    if (e.key == "ts" && e.value.type() == bson::Type::kTimestamp) {
      entry.ts = e.value.Timestamp();
      has_ts = true;
    } else if (e.key == "wall" && e.value.type() == bson::Type::kDate) {
      entry.wall_ms = e.value.Date();
    } else if (e.key == "op" && e.value.type() == bson::Type::kString) {
      entry.op = e.value.String();
      has_op = true;
    } else if (e.key == "ns" && e.value.type() == bson::Type::kString) {
      SplitNamespace(e.value.String(), &entry.db, &entry.coll);
      has_ns = true;
    } else if (e.key == "ui" && e.value.type() == bson::Type::kBinary) {
      entry.uuid = e.value.Binary().data;
    } else if (e.key == "o" && e.value.type() == bson::Type::kDocument) {
      entry.o = e.value.Document();
      has_o = true;
    } else if (e.key == "oz" && e.value.type() == bson::Type::kBinary) {
      StatusWith<std::string> inflated = InflateRecord(e.value.Binary().data);
      if (!inflated.ok()) return inflated.status();
      entry.inflated_o = std::make_shared<const std::string>(std::move(inflated).value());
      entry.o = bson::DocumentView(entry.inflated_o->data());
      has_o = true;
    } else if (e.key == "o2" && e.value.type() == bson::Type::kDocument) {
      entry.o2 = e.value.Document();
    } else if (e.key == "pre" && e.value.type() == bson::Type::kDocument) {
      entry.pre = e.value.Document();
    } else if (e.key == "prez" && e.value.type() == bson::Type::kBinary) {
      StatusWith<std::string> inflated = InflateRecord(e.value.Binary().data);
      if (!inflated.ok()) return inflated.status();
      entry.inflated_pre = std::make_shared<const std::string>(std::move(inflated).value());
      entry.pre = bson::DocumentView(entry.inflated_pre->data());
    } else if (e.key == "d" && e.value.type() == bson::Type::kDocument) {
      entry.changes = e.value.Document();
    } else if (e.key == "r" && e.value.type() == bson::Type::kBool) {
      entry.replace = e.value.Bool();
    } else if (e.key == "images" && e.value.type() == bson::Type::kBool) {
      entry.images = e.value.Bool();
    } else if (e.key == "lsid" && e.value.type() == bson::Type::kDocument) {
      entry.lsid = e.value.Document();
    } else if (e.key == "txnNumber" && e.value.type() == bson::Type::kInt64) {
      entry.txn_number = e.value.Int64();
    }
  }
  if (!has_ts || !has_op || !has_ns || (!has_o && entry.op != "n")) {
    return Status(ErrorCode::kInternalError, "malformed oplog entry: " + raw.ToJson());
  }
  return entry;
}

}  // namespace quarry::storage

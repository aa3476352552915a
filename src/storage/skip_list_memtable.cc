// Storage's own memtable skip list. RocksDB's skip list in Debian's librocksdb, which is built
// with its assertions on, compares each inserted key with its neighbours again at every level
// it links, so that most of an index key's comparisons checked the insert instead of finding its
// place. This one does the comparisons a search needs and no more.
//
// One writer at a time (RocksDB's write group leader) links nodes; readers walk the list
// without locks, since a node is fully written before the release store that links it and
// nodes are never unlinked: the memtable's arena frees them all at once.
#include <rocksdb/slice.h>

#include <atomic>
#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "base/endian.h"
#include "storage/skip_list_memtable_internal.h"

namespace quarry::storage::internal {
namespace {

constexpr int kMaxHeight = 12;
// One node in four reaches the next level up: searches compare about 4 × log4(n) keys, and
// twelve levels serve 4^12 (16 million) keys, far more than a memtable holds.
constexpr std::uint32_t kBranching = 4;

// A node's key follows it in the same allocation, and its links above level 0 precede it,
// level i at (&next0)[-i], so a node of height 1 costs one pointer besides its key.
struct Node {
  std::atomic<Node*>& Next(int level) { return (&next0)[-level]; }
  const char* Key() const { return reinterpret_cast<const char*>(this + 1); }

  std::atomic<Node*> next0;
};

// Where an insert starts looking: the node before the last inserted key at each level (that
// key itself, at the levels it reached). Each level's node precedes or equals the one below it.
struct Splice {
  Node* prev[kMaxHeight];
};

// A memtable key is its internal key's length as a varint32, then the internal key: the user
// key and 8 little-endian bytes of (sequence << 8 | type).
rocksdb::Slice LengthPrefixed(const char* key) {
  std::uint32_t length = 0;
  const auto* at = reinterpret_cast<const unsigned char*>(key);
  for (int shift = 0; shift <= 28; shift += 7) {
    const std::uint32_t byte = *at++;
    length |= (byte & 0x7F) << shift;
    if (byte < 0x80) break;
  }
  return {reinterpret_cast<const char*>(at), length};
}

constexpr std::size_t kTrailerBytes = 8;

// RocksDB's order of internal keys under its bytewise comparator: user keys bytewise, then the
// newer (higher sequence) first.
int CompareInternalKeys(const rocksdb::Slice& a, const rocksdb::Slice& b) {
  const rocksdb::Slice user_a(a.data(), a.size() - kTrailerBytes);
  const rocksdb::Slice user_b(b.data(), b.size() - kTrailerBytes);
  if (const int order = user_a.compare(user_b); order != 0) return order;
  const std::uint64_t trailer_a = LoadLittleEndian64(user_a.data() + user_a.size());
  const std::uint64_t trailer_b = LoadLittleEndian64(user_b.data() + user_b.size());
  return trailer_a > trailer_b ? -1 : (trailer_a < trailer_b ? 1 : 0);
}

// Whether `compare` orders as CompareInternalKeys does, tried on keys whose user keys a reversed
// or otherwise custom comparator would order differently: a family with such a comparator
// keeps calling it.
bool OrdersAsBytewise(const rocksdb::MemTableRep::KeyComparator& compare) {
  auto memtable_key = [](std::string_view user_key, std::uint64_t sequence) {
    std::string key(1, static_cast<char>(user_key.size() + kTrailerBytes));
    key.append(user_key);
    AppendLittleEndian64(sequence << 8 | 1, &key);
    return key;
  };
  const std::string keys[] = {memtable_key("a", 5), memtable_key("a", 9), memtable_key("ab", 1),
                              memtable_key("b", 1), memtable_key("B", 7), memtable_key("", 3)};
  auto sign = [](int order) { return (order > 0) - (order < 0); };
  for (const std::string& a : keys) {
    for (const std::string& b : keys) {
      const int expected = CompareInternalKeys(LengthPrefixed(a.data()), LengthPrefixed(b.data()));
      if (sign(compare(a.data(), b.data())) != sign(expected)) return false;
    }
  }
  return true;
}

class SkipListRep;

// An iterator's storage is taken from and given back to a small pool of the thread that
// destroys it: RocksDB either deletes an iterator or, when it placed it in an arena of its
// own, only runs its destructor, and a pool whose slots only their last user's thread reuses
// serves both without a heap allocation for each Get.
class IteratorPool {
 public:
  ~IteratorPool() {
    for (void* slot : free_) ::operator delete(slot);
    ::operator delete(retired_);
  }
  void* Take(std::size_t bytes) {
    if (free_.empty()) return ::operator new(bytes);
    void* slot = free_.back();
    free_.pop_back();
    return slot;
  }
  // Called from the iterator's destructor: the slot is reused only after that destructor has
  // returned, by the same thread; past the pool's size, the slot given back before is freed.
  void Give(void* slot) {
    if (free_.size() < kMaxFree) {
      free_.push_back(slot);
      return;
    }
    ::operator delete(retired_);
    retired_ = slot;
  }

 private:
  static constexpr std::size_t kMaxFree = 16;
  std::vector<void*> free_;
  void* retired_ = nullptr;
};

IteratorPool& ThreadIteratorPool() {
  thread_local IteratorPool pool;
  return pool;
}

class SkipListRep final : public rocksdb::MemTableRep {
 public:
  SkipListRep(const KeyComparator& compare, rocksdb::Allocator* allocator)
      : MemTableRep(allocator),
        compare_(compare),
        bytewise_(OrdersAsBytewise(compare)),
        head_(NewNode(kMaxHeight, 0)) {
    for (int level = 0; level < kMaxHeight; ++level) {
      head_->Next(level).store(nullptr, std::memory_order_relaxed);
    }
    last_insert_ = NewSplice();
  }

  rocksdb::KeyHandle Allocate(const size_t len, char** buf) override {
    Node* node = NewNode(RandomHeight(), len);
    *buf = const_cast<char*>(node->Key());
    return node;
  }

  void Insert(rocksdb::KeyHandle handle) override {
    Link(static_cast<Node*>(handle), last_insert_);
  }
  bool InsertKey(rocksdb::KeyHandle handle) override {
    return Link(static_cast<Node*>(handle), last_insert_);
  }
  void InsertWithHint(rocksdb::KeyHandle handle, void** hint) override {
    InsertKeyWithHint(handle, hint);
  }
  bool InsertKeyWithHint(rocksdb::KeyHandle handle, void** hint) override {
    if (*hint == nullptr) *hint = NewSplice();
    return Link(static_cast<Node*>(handle), static_cast<Splice*>(*hint));
  }

  bool Contains(const char* key) const override {
    Node* found = FindGreaterOrEqual([&](Node* node) { return CompareKeys(node->Key(), key); });
    return found != nullptr && CompareKeys(found->Key(), key) == 0;
  }

  // For size estimates (collStats, indexSizes) of data still in the memtable.
  uint64_t ApproximateNumEntries(const rocksdb::Slice& start_ikey,
                                 const rocksdb::Slice& end_ikey) override {
    const std::uint64_t before_end = CountBefore(end_ikey);
    const std::uint64_t before_start = CountBefore(start_ikey);
    return before_end > before_start ? before_end - before_start : 0;
  }

  // Memory comes from the memtable's arena, which the memtable counts itself.
  size_t ApproximateMemoryUsage() override { return 0; }

  Iterator* GetIterator(rocksdb::Arena* /*arena*/) override;
  Iterator* GetDynamicPrefixIterator(rocksdb::Arena* arena) override;

  // The first node whose key `compare` (a node's key against the target) does not put before
  // the target, or null.
  template <typename Compare>
  Node* FindGreaterOrEqual(const Compare& compare) const {
    Node* at = head_;
    int level = max_height_.load(std::memory_order_relaxed) - 1;
    Node* known_after = nullptr;  // a node already compared at the level above: not before
    while (true) {
      Node* next = at->Next(level).load(std::memory_order_acquire);
      const int order = (next == nullptr || next == known_after) ? 1 : compare(next);
      if (order < 0) {
        at = next;
      } else if (order == 0 || level == 0) {
        return next;
      } else {
        known_after = next;
        --level;
      }
    }
  }

  // The last node whose key `compare` puts before the target, or null.
  template <typename Compare>
  Node* FindLessThan(const Compare& compare) const {
    Node* at = head_;
    int level = max_height_.load(std::memory_order_relaxed) - 1;
    Node* known_not_before = nullptr;
    while (true) {
      Node* next = at->Next(level).load(std::memory_order_acquire);
      if (next != nullptr && next != known_not_before && compare(next) < 0) {
        at = next;
      } else if (level == 0) {
        return at == head_ ? nullptr : at;
      } else {
        known_not_before = next;
        --level;
      }
    }
  }

  Node* FindLast() const {
    return FindLessThan([](Node*) { return -1; });
  }

  // About how many keys precede `internal_key`: the nodes a search passes at each level, each
  // standing for kBranching times as many as one a level below.
  std::uint64_t CountBefore(const rocksdb::Slice& internal_key) const {
    Node* at = head_;
    int level = max_height_.load(std::memory_order_relaxed) - 1;
    std::uint64_t count = 0;
    while (true) {
      Node* next = at->Next(level).load(std::memory_order_acquire);
      if (next != nullptr && CompareKeys(next->Key(), internal_key) < 0) {
        at = next;
        ++count;
      } else if (level == 0) {
        return count;
      } else {
        count *= kBranching;
        --level;
      }
    }
  }

  Node* First() const { return head_->Next(0).load(std::memory_order_acquire); }

  // How memtable key `a` orders against memtable key `b`, or against `internal_key`, as the
  // memtable's comparator orders them.
  int CompareKeys(const char* a, const char* b) const {
    return bytewise_ ? CompareInternalKeys(LengthPrefixed(a), LengthPrefixed(b)) : compare_(a, b);
  }
  int CompareKeys(const char* a, const rocksdb::Slice& internal_key) const {
    return bytewise_ ? CompareInternalKeys(LengthPrefixed(a), internal_key)
                     : compare_(a, internal_key);
  }

 private:
  // Memory for a node of `height` levels and a key of `key_bytes`, from the memtable's arena,
  // whose own allocations are not aligned.
  Node* NewNode(int height, std::size_t key_bytes) {
    const std::size_t links_below = sizeof(std::atomic<Node*>) * (height - 1);
    char* raw = nullptr;
    MemTableRep::Allocate(links_below + sizeof(Node) + key_bytes + alignof(Node) - 1, &raw);
    char* start = AlignUp(raw, alignof(Node));
    Node* node = new (start + links_below) Node;
    for (int level = 1; level < height; ++level) new (&node->Next(level)) std::atomic<Node*>;
    // The height waits in the level-0 link until the node is linked.
    node->next0.store(reinterpret_cast<Node*>(static_cast<std::uintptr_t>(height)),
                      std::memory_order_relaxed);
    return node;
  }

  Splice* NewSplice() {
    char* raw = nullptr;
    MemTableRep::Allocate(sizeof(Splice) + alignof(Splice) - 1, &raw);
    Splice* splice = new (AlignUp(raw, alignof(Splice))) Splice;
    for (Node*& prev : splice->prev) prev = head_;
    return splice;
  }

  static char* AlignUp(char* raw, std::size_t alignment) {
    const auto at = reinterpret_cast<std::uintptr_t>(raw);
    return raw + ((alignment - at % alignment) % alignment);
  }

  int RandomHeight() {
    int height = 1;
    while (height < kMaxHeight && NextRandom() % kBranching == 0) ++height;
    return height;
  }

  std::uint32_t NextRandom() {
    // xorshift32: the heights need only be independent of the keys.
    random_ ^= random_ << 13;
    random_ ^= random_ >> 17;
    random_ ^= random_ << 5;
    return random_;
  }

  int Compare(const Node* a, const Node* b) const { return CompareKeys(a->Key(), b->Key()); }

  // Moves `*prev` along `level` to the last node before `node`'s key; returns the node after
  // it (null at the end) and, in `*order`, how that node compares with `node`.
  Node* WalkLevel(int level, const Node* node, Node** prev, int* order) const {
    Node* next = (*prev)->Next(level).load(std::memory_order_relaxed);
    *order = 1;
    while (next != nullptr && (*order = Compare(next, node)) < 0) {
      *prev = next;
      next = next->Next(level).load(std::memory_order_relaxed);
      *order = 1;
    }
    return next;
  }

  // Links `node` in its place, starting from `splice`, which it leaves pointing at `node`.
  // False, with nothing linked, when an equal key is there already.
  bool Link(Node* node, Splice* splice) {
    const int height = static_cast<int>(
        reinterpret_cast<std::uintptr_t>(node->next0.load(std::memory_order_relaxed)));
    if (height > list_height_) {
      // Levels above the old height hold only the head, where every splice already points.
      list_height_ = height;
      max_height_.store(height, std::memory_order_relaxed);
    }
    // The lowest level whose splice node precedes the key and whose next node follows it: the
    // search needs no level above it (but those the new node reaches).
    Node* next[kMaxHeight];
    int order = 1;
    int start = 0;
    bool precedes = false;  // once true at a level, true at every level above it
    for (;; ++start) {
      Node* prev = splice->prev[start];
      precedes = precedes || prev == head_ || Compare(prev, node) < 0;
      if (start == list_height_ - 1) {
        if (!precedes) splice->prev[start] = head_;
        next[start] = WalkLevel(start, node, &splice->prev[start], &order);
        break;
      }
      if (!precedes) continue;
      next[start] = prev->Next(start).load(std::memory_order_relaxed);
      if (next[start] == nullptr || (order = Compare(next[start], node)) > 0) break;
      // The key lies beyond this level's next node (or equals it): look from higher up.
    }
    for (int level = start + 1; level < height; ++level) {
      int ignored;
      next[level] = WalkLevel(level, node, &splice->prev[level], &ignored);
    }
    for (int level = start - 1; level >= 0; --level) {
      splice->prev[level] = splice->prev[level + 1];
      next[level] = WalkLevel(level, node, &splice->prev[level], &order);
    }
    if (next[0] != nullptr && order == 0) return false;
    for (int level = 0; level < height; ++level) {
      node->Next(level).store(next[level], std::memory_order_relaxed);
      splice->prev[level]->Next(level).store(node, std::memory_order_release);
      splice->prev[level] = node;
    }
    return true;
  }

  const KeyComparator& compare_;
  const bool bytewise_;  // compare_ is RocksDB's internal-key order over bytewise user keys
  Node* const head_;
  std::atomic<int> max_height_{1};  // what readers see of list_height_
  int list_height_ = 1;             // the writer's own copy
  std::uint32_t random_ = 0x9E3779B9u;
  Splice* last_insert_ = nullptr;  // for inserts without a hint
};

class ListIterator final : public rocksdb::MemTableRep::Iterator {
 public:
  // `pooled`: whether the storage came from the thread's IteratorPool.
  ListIterator(const SkipListRep* list, bool pooled) : list_(list), pooled_(pooled) {}
  ~ListIterator() override {
    if (pooled_) ThreadIteratorPool().Give(this);
  }
  // The storage goes back to the pool in the destructor, if it came from there.
  static void operator delete(void*) {}

  bool Valid() const override { return node_ != nullptr; }
  const char* key() const override { return node_->Key(); }
  void Next() override { node_ = node_->Next(0).load(std::memory_order_acquire); }
  void Prev() override {
    const char* key = node_->Key();
    node_ = list_->FindLessThan([&](Node* node) { return list_->CompareKeys(node->Key(), key); });
  }
  // `memtable_key`, when given, is `internal_key` with its length in front: the internal key
  // alone is enough to compare with.
  void Seek(const rocksdb::Slice& internal_key, const char* /*memtable_key*/) override {
    node_ = list_->FindGreaterOrEqual(
        [&](Node* node) { return list_->CompareKeys(node->Key(), internal_key); });
  }
  void SeekForPrev(const rocksdb::Slice& internal_key, const char* /*memtable_key*/) override {
    // The last node at or before the target: every node not after it counts as before.
    node_ = list_->FindLessThan(
        [&](Node* node) { return list_->CompareKeys(node->Key(), internal_key) > 0 ? 1 : -1; });
  }
  void SeekToFirst() override { node_ = list_->First(); }
  void SeekToLast() override { node_ = list_->FindLast(); }

 private:
  const SkipListRep* list_;
  const bool pooled_;
  Node* node_ = nullptr;
};

rocksdb::MemTableRep::Iterator* SkipListRep::GetIterator(rocksdb::Arena* /*arena*/) {
  return new (ThreadIteratorPool().Take(sizeof(ListIterator))) ListIterator(this, true);
}

// RocksDB's MemTableRep::Get, through which every point read of a memtable goes, takes an
// iterator from here without an arena and never deletes it. Each thread's reads share one in
// storage of the thread's own, made anew for each read and never freed: a read does not outlive
// the call, and a caller that deletes the iterator only runs its destructor, which owns nothing.
rocksdb::MemTableRep::Iterator* SkipListRep::GetDynamicPrefixIterator(rocksdb::Arena* arena) {
  if (arena != nullptr) return GetIterator(arena);
  alignas(ListIterator) thread_local unsigned char storage[sizeof(ListIterator)];
  return new (storage) ListIterator(this, false);
}

class SkipListMemtableFactory final : public rocksdb::MemTableRepFactory {
 public:
  const char* Name() const override { return "QuarrySkipList"; }
  rocksdb::MemTableRep* CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& compare,
                                          rocksdb::Allocator* allocator,
                                          const rocksdb::SliceTransform* /*hint_prefix*/,
                                          rocksdb::Logger* /*logger*/) override {
    return new SkipListRep(compare, allocator);
  }
  // InsertKey reports an equal key instead of linking it.
  bool CanHandleDuplicatedKey() const override { return true; }
};

}  // namespace

std::shared_ptr<rocksdb::MemTableRepFactory> NewSkipListMemtableFactory() {
  return std::make_shared<SkipListMemtableFactory>();
}

}  // namespace quarry::storage::internal

// NBT reader (voxen/import/nbt.h).
#include "voxen/import/nbt.h"

#include <bit>

namespace voxen::import {

std::string_view nbt_type_name(NbtType type) {
  switch (type) {
    case NbtType::kEnd: return "TAG_End";
    case NbtType::kByte: return "TAG_Byte";
    case NbtType::kShort: return "TAG_Short";
    case NbtType::kInt: return "TAG_Int";
    case NbtType::kLong: return "TAG_Long";
    case NbtType::kFloat: return "TAG_Float";
    case NbtType::kDouble: return "TAG_Double";
    case NbtType::kByteArray: return "TAG_Byte_Array";
    case NbtType::kString: return "TAG_String";
    case NbtType::kList: return "TAG_List";
    case NbtType::kCompound: return "TAG_Compound";
    case NbtType::kIntArray: return "TAG_Int_Array";
    case NbtType::kLongArray: return "TAG_Long_Array";
  }
  return "unknown";
}

const NbtTag* NbtCompound::find(std::string_view name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return &tags[i];
  return nullptr;
}

const NbtTag* NbtTag::get(std::string_view name, NbtType want) const {
  const NbtCompound* c = compound();
  if (c == nullptr) return nullptr;
  const NbtTag* t = c->find(name);
  return t != nullptr && t->type == want ? t : nullptr;
}

namespace {

// The fewest bytes a payload of each type takes (the bound a list's length is checked against).
size_t min_payload(NbtType t) {
  switch (t) {
    case NbtType::kEnd: return 0;
    case NbtType::kByte: return 1;
    case NbtType::kShort: return 2;
    case NbtType::kInt: return 4;
    case NbtType::kLong: return 8;
    case NbtType::kFloat: return 4;
    case NbtType::kDouble: return 8;
    case NbtType::kByteArray: return 4;
    case NbtType::kString: return 2;
    case NbtType::kList: return 5;
    case NbtType::kCompound: return 1;
    case NbtType::kIntArray: return 4;
    case NbtType::kLongArray: return 4;
  }
  return 1;
}

class Reader {
 public:
  Reader(std::span<const uint8_t> bytes, std::string_view source, const NbtLimits& limits)
      : m_bytes(bytes), m_source(source), m_limits(limits) {}

  Result<NbtRoot> root() {
    NbtRoot r;
    const size_t at = m_pos;
    uint8_t id = 0;
    if (!u8(id, "the root tag's type")) return take_error();
    if (id == 0 || id > 12) return fail(at, "the root tag's type is " + std::to_string(id) + ", not a tag");
    if (!string(r.name, "the root tag's name")) return take_error();
    m_path.push_back({r.name.empty() ? std::string("(root)") : r.name, -1});
    if (!payload(static_cast<NbtType>(id), r.tag, 0)) return take_error();
    return r;
  }

 private:
  std::string path() const {
    std::string p;
    for (const PathPart& s : m_path) {
      if (s.index >= 0) {
        p.append("[").append(std::to_string(s.index)).append("]");
        continue;
      }
      if (!p.empty()) p += '.';
      p += s.name;
    }
    return p.empty() ? "(root)" : p;
  }
  // One more tag: false (an error) past the limit.
  bool count_tag() {
    if (++m_tags <= m_limits.max_tags) return true;
    return set_error(m_pos, "more than " + std::to_string(m_limits.max_tags) + " tags");
  }
  bool set_error(size_t at, std::string message) {
    if (!m_failed) {
      m_failed = true;
      m_error.file = std::string(m_source);
      m_error.offset = static_cast<int64_t>(at);
      m_error.message = "NBT " + path() + ": " + std::move(message);
    }
    return false;
  }
  Result<NbtRoot> fail(size_t at, std::string message) {
    set_error(at, std::move(message));
    return take_error();
  }
  Result<NbtRoot> take_error() { return m_error; }

  size_t left() const { return m_bytes.size() - m_pos; }
  bool need(size_t n, const char* what) {
    if (left() >= n) return true;
    return set_error(m_pos, std::string(what) + ": " + std::to_string(n) + " bytes needed, " + std::to_string(left()) +
                                " left (truncated)");
  }
  uint64_t be(size_t n) {  // n bytes, big-endian; need() checked
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = v << 8 | m_bytes[m_pos + i];
    m_pos += n;
    return v;
  }
  bool u8(uint8_t& v, const char* what) {
    if (!need(1, what)) return false;
    v = static_cast<uint8_t>(be(1));
    return true;
  }
  // A length (i32) for `count` elements of at least `each` bytes: refused when negative or longer than the bytes
  // left, before anything is allocated.
  bool length(int32_t& n, size_t each, const char* what) {
    const size_t at = m_pos;
    if (!need(4, what)) return false;
    n = static_cast<int32_t>(static_cast<uint32_t>(be(4)));
    if (n < 0) return set_error(at, std::string(what) + " is negative (" + std::to_string(n) + ")");
    if (each > 0 && static_cast<uint64_t>(n) * each > left())
      return set_error(at, std::string(what) + " " + std::to_string(n) + " needs at least " +
                               std::to_string(static_cast<uint64_t>(n) * each) + " bytes, " + std::to_string(left()) +
                               " left");
    return true;
  }

  // Java's modified UTF-8 into UTF-8: code units of 1 to 3 bytes (U+0000 as C0 80), surrogate pairs joined, a lone
  // surrogate as U+FFFD.
  bool string(std::string& out, const char* what) {
    if (!need(2, what)) return false;
    const size_t n = static_cast<size_t>(be(2));
    const size_t at = m_pos;
    if (!need(n, what)) return false;
    const uint8_t* p = m_bytes.data() + m_pos;
    m_pos += n;
    out.clear();
    out.reserve(n);
    std::vector<uint32_t>& units = m_units;
    units.clear();
    for (size_t i = 0; i < n;) {
      const uint8_t b = p[i];
      uint32_t u = 0;
      size_t len = 0;
      if (b < 0x80) u = b, len = 1;
      else if ((b & 0xE0) == 0xC0) u = b & 0x1Fu, len = 2;
      else if ((b & 0xF0) == 0xE0) u = b & 0x0Fu, len = 3;
      else return set_error(at + i, std::string(what) + ": byte 0x" + hex(b) + " cannot start a modified UTF-8 character");
      if (i + len > n) return set_error(at + i, std::string(what) + ": a modified UTF-8 character runs past the string's end");
      for (size_t k = 1; k < len; ++k) {
        if ((p[i + k] & 0xC0) != 0x80)
          return set_error(at + i + k, std::string(what) + ": byte 0x" + hex(p[i + k]) + " is not a continuation byte");
        u = u << 6 | (p[i + k] & 0x3Fu);
      }
      units.push_back(u);
      i += len;
    }
    for (size_t i = 0; i < units.size(); ++i) {
      uint32_t c = units[i];
      if (c >= 0xD800 && c <= 0xDBFF && i + 1 < units.size() && units[i + 1] >= 0xDC00 && units[i + 1] <= 0xDFFF) {
        c = 0x10000 + ((c - 0xD800) << 10) + (units[i + 1] - 0xDC00);
        ++i;
      } else if (c >= 0xD800 && c <= 0xDFFF) {
        c = 0xFFFD;
      }
      append_utf8(out, c);
    }
    return true;
  }
  static void append_utf8(std::string& s, uint32_t c) {
    if (c < 0x80) {
      s += static_cast<char>(c);
    } else if (c < 0x800) {
      s += static_cast<char>(0xC0 | (c >> 6));
      s += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      s += static_cast<char>(0xE0 | (c >> 12));
      s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      s += static_cast<char>(0xF0 | (c >> 18));
      s += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  static std::string hex(uint8_t b) {
    const char* d = "0123456789ABCDEF";
    return {d[b >> 4], d[b & 15]};
  }

  // A Byte, Short, Int or Long payload: n big-endian bytes, sign-extended into `tag`.
  bool integer(NbtTag& tag, size_t n, const char* what) {
    if (!need(n, what)) return false;
    const int unused = static_cast<int>(64 - 8 * n);
    tag.value = static_cast<int64_t>(be(n) << unused) >> unused;
    return true;
  }

  // An Int_Array or Long_Array payload (i32 length, then that many big-endian T) into `tag`.
  template <typename T>
  bool number_array(NbtTag& tag, const char* what) {
    int32_t n = 0;
    if (!length(n, sizeof(T), what)) return false;
    std::vector<T> v(static_cast<size_t>(n));
    for (T& x : v) x = static_cast<T>(be(sizeof(T)));  // two's complement: the low sizeof(T) bytes
    tag.value = std::move(v);
    return true;
  }

  // The payload of a tag of `type` at nesting depth `depth` (of the compounds and lists around it).
  bool payload(NbtType type, NbtTag& tag, int depth) {
    tag.type = type;
    switch (type) {
      case NbtType::kByte: return integer(tag, 1, "a TAG_Byte");
      case NbtType::kShort: return integer(tag, 2, "a TAG_Short");
      case NbtType::kInt: return integer(tag, 4, "a TAG_Int");
      case NbtType::kLong: return integer(tag, 8, "a TAG_Long");
      case NbtType::kFloat:
        if (!need(4, "a TAG_Float")) return false;
        tag.value = static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(be(4))));
        return true;
      case NbtType::kDouble:
        if (!need(8, "a TAG_Double")) return false;
        tag.value = std::bit_cast<double>(be(8));
        return true;
      case NbtType::kByteArray: {
        int32_t n = 0;
        if (!length(n, 1, "a TAG_Byte_Array's length")) return false;
        const uint8_t* p = m_bytes.data() + m_pos;
        std::vector<int8_t> v(reinterpret_cast<const int8_t*>(p), reinterpret_cast<const int8_t*>(p) + n);
        m_pos += static_cast<size_t>(n);
        tag.value = std::move(v);
        return true;
      }
      case NbtType::kString: {
        std::string s;
        if (!string(s, "a TAG_String")) return false;
        tag.value = std::move(s);
        return true;
      }
      case NbtType::kIntArray: return number_array<int32_t>(tag, "a TAG_Int_Array's length");
      case NbtType::kLongArray: return number_array<int64_t>(tag, "a TAG_Long_Array's length");
      case NbtType::kList: {
        if (depth + 1 > m_limits.max_depth)
          return set_error(m_pos, "nested deeper than " + std::to_string(m_limits.max_depth) + " lists and compounds");
        const size_t at = m_pos;
        uint8_t id = 0;
        if (!u8(id, "a TAG_List's element type")) return false;
        if (id > 12) return set_error(at, "a TAG_List's element type " + std::to_string(id) + " is not a tag type");
        NbtList list;
        list.element = static_cast<NbtType>(id);
        int32_t n = 0;
        if (!length(n, min_payload(list.element), "a TAG_List's length")) return false;
        if (list.element == NbtType::kEnd && n > 0)
          return set_error(at, "a TAG_List of TAG_End holds " + std::to_string(n) + " items");
        // Items are added as they are read, never allocated up front by the length: a list's length is checked
        // against the bytes left, but a list nested in its first item is checked against the same bytes, so
        // allocating by lengths would let each level claim the whole input again (16,000 times a 1 MiB input for 256
        // levels, found by review). Read one by one, every tag costs at least one input byte.
        for (int32_t i = 0; i < n; ++i) {
          if (!count_tag()) return false;
          m_path.push_back({std::string(), i});
          list.items.emplace_back();
          if (!payload(list.element, list.items.back(), depth + 1)) return false;
          m_path.pop_back();
        }
        tag.value = std::move(list);
        return true;
      }
      case NbtType::kCompound: {
        if (depth + 1 > m_limits.max_depth)
          return set_error(m_pos, "nested deeper than " + std::to_string(m_limits.max_depth) + " lists and compounds");
        NbtCompound c;
        for (;;) {
          const size_t at = m_pos;
          uint8_t id = 0;
          if (!u8(id, "a TAG_Compound's next tag type (no TAG_End)")) return false;
          if (id == 0) break;
          if (id > 12) return set_error(at, "tag type " + std::to_string(id) + " is not a tag type");
          std::string name;
          if (!string(name, "a tag's name")) return false;
          if (!count_tag()) return false;
          m_path.push_back({name, -1});
          NbtTag child;
          if (!payload(static_cast<NbtType>(id), child, depth + 1)) return false;
          m_path.pop_back();
          c.names.push_back(std::move(name));
          c.tags.push_back(std::move(child));
        }
        tag.value = std::move(c);
        return true;
      }
      case NbtType::kEnd:
        break;
    }
    return set_error(m_pos, "a payload of TAG_End");
  }

  std::span<const uint8_t> m_bytes;
  std::string_view m_source;
  NbtLimits m_limits;
  size_t m_pos = 0;
  struct PathPart {
    std::string name;    // a compound member's name
    int64_t index = -1;  // or a list item's index
  };
  std::vector<PathPart> m_path;
  size_t m_tags = 0;
  std::vector<uint32_t> m_units;
  bool m_failed = false;
  Error m_error;
};

}  // namespace

Result<NbtRoot> read_nbt(std::span<const uint8_t> bytes, std::string_view source, const NbtLimits& limits) {
  return Reader(bytes, source, limits).root();
}

}  // namespace voxen::import

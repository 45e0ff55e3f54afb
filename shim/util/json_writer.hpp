#pragma once
// Writing one JSON object, such as a run-log line, straight into a string: no DOM, no
// allocation per value. The shim writes a line per tool run, and a DOM library added tens of
// microseconds and a few hundred kilobytes of code to every start.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace util {

class JsonWriter {
 public:
  JsonWriter() = default;
  // Goes on with an object another writer began and left open, with at least one field in it
  // (its str() then): a line started in one process and finished in another.
  static JsonWriter continuing_object(std::string begun) {
    JsonWriter j;
    j.out_ = std::move(begun);
    j.first_.push_back(false);
    return j;
  }
  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  JsonWriter& key(std::string_view name);  // then exactly one value or container

  JsonWriter& value(std::string_view s);  // bytes that are not UTF-8 become U+FFFD
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(long long n);
  JsonWriter& value(int n) { return value(static_cast<long long>(n)); }
  JsonWriter& value(long n) { return value(static_cast<long long>(n)); }
  JsonWriter& value(double d);  // shortest form that reads back the same; NaN and infinities: null
  JsonWriter& null();
  // A string, or null when it is empty / absent.
  JsonWriter& string_or_null(std::string_view s) { return s.empty() ? null() : value(s); }
  template <typename T>
  JsonWriter& value(const std::optional<T>& v) { return v ? value(*v) : null(); }
  JsonWriter& value(const std::vector<std::string>& list);

  // key(name).value(v) in one call.
  template <typename T>
  JsonWriter& field(std::string_view name, const T& v) { return key(name).value(v); }

  const std::string& str() const { return out_; }

 private:
  void separate();
  JsonWriter& open(char bracket);
  JsonWriter& close(char bracket);
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

// A JSON string literal (with quotes) for `s`, as JsonWriter writes it.
void append_json_string(std::string& out, std::string_view s);

}  // namespace util

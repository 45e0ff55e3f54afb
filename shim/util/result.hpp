#pragma once
// The one way a function says it failed: a Result<T> holds the value or an Error
// carrying the reason, ready for the message the user reads (which file, which line, what is
// wrong, what would be right). Modelled on std::expected (C++23; this project builds as C++20)
// and ccache's tl::expected use. Status is a Result with no value: Ok or the reason.
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace util {

struct Error {
  std::string message;
};

struct Ok {};

// E: what a failure carries; Error (a message) unless the caller needs more, such as a place in
// a file (util::TomlProblem).
template <class T, class E = Error>
class [[nodiscard]] Result {
 public:
  Result(T value) : held_(std::in_place_index<0>, std::move(value)) {}
  Result(E error) : held_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return held_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // The value; only when ok().
  T& operator*() & { return std::get<0>(held_); }
  const T& operator*() const& { return std::get<0>(held_); }
  T&& operator*() && { return std::get<0>(std::move(held_)); }
  T* operator->() { return &std::get<0>(held_); }
  const T* operator->() const { return &std::get<0>(held_); }

  // The reason; only when !ok().
  const std::string& error() const
    requires std::is_same_v<E, Error>
  {
    return std::get<1>(held_).message;
  }
  // The whole failure; only when !ok().
  const E& failure() const { return std::get<1>(held_); }
  // Passes the reason on through a function of another Result type.
  E take_error() && { return std::get<1>(std::move(held_)); }

 private:
  std::variant<T, E> held_;
};

using Status = Result<Ok>;

inline Error fail(std::string message) { return Error{std::move(message)}; }

}  // namespace util

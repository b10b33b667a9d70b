#pragma once
// Result<T>: a value or an Error. Core I/O and import never throw across module boundaries; they
// return a Result whose Error names the file and the place ("trace.json: byte 1234: ...").

#include <string>
#include <utility>
#include <variant>

namespace chokepoint::core {

struct Error {
    std::string message;
};

template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_state(std::move(value)) {}      // NOLINT(google-explicit-constructor)
    Result(Error error) : m_state(std::move(error)) {}  // NOLINT(google-explicit-constructor)

    bool ok() const { return std::holds_alternative<T>(m_state); }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<T>(m_state); }
    const T& value() const& { return std::get<T>(m_state); }
    T&& value() && { return std::get<T>(std::move(m_state)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }

    const Error& error() const { return std::get<Error>(m_state); }

private:
    std::variant<T, Error> m_state;
};

// Result<void> equivalent.
struct Ok {};
using Status = Result<Ok>;

inline Error makeError(std::string message) {
    return Error{std::move(message)};
}

}  // namespace chokepoint::core

// The text helpers the command language and the key map share.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace vp::text {

inline bool isBlank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// `s` in lower case (ASCII).
inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// `s` without leading and trailing blanks.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && isBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && isBlank(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace vp::text

#include "gpu/filters/chain.h"

#include "gpu/filters/registry.h"

#include <cctype>
#include <charconv>

namespace vp {
namespace {

bool isBlank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// A piece of the chain text and where it starts in it.
struct Piece {
  std::string_view text;
  size_t at = 0;
};

Piece trimmed(Piece p) {
  while (!p.text.empty() && isBlank(p.text.front())) p.text.remove_prefix(1), ++p.at;
  while (!p.text.empty() && isBlank(p.text.back())) p.text.remove_suffix(1);
  return p;
}

// Splits at `sep` outside '...' quotes; throws on an unclosed quote.
std::vector<Piece> split(Piece whole, char sep) {
  std::vector<Piece> out;
  size_t start = 0;
  bool quoted = false;
  for (size_t i = 0; i < whole.text.size(); ++i) {
    const char c = whole.text[i];
    if (c == '\'') quoted = !quoted;
    else if (c == sep && !quoted) {
      out.push_back({whole.text.substr(start, i - start), whole.at + start});
      start = i + 1;
    }
  }
  if (quoted) throw ChainError(whole.at + whole.text.size(), "a closing ' was expected");
  out.push_back({whole.text.substr(start), whole.at + start});
  return out;
}

// The first `sep` outside quotes, or npos.
size_t findOutsideQuotes(std::string_view s, char sep) {
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\'') quoted = !quoted;
    else if (s[i] == sep && !quoted) return i;
  }
  return std::string_view::npos;
}

std::string unquote(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '\'') out += c;
  return out;
}

std::string optionList(const FilterInfo& f) {
  std::string out;
  for (int i = 0; i < f.optionCount; ++i) out += (i ? ", " : "") + std::string(f.options[i].name);
  return out.empty() ? "none" : out;
}

FilterElement elementOf(Piece p, const ElementDefaults& defaults) {
  p = trimmed(p);
  if (p.text.empty()) throw ChainError(p.at, "a filter name was expected (" + filterNames(", ") + ")");
  const size_t eq = p.text.find('=');
  const Piece name = trimmed({p.text.substr(0, eq), p.at});
  const FilterInfo* filter = findFilter(name.text);
  if (!filter)
    throw ChainError(name.at, "unknown filter '" + std::string(name.text) + "' (filters: " + filterNames(", ") + ")");
  FilterElement e = defaults ? defaults(*filter) : FilterElement(*filter);
  if (eq == std::string_view::npos) return e;
  int next = 0;  // the option a bare value fills
  std::vector<bool> given(size_t(filter->optionCount), false);
  for (Piece opt : split({p.text.substr(eq + 1), p.at + eq + 1}, ':')) {
    opt = trimmed(opt);
    if (opt.text.empty())
      throw ChainError(opt.at, "an option of " + std::string(filter->name) + " was expected (" + optionList(*filter) + ")");
    const size_t oeq = findOutsideQuotes(opt.text, '=');
    int index = next;
    Piece value = opt;
    if (oeq != std::string_view::npos) {
      const Piece key = trimmed({opt.text.substr(0, oeq), opt.at});
      index = filter->optionIndex(key.text);
      if (index < 0)
        throw ChainError(key.at, "unknown option '" + std::string(key.text) + "' of " + filter->name + " (" +
                                     optionList(*filter) + ")");
      value = trimmed({opt.text.substr(oeq + 1), opt.at + oeq + 1});
    } else if (index >= filter->optionCount) {
      throw ChainError(opt.at, std::string(filter->name) + " takes at most " + std::to_string(filter->optionCount) +
                                   " options (" + optionList(*filter) + ")");
    }
    if (given[size_t(index)])
      throw ChainError(opt.at, "option '" + std::string(filter->options[index].name) + "' is given twice");
    given[size_t(index)] = true;
    try {
      e.set(index, parseOptionValue(filter->options[index], unquote(value.text)));
    } catch (const std::invalid_argument& bad) {
      throw ChainError(value.at, std::string(filter->name) + ": " + bad.what() + ", not '" +
                                     std::string(value.text) + "'");
    }
    next = index + 1;
  }
  return e;
}

}  // namespace

ChainError::ChainError(size_t position, const std::string& what)
    : std::invalid_argument("at " + std::to_string(position) + ": " + what), position_(position) {}

void FilterChain::add(const FilterElement& element) {
  if (size_ == kMaxChainLength)
    throw std::invalid_argument("a chain holds at most " + std::to_string(kMaxChainLength) + " filters");
  elements_[size_t(size_++)] = element;
}

void FilterChain::remove(int i) {
  for (int j = i; j + 1 < size_; ++j) elements_[size_t(j)] = elements_[size_t(j + 1)];
  --size_;
}

int FilterChain::enabledCount() const {
  int n = 0;
  for (const FilterElement& e : *this) n += e.enabled();
  return n;
}

bool FilterChain::sameShape(const FilterChain& o) const {
  if (size_ != o.size_) return false;
  for (int i = 0; i < size_; ++i)
    if (&(*this)[i].filter() != &o[i].filter()) return false;
  return true;
}

int FilterChain::find(std::string_view name, int from) const {
  for (int i = from; i < size_; ++i)
    if ((*this)[i].name() == name) return i;
  return -1;
}

bool FilterChain::operator==(const FilterChain& o) const {
  if (size_ != o.size_) return false;
  for (int i = 0; i < size_; ++i)
    if ((*this)[i] != o[i]) return false;
  return true;
}

FilterElement parseElement(std::string_view text, const ElementDefaults& defaults) {
  for (Piece p : split({text, 0}, ','))
    if (p.at != 0) throw ChainError(p.at - 1, "one filter was expected, not a chain");
  return elementOf({text, 0}, defaults);
}

FilterChain parseChain(std::string_view text, const ElementDefaults& defaults) {
  FilterChain chain;
  const Piece whole = trimmed({text, 0});
  if (whole.text.empty() || whole.text == "none") return chain;
  for (const Piece& p : split(whole, ',')) {
    if (chain.size() == kMaxChainLength)
      throw ChainError(p.at, "a chain holds at most " + std::to_string(kMaxChainLength) + " filters");
    chain.add(elementOf(p, defaults));
  }
  return chain;
}

std::string formatElement(const FilterElement& e) {
  const FilterInfo& f = e.filter();
  std::string out = f.name;
  for (int i = 0; i < f.optionCount; ++i)
    out += (i ? ":" : "=") + std::string(f.options[i].name) + "=" + formatOptionValue(f.options[i], e.value(i));
  return out;
}

std::string formatChain(const FilterChain& chain) {
  std::string out;
  for (const FilterElement& e : chain) out += (out.empty() ? "" : ",") + formatElement(e);
  return out.empty() ? "none" : out;
}

std::string describeElement(const FilterElement& e) {
  const FilterInfo& f = e.filter();
  std::string out = f.name;
  bool first = true;
  for (int i = 0; i < f.optionCount; ++i) {
    if (e.value(i) == f.options[i].def) continue;
    out += (first ? "=" : ":") + std::string(f.options[i].name) + "=" + formatOptionValue(f.options[i], e.value(i));
    first = false;
  }
  return e.enabled() ? out : out + " (off)";
}

std::string describeChain(const FilterChain& chain) {
  std::string out;
  for (const FilterElement& e : chain) out += (out.empty() ? "" : ",") + describeElement(e);
  return out.empty() ? "none" : out;
}

std::string elementLabel(const FilterChain& chain, int i) {
  return std::string(chain[i].name()) + "#" + std::to_string(i + 1);
}

int resolveElement(const FilterChain& chain, std::string_view target, std::string_view option) {
  const auto hasOption = [&](int i) { return option.empty() || chain[i].filter().optionIndex(option) >= 0; };
  if (target.empty()) {
    for (int i = 0; i < chain.size(); ++i)
      if (hasOption(i)) return i;
    throw std::invalid_argument("no filter of the chain has option '" + std::string(option) + "'");
  }
  int index = -1;
  std::string_view name = target;
  const size_t hash = target.find('#');
  std::string_view position = hash == std::string_view::npos ? std::string_view() : target.substr(hash + 1);
  if (hash != std::string_view::npos) {
    name = target.substr(0, hash);
    if (position.empty()) throw std::invalid_argument("a position was expected after '" + std::string(target) + "'");
  }
  else if (!target.empty() && std::isdigit(static_cast<unsigned char>(target.front()))) position = target, name = {};
  if (!position.empty()) {
    int n = 0;
    const auto [ptr, ec] = std::from_chars(position.data(), position.data() + position.size(), n);
    if (ec != std::errc() || ptr != position.data() + position.size() || n < 1 || n > chain.size())
      throw std::invalid_argument("no element " + std::string(position) + " in the chain (it has " +
                                  std::to_string(chain.size()) + ")");
    index = n - 1;
    if (!name.empty() && chain[index].name() != name)
      throw std::invalid_argument("element " + std::to_string(n) + " is " + std::string(chain[index].name()) +
                                  ", not " + std::string(name));
  } else {
    index = chain.find(name);
    if (index < 0) throw std::invalid_argument("no " + std::string(name) + " in the chain");
  }
  if (!hasOption(index))
    throw std::invalid_argument(elementLabel(chain, index) + " has no option '" + std::string(option) + "'");
  return index;
}

}  // namespace vp

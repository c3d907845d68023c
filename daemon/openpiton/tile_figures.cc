#include "openpiton/tile_figures.h"

#include <fstream>
#include <vector>

namespace mace::openpiton {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Leading blanks, then digits (a $time), then one blank: what `%0d ` and `$time` print.
std::string_view after_time(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  const std::size_t digits = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i == digits || i >= s.size() || s[i] != ' ') return {};
  return s.substr(i + 1);
}

// "TILE<n>" at the start of `s`: n, and `s` moved past it.
std::optional<int> tile_prefix(std::string_view& s) {
  if (!s.starts_with("TILE")) return std::nullopt;
  std::size_t i = 4;
  int tile = 0;
  while (i < s.size() && is_digit(s[i]) && i < 10) tile = tile * 10 + (s[i++] - '0');
  if (i == 4 || tile >= TileFiguresScanner::kMaxTiles) return std::nullopt;
  s.remove_prefix(i);
  return tile;
}

}  // namespace

void TileFiguresScanner::line(std::string_view s) {
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  auto count = [&](int tile, TileCounter counter) { ++figures_[tile][static_cast<std::size_t>(counter)]; };
  // The L2 monitor's blocks: a "TILE3-----" line names the tile of the lines below it.
  if (std::string_view rest = s; auto tile = tile_prefix(rest)) {
    if (rest.starts_with("-----")) {
      l2_block_tile_ = tile;
      return;
    }
    // "TILE3 noc2 flit raw: 0x..."
    if (rest.size() > 15 && rest.starts_with(" noc") && rest.substr(5).starts_with(" flit raw:")) {
      const char noc = rest[4];
      if (noc == '1') count(*tile, TileCounter::noc1_flits);
      if (noc == '2') count(*tile, TileCounter::noc2_flits);
      if (noc == '3') count(*tile, TileCounter::noc3_flits);
    }
    return;
  }
  if (s.starts_with("P1S2 valid: l2_way_sel: ") && l2_block_tile_) {
    const std::size_t hit = s.find(", l2_hit: ");
    if (hit != std::string_view::npos && hit + 10 < s.size()) {
      const char bit = s[hit + 10];
      if (bit == '1') count(*l2_block_tile_, TileCounter::l2_lookup_hits);
      if (bit == '0') count(*l2_block_tile_, TileCounter::l2_lookup_misses);
    }
    return;
  }
  // "<time> TILE3 L1.5 th0: Received PCX ...", "<time> TILE3 L1.5: Sending NOC1 ..."
  std::string_view rest = after_time(s);
  auto tile = tile_prefix(rest);
  if (!tile || !rest.starts_with(" L1.5")) return;
  rest.remove_prefix(5);
  if (rest.starts_with(": Sending NOC1 ")) {
    count(*tile, TileCounter::l15_requests_to_l2);
  } else if (rest.starts_with(" th")) {
    const std::size_t colon = rest.find(':');
    if (colon != std::string_view::npos && rest.substr(colon).starts_with(": Received PCX "))
      count(*tile, TileCounter::core_requests);
  }
}

void TileFiguresScanner::feed(std::string_view chunk) {
  while (!chunk.empty()) {
    const std::size_t newline = chunk.find('\n');
    const std::string_view piece = chunk.substr(0, newline);
    if (!overlong_) {
      if (partial_.size() + piece.size() > kMaxLineBytes) {
        overlong_ = true;
        partial_.clear();
      } else {
        partial_.append(piece);
      }
    }
    if (newline == std::string_view::npos) return;
    if (!overlong_) line(partial_);
    partial_.clear();
    overlong_ = false;
    chunk.remove_prefix(newline + 1);
  }
}

TileFigures TileFiguresScanner::finish() {
  if (!overlong_ && !partial_.empty()) line(partial_);
  partial_.clear();
  overlong_ = false;
  return std::move(figures_);
}

std::optional<TileFigures> tile_figures_of(const std::filesystem::path& sim_log) {
  std::ifstream in(sim_log, std::ios::binary);
  if (!in) return std::nullopt;
  TileFiguresScanner scanner;
  std::vector<char> block(1 << 20);
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const std::streamsize got = in.gcount();
    if (got <= 0) break;
    scanner.feed(std::string_view(block.data(), static_cast<std::size_t>(got)));
  }
  if (in.bad()) return std::nullopt;
  return scanner.finish();
}

}  // namespace mace::openpiton

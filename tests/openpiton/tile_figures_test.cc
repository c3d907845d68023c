// What each tile did, counted from OpenPiton's monitor lines (openpiton/tile_figures.h), as
// they appear in a real transcript of a model built without MINIMAL_MONITORING.

#include "openpiton/tile_figures.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/child_process.h"

namespace mace::openpiton {
namespace {

// Lines as a pico 1x1 run of add.S printed them on the pinned commit (cut), and a second
// tile's as a 2x1 mesh prints them.
constexpr std::string_view kTranscript =
    "2670500 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x0040000000, nc 0, size 3, invalall 0\n"
    "   Data: 0x0000000000000000\n"
    "2671000 TILE0 L1.5: Sending NOC1 L15_NOC1_REQTYPE_LD_REQUEST   mshrid 0, nc 0, size 3, pf 0, address 1073741824\n"
    "TILE0 noc1 flit raw: 0x0000000000000000\n"
    "TILE0 noc1 flit raw: 0x0000000000000001\n"
    "TILE0-------------------------------------\n"
    "             2675750\n"
    "             2675750 P1S2 msg type:     ld_req     addr: 0x0040000000, Data_size: 011, cache_type: 0\n"
    "P1S2 valid: l2_way_sel: 00, l2_hit: 0, l2_evict: 0, l2_wb: 0\n"
    "TILE0 noc2 flit raw: 0x0000000000000002\n"
    "TILE1-------------------------------------\n"
    "P1S2 valid: l2_way_sel: 01, l2_hit: 1, l2_evict: 0, l2_wb: 0\n"
    "TILE1 noc3 flit raw: 0x0000000000000003\n"
    "2700000 TILE1 L1.5 th0: Received PCX PCX_REQTYPE_STORE  Addr 0x0040000010, nc 0, size 3\n"
    "7110750: Simulation -> PASS (HIT GOOD TRAP)\n";

int64_t of(const TileFigures& f, int tile, TileCounter c) { return f.at(tile)[static_cast<std::size_t>(c)]; }

TEST(TileFiguresTest, EachMonitorLineCountsForItsTile) {
  TileFiguresScanner scanner;
  scanner.feed(kTranscript);
  const TileFigures f = scanner.finish();
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(of(f, 0, TileCounter::core_requests), 1);
  EXPECT_EQ(of(f, 0, TileCounter::l15_requests_to_l2), 1);
  EXPECT_EQ(of(f, 0, TileCounter::noc1_flits), 2);
  EXPECT_EQ(of(f, 0, TileCounter::l2_lookup_misses), 1);
  EXPECT_EQ(of(f, 0, TileCounter::l2_lookup_hits), 0);
  EXPECT_EQ(of(f, 0, TileCounter::noc2_flits), 1);
  EXPECT_EQ(of(f, 1, TileCounter::l2_lookup_hits), 1) << "the L2 block's header names its tile";
  EXPECT_EQ(of(f, 1, TileCounter::noc3_flits), 1);
  EXPECT_EQ(of(f, 1, TileCounter::core_requests), 1);
}

TEST(TileFiguresTest, PiecesOfAnySizeCountTheSame) {
  for (std::size_t step : {1u, 2u, 7u, 64u}) {
    TileFiguresScanner scanner;
    for (std::size_t i = 0; i < kTranscript.size(); i += step) scanner.feed(kTranscript.substr(i, step));
    TileFiguresScanner whole;
    whole.feed(kTranscript);
    EXPECT_EQ(scanner.finish(), whole.finish()) << step;
  }
}

TEST(TileFiguresTest, WithoutMonitorsThereIsNothingAndLinesThatOnlyLookAlikeDoNotCount) {
  TileFiguresScanner scanner;
  scanner.feed("7110750: Simulation -> PASS (HIT GOOD TRAP)\n"
               "TILE0 noc9 flit raw: 0x0\n"
               "TILE99999999 noc1 flit raw: 0x0\n"
               "xTILE0 noc1 flit raw: 0x0\n"
               "P1S2 valid: l2_way_sel: 00, l2_hit: 1\n"  // no L2 block before it
               "2670500 TILE0 L1.5 th0: Sent CPX LOAD_RET\n");
  EXPECT_TRUE(scanner.finish().empty());
}

TEST(TileFiguresTest, AnOverlongLineIsSkippedWholeAndMemoryStaysBounded) {
  TileFiguresScanner scanner;
  scanner.feed("TILE0 noc1 flit raw: ");
  scanner.feed(std::string(TileFiguresScanner::kMaxLineBytes * 4, 'x'));
  scanner.feed("\nTILE0 noc1 flit raw: 0x1\nTILE0 noc1 flit raw: 0x2");  // the last unterminated
  const TileFigures f = scanner.finish();
  EXPECT_EQ(of(f, 0, TileCounter::noc1_flits), 2);
}

TEST(TileFiguresTest, AFileIsReadWholeAndAMissingOneIsNone) {
  mace::testing::TempDir dir;
  dir.write("sim.log", std::string(kTranscript));
  const auto f = tile_figures_of(dir.file("sim.log"));
  ASSERT_TRUE(f);
  EXPECT_EQ(of(*f, 0, TileCounter::noc1_flits), 2);
  EXPECT_EQ(tile_figures_of(dir.file("none.log")), std::nullopt);
}

}  // namespace
}  // namespace mace::openpiton

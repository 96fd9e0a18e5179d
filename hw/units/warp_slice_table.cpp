#include "hw/units/warp_slice_table.hpp"

#include <algorithm>
#include <bit>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "models/ptx/ir.hpp"
#include "models/ptx/reconvergence.hpp"

namespace simtlm::hw {

namespace {

ptx::LaneMask lanes_from(uint32_t first, uint32_t count) {
  const uint64_t ones = (uint64_t{1} << count) - 1;
  return static_cast<ptx::LaneMask>(ones << first);
}

uint32_t ceil_log2(uint32_t n) {
  return n <= 1 ? 0 : std::bit_width(n - 1);
}

uint32_t bytes_of(uint64_t bits) {
  return static_cast<uint32_t>((bits + 7) / 8);
}

// Builds an error message by streaming (GCC 12 warns falsely on "literal" + std::string).
template <typename... Parts>
std::string text(const Parts&... parts) {
  std::ostringstream out;
  out << "warp-slice table: ";
  (out << ... << parts);
  return out.str();
}

}  // namespace

WarpSliceTable::WarpSliceTable(uint32_t warps, uint32_t lanes, uint32_t stack_rows)
    : warps_(warps), lanes_(lanes), stack_rows_(stack_rows) {
  if (warps == 0 || lanes == 0 || lanes > 32 || stack_rows == 0)
    throw std::invalid_argument("warp-slice table: needs warps >= 1, 1 <= lanes <= 32 and stack_rows >= 1");
  reset();
}

void WarpSliceTable::reset() {
  entries_.assign(capacity(), SliceEntry{});
  stacks_.assign(warps_, std::vector<PhysicalRow>(stack_rows_, PhysicalRow{std::vector<Column>(lanes_), 0}));
  for (uint32_t w = 0; w < warps_; ++w)
    entries_[w * lanes_] = SliceEntry{lanes_from(0, lanes_), 0, w, 1, 0, SliceStatus::finished};
}

const SliceEntry& WarpSliceTable::entry(uint32_t e) const {
  if (e >= entries_.size()) throw std::out_of_range(text("no entry ", e));
  return entries_[e];
}

const SliceEntry& WarpSliceTable::live(uint32_t e) const {
  const SliceEntry& s = entry(e);
  if (s.status == SliceStatus::off) throw std::logic_error(text("entry ", e, " is off"));
  return s;
}

SliceEntry& WarpSliceTable::live(uint32_t e) {
  return const_cast<SliceEntry&>(std::as_const(*this).live(e));
}

SliceEntry& WarpSliceTable::with_task(uint32_t e) {
  SliceEntry& s = live(e);
  if (s.tos == 0) throw std::logic_error(text("entry ", e, " has no task"));
  return s;
}

WarpSliceTable::Column& WarpSliceTable::column(const SliceEntry& s, uint32_t row) {
  return stacks_[s.warp][row].columns[s.slice - 1];
}

const WarpSliceTable::Column& WarpSliceTable::column(const SliceEntry& s, uint32_t row) const {
  return stacks_[s.warp][row].columns[s.slice - 1];
}

ptx::LaneMask WarpSliceTable::row_mask(const SliceEntry& s, uint32_t row) const {
  return stacks_[s.warp][row].mask & s.mask;
}

void WarpSliceTable::set_row(SliceEntry& s, uint32_t row, uint32_t pc, uint32_t reconvergence_pc,
                             ptx::LaneMask mask) {
  PhysicalRow& r = stacks_[s.warp][row];
  r.columns[s.slice - 1] = Column{pc, reconvergence_pc};
  // The slice writes only its own bits of the shared word: the other slices' rows stay intact.
  r.mask = (r.mask & ~s.mask) | (mask & s.mask);
}

void WarpSliceTable::require_rows(const SliceEntry& s, uint32_t rows, uint32_t pc) const {
  if (rows <= stack_rows_) return;
  std::ostringstream pc_hex;
  pc_hex << std::hex << pc;
  throw std::runtime_error(text("the reconvergence stack of warp ", s.warp, " slice ", s.slice, " needs ",
                                rows, " rows at PC 0x", pc_hex.str(), " (it has ", stack_rows_, ")"));
}

uint32_t WarpSliceTable::merge(uint32_t warp) {
  if (warp >= warps_) throw std::out_of_range(text("no warp ", warp));
  ptx::LaneMask mask = 0;
  uint32_t pc = 0;
  bool first = true;
  for (uint32_t lane = 0; lane < lanes_; ++lane) {
    const SliceEntry& s = entries_[warp * lanes_ + lane];
    if (s.status == SliceStatus::off) continue;
    if (s.tos != 0 || (s.status != SliceStatus::finished && s.status != SliceStatus::dormant)) {
      throw std::logic_error(text("cannot merge warp ", warp, ": slice ", s.slice, " is still running"));
    }
    mask |= s.mask;
    if (first) pc = s.pc;
    first = false;
  }
  for (uint32_t lane = 0; lane < lanes_; ++lane) entries_[warp * lanes_ + lane] = SliceEntry{};
  for (PhysicalRow& row : stacks_[warp]) row.mask = 0;
  entries_[warp * lanes_] = SliceEntry{mask, pc, warp, 1, 0, SliceStatus::finished};
  return warp * lanes_;
}

std::vector<uint32_t> WarpSliceTable::split(uint32_t warp, uint32_t width) {
  if (warp >= warps_) throw std::out_of_range(text("no warp ", warp));
  if (width == 0 || width > lanes_)
    throw std::invalid_argument(text("slice width ", width, " outside [1, ", lanes_, "]"));
  const SliceEntry merged = entries_[warp * lanes_];
  bool single_slice = merged.status != SliceStatus::off;
  for (uint32_t lane = 1; lane < lanes_; ++lane)
    single_slice = single_slice && entries_[warp * lanes_ + lane].status == SliceStatus::off;
  if (!single_slice) throw std::logic_error(text("split needs warp ", warp, " merged"));
  std::vector<StackRow> rows = stack(warp * lanes_);
  std::vector<uint32_t> made;
  for (uint32_t first = 0, id = 1; first < lanes_; first += width, ++id) {
    const uint32_t e = warp * lanes_ + first;
    SliceEntry& s = entries_[e];
    s = SliceEntry{lanes_from(first, std::min(width, lanes_ - first)), merged.pc, warp, id, 0, merged.status};
    for (const StackRow& row : rows) {
      if (!(row.mask & s.mask)) continue;  // none of its lanes are on that path
      set_row(s, s.tos, row.pc, row.reconvergence_pc, row.mask);
      ++s.tos;
    }
    if (s.tos == 0) {
      s.status = s.status == SliceStatus::dormant ? SliceStatus::dormant : SliceStatus::finished;
    } else {
      s.pc = column(s, s.tos - 1).pc;
    }
    made.push_back(e);
  }
  return made;
}

void WarpSliceTable::set_status(uint32_t e, SliceStatus status) {
  if (status == SliceStatus::off) throw std::logic_error(text("entries turn off only by merge and split"));
  live(e).status = status;
}

void WarpSliceTable::start(uint32_t e, ptx::LaneMask lanes, uint32_t pc) {
  SliceEntry& s = live(e);
  if (s.status == SliceStatus::dormant) throw std::logic_error(text("dormant entry ", e, " takes no task"));
  if (s.tos != 0) throw std::logic_error(text("entry ", e, " still has a task"));
  if (!lanes || (lanes & ~s.mask))
    throw std::invalid_argument(text("a task of entry ", e, " needs a non-empty subset of its lanes"));
  set_row(s, 0, pc, ptx::kNoTarget, lanes);
  s.tos = 1;
  s.pc = pc;
  s.status = SliceStatus::ready;
}

ptx::LaneMask WarpSliceTable::executing(uint32_t e) const {
  const SliceEntry& s = live(e);
  return s.tos ? row_mask(s, s.tos - 1) : 0;
}

void WarpSliceTable::branch(uint32_t e, ptx::LaneMask taken, uint32_t target, uint32_t fallthrough,
                            uint32_t reconvergence_pc) {
  SliceEntry& s = with_task(e);
  const uint32_t top = s.tos - 1;
  const ptx::LaneMask running = row_mask(s, top);
  taken &= running;
  const ptx::LaneMask not_taken = running & ~taken;
  Column& executing = column(s, top);
  if (!taken || target == fallthrough) {
    executing.pc = fallthrough;
  } else if (!not_taken) {
    executing.pc = target;
  } else if (fallthrough == reconvergence_pc && target == reconvergence_pc) {
    executing.pc = reconvergence_pc;
  } else {
    const ptx::DivergentPaths paths =
        ptx::divergent_paths(fallthrough, target, reconvergence_pc, executing.reconvergence_pc);
    // The top row either turns into the row waiting at the reconvergence PC or, when it already waits
    // there, makes room for the paths.
    uint32_t row = paths.keep_waiting ? s.tos : top;
    require_rows(s, row + uint32_t(paths.push_not_taken) + uint32_t(paths.push_taken), executing.pc);
    if (paths.keep_waiting) executing.pc = reconvergence_pc;
    if (paths.push_not_taken) set_row(s, row++, fallthrough, reconvergence_pc, not_taken);
    if (paths.push_taken) set_row(s, row++, target, reconvergence_pc, taken);
    s.tos = row;
  }
  settle(s);
}

void WarpSliceTable::advance(uint32_t e, uint32_t next_pc) {
  SliceEntry& s = with_task(e);
  column(s, s.tos - 1).pc = next_pc;
  settle(s);
}

void WarpSliceTable::exit(uint32_t e, ptx::LaneMask lanes, uint32_t next_pc) {
  SliceEntry& s = with_task(e);
  lanes &= row_mask(s, s.tos - 1);
  column(s, s.tos - 1).pc = next_pc;
  s.pc = next_pc;
  // Exited lanes leave every row, so no popped row brings them back (SimtStack drops them as rows pop).
  for (uint32_t row = 0; row < s.tos; ++row) stacks_[s.warp][row].mask &= ~lanes;
  settle(s);
}

void WarpSliceTable::settle(SliceEntry& s) {
  while (s.tos) {
    const Column& top = column(s, s.tos - 1);
    if (row_mask(s, s.tos - 1) && top.pc != top.reconvergence_pc) break;
    --s.tos;
  }
  if (s.tos) {
    s.pc = column(s, s.tos - 1).pc;
  } else if (s.status == SliceStatus::ready) {
    s.status = SliceStatus::finished;
  }
}

bool WarpSliceTable::stack_empty(uint32_t e) const {
  return live(e).tos == 0;
}

std::vector<StackRow> WarpSliceTable::stack(uint32_t e) const {
  const SliceEntry& s = live(e);
  std::vector<StackRow> rows;
  for (uint32_t row = 0; row < s.tos; ++row)
    rows.push_back(StackRow{column(s, row).pc, column(s, row).reconvergence_pc, row_mask(s, row)});
  return rows;
}

uint32_t WarpSliceTable::max_tos(uint32_t warp) const {
  if (warp >= warps_) throw std::out_of_range(text("no warp ", warp));
  uint32_t rows = 0;
  for (uint32_t lane = 0; lane < lanes_; ++lane) rows = std::max(rows, entries_[warp * lanes_ + lane].tos);
  return rows;
}

ptx::LaneMask WarpSliceTable::physical_mask(uint32_t warp, uint32_t row) const {
  if (warp >= warps_ || row >= stack_rows_) throw std::out_of_range(text("no row ", row, " of warp ", warp));
  return stacks_[warp][row].mask;
}

WarpSliceTable::Storage WarpSliceTable::storage(uint32_t warps, uint32_t lanes, uint32_t max_slices,
                                                uint32_t stack_rows, uint32_t pc_bits) {
  Storage s;
  s.entry_bits = lanes + ceil_log2(warps) + pc_bits + ceil_log2(max_slices) + 2 + 8;
  s.entries = max_slices;
  s.table_bytes = s.entries * bytes_of(s.entry_bits);
  s.stack_bytes = bytes_of(uint64_t{warps} * stack_rows * max_slices * pc_bits);
  return s;
}

}  // namespace simtlm::hw

#include "hw/units/compaction_adequacy_table.hpp"

#include <bit>
#include <stdexcept>

namespace simtlm::hw {

CompactionAdequacyTable::CompactionAdequacyTable(uint32_t entries, bool miss_adequate)
    : table_(entries), miss_adequate_(miss_adequate) {
  if (entries == 0) throw std::invalid_argument("CompactionAdequacyTable: at least one entry");
}

bool CompactionAdequacyTable::predict(uint32_t pc) const {
  const Entry& e = table_[index(pc)];
  if (!e.valid || e.tag != tag(pc)) return miss_adequate_;
  return e.adequate;
}

bool CompactionAdequacyTable::update(uint32_t pc, bool adequate) {
  const bool agreed = predict(pc) == adequate;
  table_[index(pc)] = Entry{true, tag(pc), adequate};
  return agreed;
}

void CompactionAdequacyTable::clear() {
  for (Entry& e : table_) e = Entry{};
}

uint32_t CompactionAdequacyTable::storage_bits(uint32_t pc_bits) const {
  const auto index_bits = static_cast<uint32_t>(std::bit_width(entries() - 1u));
  const uint32_t tag_bits = pc_bits > index_bits ? pc_bits - index_bits : 0;
  return entries() * (1 + tag_bits + 1);
}

}  // namespace simtlm::hw

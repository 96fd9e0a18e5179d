// Static checks of host loops (`loop: {until: ...}`) that need the whole sequence.
#pragma once

#include <optional>
#include <string>

#include "models/launch/launch.hpp"

namespace simtlm::launch {

// A loop whose `until` names a buffer that no kernel of the sequence ever receives (as a pointer, with an
// offset or inside a struct) and no `set` inside the loop writes can never change between iterations: the
// host loop would spin to `max` (minutes of simulation for a large max) for what is almost always a typo
// or a missing parameter. Returns why, for such a loop; nothing otherwise. Module variables are not checked:
// kernels write them by name.
std::optional<std::string> until_never_changes(const Launch& launch, const Step& loop);

}  // namespace simtlm::launch

#pragma once

#include <bdt/core/BDTree.h>
#include <cstdint>
#include <memory>

namespace bdt::bench
{

/// Entries of the fixed stack the refitted baselines' queries walk with: one per level and one more.
inline constexpr std::uint32_t cRefitQueryStack = 64;

/// The BD-Tree whose topology a refitted baseline (`LayeredSphereTree`, `AabbTree`) uses, checked: not null,
/// and shallow enough for the queries' stack. Throws `bdt::Error` naming `inWho` otherwise.
std::shared_ptr<const BDTree> CheckedRefitTopology(std::shared_ptr<const BDTree> inTree, const char* inWho);

} // namespace bdt::bench

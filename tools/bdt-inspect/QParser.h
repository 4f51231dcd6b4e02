#pragma once

#include <bdt/core/bounds/BDTree.h>

#include <optional>
#include <string>
#include <vector>

namespace bdt::tools
{

/// Parses `--q q1,...,qM` for `inTree`: exactly M comma-separated decimal numbers (surrounding spaces and a
/// leading '+' allowed), each finite and at most `TreeState::cMaxAbsQ` in magnitude. An absent option means
/// q = 0. Throws `ToolError` naming the tool (`inFile` appears in the message) for anything else.
std::vector<float> ParseQ(const std::optional<std::string>& inText, const BDTree& inTree,
                          const std::string& inFile);

} // namespace bdt::tools

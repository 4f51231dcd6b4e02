#pragma once

#include <bdt/core/bounds/TreeState.h>

#include <cstdint>
#include <string>
#include <vector>

namespace bdt::test
{

/// Unique vertices of every node of a tree, computed once (brute-force oracle input).
class NodeVertexTable
{
public:
    explicit NodeVertexTable(const BDTree& inTree);
    const std::vector<std::uint32_t>& Of(std::uint32_t inNode) const { return mVertices[inNode]; }

private:
    std::vector<std::vector<std::uint32_t>> mVertices;
};

/// Checks with brute force that every deformed vertex p + U q (double, current q of `ioState`) of every
/// node in [0, inNodeEnd) lies inside the node's updated sphere, with no tolerance. Returns the number of
/// vertex-in-sphere checks; records a gtest failure (with the node, vertex and excess) for each violation,
/// at most a few per call.
std::uint64_t ExpectSpheresContainVertices(TreeState& ioState, const NodeVertexTable& inVertices,
                                           std::uint32_t inNodeEnd, const std::string& inContext);

} // namespace bdt::test

#pragma once

#include <array>
#include <bdt/bake/TetMesh.h>
#include <cstdint>
#include <string>

namespace bdt::test
{

/// A box of `inCells` cubes of edge `inCellSize` (min corner at the origin), each split into six
/// tetrahedra (`LatticeTets`). Nodes in lattice order.
TetMesh BoxTets(std::array<std::uint32_t, 3> inCells, double inCellSize);

/// A fresh, empty folder under the tests' scratch folder.
std::string ScratchFolder(const std::string& inName);

} // namespace bdt::test

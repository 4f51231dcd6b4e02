#include "support/TetModels.h"

#include <bdt/bake/VoxelElasticity.h>
#include <filesystem>

namespace bdt::test
{

TetMesh BoxTets(std::array<std::uint32_t, 3> inCells, double inCellSize)
{
    VoxelGrid grid;
    grid.origin = Vec3d::Zero();
    grid.cellSize = inCellSize;
    grid.cells = inCells;
    grid.solid.assign(grid.CellCount(), 1);
    const VoxelElasticity lattice = AssembleVoxelElasticity(grid, ElasticMaterial{}, 1.0);
    return LatticeTets(grid, lattice.nodeOfLattice, lattice.latticeOfNode, 1.0);
}

std::string ScratchFolder(const std::string& inName)
{
    const std::filesystem::path folder = std::filesystem::path(BDT_TEST_TMP) / inName;
    std::filesystem::remove_all(folder);
    std::filesystem::create_directories(folder);
    return folder.string();
}

} // namespace bdt::test

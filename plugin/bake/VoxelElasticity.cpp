// Trilinear hexahedra on the voxel lattice: element matrices and the sparse assembly of K and M.

#include <algorithm>
#include <bdt/bake/VoxelElasticity.h>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <string>

namespace bdt
{

namespace
{

// Corner a of the reference cube [−1, 1]³: (ξ_a, η_a, ζ_a), with a = dx + 2·dy + 4·dz.
Vec3d CornerSign(int inCorner)
{
    return {(inCorner & 1) != 0 ? 1.0 : -1.0, (inCorner & 2) != 0 ? 1.0 : -1.0,
            (inCorner & 4) != 0 ? 1.0 : -1.0};
}

// Visits the 2×2×2 Gauss points of the reference cube: the point, its weight (1 each).
template <class Visit> void ForGaussPoints(Visit&& inVisit)
{
    const double g = 1.0 / std::sqrt(3.0);
    for (int p = 0; p < 8; ++p)
        inVisit(Vec3d((p & 1) != 0 ? g : -g, (p & 2) != 0 ? g : -g, (p & 4) != 0 ? g : -g));
}

double ShapeValue(int inCorner, const Vec3d& inXi)
{
    const Vec3d s = CornerSign(inCorner);
    return 0.125 * (1.0 + s.x() * inXi.x()) * (1.0 + s.y() * inXi.y()) * (1.0 + s.z() * inXi.z());
}

// ∂N_a/∂x on the unit cube, x = (ξ + 1)/2, so ∂/∂x = 2 ∂/∂ξ.
Vec3d ShapeGradient(int inCorner, const Vec3d& inXi)
{
    const Vec3d s = CornerSign(inCorner);
    const Vec3d f(1.0 + s.x() * inXi.x(), 1.0 + s.y() * inXi.y(), 1.0 + s.z() * inXi.z());
    return 0.25 * Vec3d(s.x() * f.y() * f.z(), f.x() * s.y() * f.z(), f.x() * f.y() * s.z());
}

// Lattice offset index (dx + 1) + 3(dy + 1) + 9(dz + 1) of a neighbouring node, d ∈ {−1, 0, 1}³.
int OffsetIndex(int inDx, int inDy, int inDz)
{
    return (inDx + 1) + 3 * (inDy + 1) + 9 * (inDz + 1);
}

// Marks the lattice nodes that solid cells use: per lattice node its rank among the used nodes in lattice
// order (or −1), and per used node its lattice index. Returns the number of solid cells.
std::size_t MarkLatticeNodes(const VoxelGrid& inGrid, std::vector<std::int64_t>& outNodeOfLattice,
                             std::vector<std::uint32_t>& outLatticeOfNode)
{
    const std::array<std::uint32_t, 3> n = inGrid.cells;
    outNodeOfLattice.assign(inGrid.LatticeNodeCount(), -1);
    outLatticeOfNode.clear();
    std::size_t solidCells = 0;
    for (std::uint32_t k = 0; k < n[2]; ++k)
        for (std::uint32_t j = 0; j < n[1]; ++j)
            for (std::uint32_t i = 0; i < n[0]; ++i)
                if (inGrid.solid[inGrid.CellIndex(i, j, k)] != 0)
                {
                    ++solidCells;
                    for (int a = 0; a < 8; ++a)
                        outNodeOfLattice[inGrid.CornerNode(i, j, k, a)] = 0;
                }
    for (std::size_t l = 0; l < outNodeOfLattice.size(); ++l)
        if (outNodeOfLattice[l] == 0)
        {
            outNodeOfLattice[l] = std::int64_t(outLatticeOfNode.size());
            outLatticeOfNode.push_back(std::uint32_t(l));
        }
    return solidCells;
}

} // namespace

void CheckElasticMaterial(const ElasticMaterial& inMaterial)
{
    if (!(inMaterial.young > 0.0) || !std::isfinite(inMaterial.young))
        throw Error("Young's modulus must be positive, got " + FormatNumber(inMaterial.young) + " Pa");
    if (!(inMaterial.poisson > -1.0 && inMaterial.poisson < 0.5))
        throw Error("Poisson's ratio must be in (-1, 0.5), got " + FormatNumber(inMaterial.poisson));
    if (!(inMaterial.density > 0.0) || !std::isfinite(inMaterial.density))
        throw Error("the density must be positive, got " + FormatNumber(inMaterial.density) + " kg/m^3");
}

void CheckScale(double inScale)
{
    if (!(inScale > 0.0) || !std::isfinite(inScale))
        throw Error("the scale must be positive and finite, got " + FormatNumber(inScale));
}

Eigen::Matrix<double, 6, 6> IsotropicElasticity(double inYoung, double inPoisson)
{
    const double nu = inPoisson;
    const double lambda = inYoung * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
    const double mu = inYoung / (2.0 * (1.0 + nu));
    Eigen::Matrix<double, 6, 6> d = Eigen::Matrix<double, 6, 6>::Zero();
    d.topLeftCorner<3, 3>().setConstant(lambda);
    d.topLeftCorner<3, 3>().diagonal().array() += 2.0 * mu;
    d.bottomRightCorner<3, 3>().diagonal().setConstant(mu);
    return d;
}

Eigen::Matrix<double, 24, 24> UnitCubeStiffness(double inPoisson)
{
    const Eigen::Matrix<double, 6, 6> d = IsotropicElasticity(1.0, inPoisson);

    Eigen::Matrix<double, 24, 24> k = Eigen::Matrix<double, 24, 24>::Zero();
    ForGaussPoints(
        [&](const Vec3d& inXi)
        {
            Eigen::Matrix<double, 6, 24> b = Eigen::Matrix<double, 6, 24>::Zero();
            for (int a = 0; a < 8; ++a)
                SetStrainColumns(a, ShapeGradient(a, inXi), b);
            // Weight 1 per point, Jacobian determinant (1/2)³ from [−1, 1]³ to the unit cube.
            k += 0.125 * b.transpose() * d * b;
        });
    return k;
}

Eigen::Matrix<double, 8, 8> UnitCubeMass()
{
    Eigen::Matrix<double, 8, 8> m = Eigen::Matrix<double, 8, 8>::Zero();
    ForGaussPoints(
        [&](const Vec3d& inXi)
        {
            for (int a = 0; a < 8; ++a)
                for (int b = 0; b < 8; ++b)
                    m(a, b) += 0.125 * ShapeValue(a, inXi) * ShapeValue(b, inXi); // exact: degree 2 per axis
        });
    return m;
}

std::size_t CountLatticeNodes(const VoxelGrid& inGrid)
{
    std::vector<std::int64_t> nodeOfLattice;
    std::vector<std::uint32_t> latticeOfNode;
    MarkLatticeNodes(inGrid, nodeOfLattice, latticeOfNode);
    return latticeOfNode.size();
}

VoxelElasticity AssembleVoxelElasticity(const VoxelGrid& inGrid, const ElasticMaterial& inMaterial,
                                        double inScale)
{
    CheckElasticMaterial(inMaterial);
    CheckScale(inScale);
    const std::array<std::uint32_t, 3> n = inGrid.cells;

    VoxelElasticity model;
    const std::size_t solidCells = MarkLatticeNodes(inGrid, model.nodeOfLattice, model.latticeOfNode);
    if (solidCells == 0)
        throw Error("the voxel grid has no solid cell");
    const std::size_t nodes = model.latticeOfNode.size();

    // Per node and per neighbouring lattice offset, the 3×3 stiffness block and the scalar mass coupling
    // (row node = node + offset, column node = node), summed over the cells they share.
    const double h = inGrid.cellSize * inScale;
    const Eigen::Matrix<double, 24, 24> ke = inMaterial.young * h * UnitCubeStiffness(inMaterial.poisson);
    const Eigen::Matrix<double, 8, 8> me = inMaterial.density * h * h * h * UnitCubeMass();
    std::vector<Mat3d> stiffnessBlocks(nodes * 27, Mat3d::Zero());
    std::vector<double> massBlocks(nodes * 27, 0.0);
    std::vector<std::uint8_t> used(nodes * 27, 0);
    for (std::uint32_t k = 0; k < n[2]; ++k)
        for (std::uint32_t j = 0; j < n[1]; ++j)
            for (std::uint32_t i = 0; i < n[0]; ++i)
            {
                if (inGrid.solid[inGrid.CellIndex(i, j, k)] == 0)
                    continue;
                std::size_t corner[8];
                for (int a = 0; a < 8; ++a)
                    corner[a] = std::size_t(model.nodeOfLattice[inGrid.CornerNode(i, j, k, a)]);
                for (int b = 0; b < 8; ++b)     // column node
                    for (int a = 0; a < 8; ++a) // row node
                    {
                        const int o = OffsetIndex((a & 1) - (b & 1), ((a >> 1) & 1) - ((b >> 1) & 1),
                                                  ((a >> 2) & 1) - ((b >> 2) & 1));
                        const std::size_t slot = corner[b] * 27 + std::size_t(o);
                        stiffnessBlocks[slot] += ke.block<3, 3>(3 * a, 3 * b);
                        massBlocks[slot] += me(a, b);
                        used[slot] = 1;
                    }
            }

    // Compressed columns directly: the neighbours of a node in ascending offset order are in ascending
    // lattice order, hence ascending rank, so each column's rows come out sorted.
    std::vector<int> outer(3 * nodes + 1, 0);
    std::vector<int> inner;
    std::vector<double> stiffnessValues, massValues;
    inner.reserve(nodes * 81 * 3);
    stiffnessValues.reserve(inner.capacity());
    massValues.reserve(inner.capacity());
    for (std::size_t node = 0; node < nodes; ++node)
    {
        const std::array<std::size_t, 3> l = inGrid.LatticeNodeIndices(model.latticeOfNode[node]);
        const auto li = std::int64_t(l[0]), lj = std::int64_t(l[1]), lk = std::int64_t(l[2]);
        for (int axis = 0; axis < 3; ++axis)
        {
            for (int o = 0; o < 27; ++o)
            {
                const std::size_t slot = node * 27 + std::size_t(o);
                if (used[slot] == 0)
                    continue;
                const std::int64_t di = o % 3 - 1, dj = (o / 3) % 3 - 1, dk = o / 9 - 1;
                const auto row = std::size_t(model.nodeOfLattice[inGrid.LatticeNode(
                    std::size_t(li + di), std::size_t(lj + dj), std::size_t(lk + dk))]);
                for (int r = 0; r < 3; ++r)
                {
                    inner.push_back(int(3 * row + std::size_t(r)));
                    stiffnessValues.push_back(stiffnessBlocks[slot](r, axis));
                    massValues.push_back(r == axis ? massBlocks[slot] : 0.0);
                }
            }
            outer[3 * node + std::size_t(axis) + 1] = int(inner.size());
        }
    }
    const auto dofs = Eigen::Index(3 * nodes);
    const auto nonZeros = Eigen::Index(inner.size());
    model.stiffness = Eigen::Map<const Eigen::SparseMatrix<double>>(dofs, dofs, nonZeros, outer.data(),
                                                                    inner.data(), stiffnessValues.data());
    model.mass = Eigen::Map<const Eigen::SparseMatrix<double>>(dofs, dofs, nonZeros, outer.data(),
                                                               inner.data(), massValues.data());
    model.mass.prune(0.0);
    model.totalMass = inMaterial.density * double(solidCells) * h * h * h;
    return model;
}

} // namespace bdt

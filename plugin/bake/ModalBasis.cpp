// The modal bake: lattice modes by shift-and-invert Lanczos (Spectra), then the surface basis by trilinear
// embedding of the mesh's vertices in the lattice.

#include <algorithm>
#include <bdt/bake/ModalBasis.h>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <string>

namespace bdt
{

void CheckModalBakeSettings(const ModalBakeSettings& inSettings)
{
    CheckScale(inSettings.scale);
    CheckElasticMaterial(inSettings.material);
    if (!(inSettings.rayleighAlpha >= 0.0 && inSettings.rayleighBeta >= 0.0) ||
        !std::isfinite(inSettings.rayleighAlpha) || !std::isfinite(inSettings.rayleighBeta))
        throw Error("the Rayleigh damping coefficients must be finite and non-negative");
    if (inSettings.modes == 0)
        throw Error("a modal basis needs at least one mode");
}

LatticeModes ComputeLatticeModes(std::span<const Vec3f> inPositions, std::span<const Triangle> inTriangles,
                                 const ModalBakeSettings& inSettings, const ProgressCallback& inProgress)
{
    CheckModalBakeSettings(inSettings);
    const ElasticMaterial& material = inSettings.material;
    LatticeModes out;
    if (inProgress)
        inProgress("voxelise", 0.0);
    Eigen::AlignedBox3d box;
    for (const Vec3f& p : inPositions)
        if (p.allFinite())
            box.extend(p.cast<double>());
    const double longest = box.isEmpty() ? 0.0 : box.sizes().maxCoeff();
    double cellSize = 0.0;
    if (inSettings.resolution > 0)
        cellSize = longest / double(inSettings.resolution);
    else
    {
        cellSize = CellSizeForBudget(inPositions, inTriangles, ModalBakeSettings::cDefaultCells);
        cellSize = std::clamp(cellSize, longest / double(ModalBakeSettings::cMaxResolution),
                              longest / double(ModalBakeSettings::cMinResolution));
    }
    out.grid = VoxeliseSolid(inPositions, inTriangles, cellSize, &out.voxels);
    if (inSettings.resolution == 0)
    {
        // The volume estimate misses for meshes with holes or loose parts (voxelised as solids or shells):
        // rescale towards the budget by what the lattice really holds, a volume (h³) or a shell (h²).
        const double minSize = longest / double(ModalBakeSettings::cMaxResolution);
        const double maxSize = longest / double(ModalBakeSettings::cMinResolution);
        for (int round = 0; round < 4; ++round)
        {
            const double ratio = double(out.grid.SolidCount()) / ModalBakeSettings::cDefaultCells;
            if (ratio > 0.6 && ratio < 1.5)
                break;
            const double next = std::clamp(
                cellSize * std::pow(ratio, out.voxels.shellFallback ? 0.5 : 1.0 / 3.0), minSize, maxSize);
            if (next == cellSize)
                break;
            cellSize = next;
            out.grid = VoxeliseSolid(inPositions, inTriangles, cellSize, &out.voxels);
        }
    }
    // Checked before any stage is reported done.
    CheckModeCount(inSettings.modes, 3 * CountLatticeNodes(out.grid), "the lattice model",
                   "; raise the resolution or ask for fewer modes");
    if (inProgress)
        inProgress("voxelise", 1.0);

    if (inProgress)
        inProgress("assemble", 0.0);
    out.elasticity = AssembleVoxelElasticity(out.grid, material, inSettings.scale);
    out.nodes = out.elasticity.NodeCount();
    out.totalMass = out.elasticity.totalMass;
    if (inProgress)
        inProgress("assemble", 1.0);

    static_cast<VibrationModes&>(out) = SolveVibrationModes(
        out.elasticity.stiffness, out.elasticity.mass, inSettings.modes, material, longest * inSettings.scale,
        out.grid.cellSize * inSettings.scale, "the lattice model", inProgress, inSettings.factorisation);
    return out;
}

std::vector<float> InterpolateSurfaceBasis(std::span<const Vec3f> inPositions, const LatticeModes& inModes,
                                           double inScale)
{
    const VoxelGrid& grid = inModes.grid;
    const auto modes = std::uint32_t(inModes.shapes.cols());
    const std::array<std::uint32_t, 3> n = grid.cells;

    // Nearest solid cell of every cell (itself if solid), by a breadth-first sweep out of the solid cells;
    // built only if some vertex lies outside the solid.
    std::vector<std::int64_t> nearest;
    const auto nearestSolid = [&](std::size_t inCell) -> std::size_t
    {
        if (grid.solid[inCell] != 0)
            return inCell;
        if (nearest.empty())
        {
            nearest.assign(grid.CellCount(), -1);
            std::vector<std::size_t> queue;
            for (std::size_t c = 0; c < grid.CellCount(); ++c)
                if (grid.solid[c] != 0)
                {
                    nearest[c] = std::int64_t(c);
                    queue.push_back(c);
                }
            for (std::size_t head = 0; head < queue.size(); ++head)
            {
                const std::size_t c = queue[head];
                grid.ForFaceNeighbours(c,
                                       [&](std::size_t inNext)
                                       {
                                           if (nearest[inNext] < 0)
                                           {
                                               nearest[inNext] = nearest[c];
                                               queue.push_back(inNext);
                                           }
                                       });
            }
        }
        return std::size_t(nearest[inCell]);
    };

    std::vector<float> basis(inPositions.size() * modes * 3);
    for (std::size_t v = 0; v < inPositions.size(); ++v)
    {
        const Vec3d g = (inPositions[v].cast<double>() - grid.origin) / grid.cellSize;
        std::size_t ijk[3];
        for (int d = 0; d < 3; ++d)
            ijk[d] = std::size_t(std::clamp(std::floor(g[d]), 0.0, double(n[d] - 1)));
        const std::size_t cell =
            nearestSolid(grid.CellIndex(std::uint32_t(ijk[0]), std::uint32_t(ijk[1]), std::uint32_t(ijk[2])));
        const std::size_t ci = cell % n[0], cj = (cell / n[0]) % n[1], ck = cell / (std::size_t(n[0]) * n[1]);
        // Local coordinates in the chosen cell, not clamped: outside it the trilinear weights extrapolate.
        const Vec3d t = g - Vec3d(double(ci), double(cj), double(ck));
        for (int a = 0; a < 8; ++a)
        {
            const int dx = a & 1, dy = (a >> 1) & 1, dz = (a >> 2) & 1;
            const double w = (dx != 0 ? t.x() : 1.0 - t.x()) * (dy != 0 ? t.y() : 1.0 - t.y()) *
                             (dz != 0 ? t.z() : 1.0 - t.z());
            const std::int64_t node = inModes.elasticity.nodeOfLattice[grid.CornerNode(ci, cj, ck, a)];
            if (node < 0)
                throw Error("internal: a solid cell's corner has no lattice node");
            for (std::uint32_t j = 0; j < modes; ++j)
                for (int axis = 0; axis < 3; ++axis)
                    basis[(v * modes + j) * 3 + std::size_t(axis)] +=
                        float(w * inModes.shapes(3 * node + axis, j) / inScale);
        }
    }
    return basis;
}

Model FinishModalModel(std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles,
                       std::vector<float> inBasis, std::span<const double> inEigenvalues, double inAlpha,
                       double inBeta)
{
    ModelData data;
    data.modeCount = std::uint32_t(inEigenvalues.size());
    data.normalBasis = MakeNormalBasis(inPositions, inTriangles, inBasis, data.modeCount);
    data.basis = std::move(inBasis);
    data.modes = MakeModeInfos(inEigenvalues, inAlpha, inBeta);
    data.positions = std::move(inPositions);
    data.triangles = std::move(inTriangles);
    return Model::Create(std::move(data));
}

Model MakeModalModel(std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles,
                     const ModalBakeSettings& inSettings, const ProgressCallback& inProgress,
                     LatticeModes* outModes)
{
    LatticeModes modes = ComputeLatticeModes(inPositions, inTriangles, inSettings, inProgress);
    std::vector<float> basis = InterpolateSurfaceBasis(inPositions, modes, inSettings.scale);
    Model model = FinishModalModel(std::move(inPositions), std::move(inTriangles), std::move(basis),
                                   modes.eigenvalues, inSettings.rayleighAlpha, inSettings.rayleighBeta);
    if (outModes != nullptr)
        *outModes = std::move(modes);
    return model;
}

} // namespace bdt

// The modal bake on a tetrahedral mesh: linear tetrahedra, Spectra, barycentric surface embedding.

#include <Eigen/Dense>
#include <algorithm>
#include <bdt/bake/TetModalBasis.h>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <limits>

namespace bdt
{

namespace
{

/// Barycentric coordinates of points in tetrahedra, with a uniform grid over the tetrahedra's boxes.
class TetLocator
{
public:
    explicit TetLocator(const TetMesh& inMesh) : mMesh(inMesh)
    {
        mInverse.reserve(inMesh.tets.size());
        Eigen::AlignedBox3d all;
        for (const auto& tet : inMesh.tets)
        {
            Mat3d edges;
            const Vec3d& x0 = inMesh.positions[tet[0]];
            edges << inMesh.positions[tet[1]] - x0, inMesh.positions[tet[2]] - x0,
                inMesh.positions[tet[3]] - x0;
            mInverse.push_back(edges.inverse());
            for (std::uint32_t n : tet)
                all.extend(inMesh.positions[n]);
        }
        // About one tetrahedron per cell.
        const Vec3d size = all.sizes().cwiseMax(1e-12 * all.sizes().maxCoeff());
        mCell = std::cbrt(size.prod() / double(inMesh.tets.size()));
        mOrigin = all.min();
        for (int d = 0; d < 3; ++d)
            mCells[d] = std::clamp<std::int64_t>(std::int64_t(std::ceil(size[d] / mCell)), 1, 256);
        mBuckets.resize(std::size_t(mCells[0] * mCells[1] * mCells[2]));
        for (std::size_t t = 0; t < inMesh.tets.size(); ++t)
        {
            Eigen::AlignedBox3d box;
            for (std::uint32_t n : inMesh.tets[t])
                box.extend(inMesh.positions[n]);
            const auto lo = CellOf(box.min()), hi = CellOf(box.max());
            for (std::int64_t k = lo[2]; k <= hi[2]; ++k)
                for (std::int64_t j = lo[1]; j <= hi[1]; ++j)
                    for (std::int64_t i = lo[0]; i <= hi[0]; ++i)
                        mBuckets[Bucket(i, j, k)].push_back(std::uint32_t(t));
        }
    }

    /// The tetrahedron for `inPoint` and its 4 barycentric weights (summing to 1, negative outside).
    std::uint32_t Locate(const Vec3d& inPoint, Eigen::Vector4d& outWeights) const
    {
        const auto c = CellOf(inPoint);
        std::int64_t best = -1;
        double bestScore = -std::numeric_limits<double>::infinity();
        Eigen::Vector4d bestWeights;
        const auto visit = [&](std::int64_t inI, std::int64_t inJ, std::int64_t inK)
        {
            for (std::uint32_t t : mBuckets[Bucket(inI, inJ, inK)])
            {
                const Eigen::Vector4d w = Weights(t, inPoint);
                if (w.minCoeff() > bestScore)
                {
                    bestScore = w.minCoeff();
                    best = t;
                    bestWeights = w;
                }
            }
        };
        // Rings of cells around the point's cell, until a containing tetrahedron is found, or one ring past
        // the first that had any tetrahedron.
        const std::int64_t maxRing = std::max({mCells[0], mCells[1], mCells[2]});
        std::int64_t stopAfter = maxRing;
        for (std::int64_t ring = 0; ring <= stopAfter; ++ring)
        {
            for (std::int64_t k = c[2] - ring; k <= c[2] + ring; ++k)
                for (std::int64_t j = c[1] - ring; j <= c[1] + ring; ++j)
                    for (std::int64_t i = c[0] - ring; i <= c[0] + ring; ++i)
                    {
                        const bool shell =
                            std::max({std::abs(i - c[0]), std::abs(j - c[1]), std::abs(k - c[2])}) == ring;
                        if (shell && i >= 0 && j >= 0 && k >= 0 && i < mCells[0] && j < mCells[1] &&
                            k < mCells[2])
                            visit(i, j, k);
                    }
            if (bestScore >= -1e-9)
                break;
            if (best >= 0)
                stopAfter = std::min(stopAfter, ring + 1);
        }
        outWeights = bestWeights;
        return std::uint32_t(best);
    }

private:
    Eigen::Vector4d Weights(std::uint32_t inTet, const Vec3d& inPoint) const
    {
        const Vec3d l = mInverse[inTet] * (inPoint - mMesh.positions[mMesh.tets[inTet][0]]);
        return {1.0 - l.sum(), l.x(), l.y(), l.z()};
    }

    std::array<std::int64_t, 3> CellOf(const Vec3d& inPoint) const
    {
        std::array<std::int64_t, 3> c;
        for (int d = 0; d < 3; ++d)
            c[d] = std::clamp<std::int64_t>(std::int64_t(std::floor((inPoint[d] - mOrigin[d]) / mCell)), 0,
                                            mCells[d] - 1);
        return c;
    }

    std::size_t Bucket(std::int64_t inI, std::int64_t inJ, std::int64_t inK) const
    {
        return std::size_t(inI + mCells[0] * (inJ + mCells[1] * inK));
    }

    const TetMesh& mMesh;
    std::vector<Mat3d> mInverse;
    Vec3d mOrigin;
    double mCell = 1.0;
    std::array<std::int64_t, 3> mCells{};
    std::vector<std::vector<std::uint32_t>> mBuckets;
};

} // namespace

TetModes ComputeTetModes(TetMesh inMesh, const ModalBakeSettings& inSettings,
                         const ProgressCallback& inProgress)
{
    CheckModalBakeSettings(inSettings);
    if (inSettings.resolution != 0)
        throw Error("a resolution applies to voxel bakes, not to a tetrahedral mesh");
    TetModes out;
    out.unusedNodes = RemoveUnusedNodes(inMesh);
    CheckModeCount(inSettings.modes, 3 * inMesh.positions.size(), "the tetrahedral model");
    if (inProgress)
        inProgress("assemble", 0.0);
    out.elasticity = AssembleTetElasticity(inMesh, inSettings.material, inSettings.scale);
    if (inProgress)
        inProgress("assemble", 1.0);

    Eigen::AlignedBox3d box;
    for (const Vec3d& p : inMesh.positions)
        box.extend(p);
    // The stiffest element's scale is its shortest edge.
    static_cast<VibrationModes&>(out) =
        SolveVibrationModes(out.elasticity.stiffness, out.elasticity.mass, inSettings.modes,
                            inSettings.material, box.sizes().maxCoeff() * inSettings.scale,
                            out.elasticity.shortestEdge, "the tetrahedral model", inProgress,
                            inSettings.factorisation);
    out.mesh = std::move(inMesh);
    return out;
}

std::vector<float> InterpolateTetSurfaceBasis(std::span<const Vec3f> inPositions, const TetModes& inModes,
                                              double inScale)
{
    const auto modes = std::size_t(inModes.shapes.cols());
    const TetLocator locator(inModes.mesh);
    std::vector<float> basis(inPositions.size() * modes * 3);
    for (std::size_t v = 0; v < inPositions.size(); ++v)
    {
        Eigen::Vector4d w;
        const auto& tet = inModes.mesh.tets[locator.Locate(inPositions[v].cast<double>(), w)];
        for (std::size_t j = 0; j < modes; ++j)
            for (int axis = 0; axis < 3; ++axis)
            {
                double value = 0.0;
                for (int a = 0; a < 4; ++a)
                    value += w[a] * inModes.shapes(3 * Eigen::Index(tet[a]) + axis, Eigen::Index(j));
                basis[(v * modes + j) * 3 + std::size_t(axis)] = float(value / inScale);
            }
    }
    return basis;
}

std::vector<float> NodalSurfaceBasis(const Eigen::MatrixXd& inShapes, std::uint32_t inModes,
                                     std::span<const std::uint32_t> inNodeOfVertex, double inScale)
{
    std::vector<float> basis(inNodeOfVertex.size() * inModes * 3);
    for (std::size_t v = 0; v < inNodeOfVertex.size(); ++v)
        for (std::uint32_t j = 0; j < inModes; ++j)
            for (int axis = 0; axis < 3; ++axis)
                basis[(v * inModes + j) * 3 + std::size_t(axis)] =
                    float(inShapes(3 * Eigen::Index(inNodeOfVertex[v]) + axis, j) / inScale);
    return basis;
}

Model MakeTetModalModel(TetMesh inMesh, std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles,
                        const ModalBakeSettings& inSettings, const ProgressCallback& inProgress,
                        TetModes* outModes)
{
    TetModes modes = ComputeTetModes(std::move(inMesh), inSettings, inProgress);
    std::vector<float> basis;
    if (inPositions.empty())
    {
        TetBoundary boundary = ExtractTetBoundary(modes.mesh);
        basis = NodalSurfaceBasis(modes.shapes, inSettings.modes, boundary.nodeOfVertex, inSettings.scale);
        inPositions = std::move(boundary.positions);
        inTriangles = std::move(boundary.triangles);
    }
    else
        basis = InterpolateTetSurfaceBasis(inPositions, modes, inSettings.scale);
    Model model = FinishModalModel(std::move(inPositions), std::move(inTriangles), std::move(basis),
                                   modes.eigenvalues, inSettings.rayleighAlpha, inSettings.rayleighBeta);
    if (outModes != nullptr)
        *outModes = std::move(modes);
    return model;
}

} // namespace bdt

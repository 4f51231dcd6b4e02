#pragma once

#include <bdt/core/Contact.h>
#include <bdt/core/Math.h>
#include <cstdint>
#include <span>
#include <vector>

namespace bdt
{

/// A uniform grid over a mesh's rest triangles, for the one query the surface contact model asks of every
/// contact point it makes: which triangle lies under this point, and where on it. A contact piece's box
/// (ContactPieces) reaches past its own triangles, so the triangle nearest one of its points may belong to
/// any node; the grid answers from the few cells round the point, whatever node holds the triangle (a descent
/// of the BD-Tree's rest boxes from the node up its ancestors costs several times as much: the boxes of a
/// tree overlap, and a point on the surface lies in many).
///
/// Immutable once built; shared by every body of an asset (read from any thread). Each triangle is listed in
/// every cell its rest bounding box overlaps; cells are sized from the triangles' mean extent, so a cell
/// holds about as many triangles as a patch of a few triangles' width does, and the whole grid about 2 to 8
/// references per triangle.
class TriangleGrid
{
public:
    TriangleGrid() = default;
    /// Grids the triangles `inTriangles` (indices into `inPositions`, rest frame). A vertex index out of
    /// range or a non-finite position throws `bdt::Error`. Cost: O(references), once per asset.
    TriangleGrid(std::span<const Vec3f> inPositions, std::span<const Triangle> inTriangles);

    /// The triangle nearest `inPoint` (rest frame, model units), with the barycentric coordinates of its
    /// point nearest `inPoint` in `outBarycentric`; of triangles as near within rounding (a shared edge or
    /// vertex), the lowest index. cNoIndex, and (1, 0, 0), for an empty grid or a non-finite point. Cost: the
    /// point's cell and those of its neighbours nearer than the best triangle so far, their triangles by
    /// bounding box and then, nearest box first, by closest point (about 100 flops each); about a
    /// microsecond. Thread-safe.
    std::uint32_t Nearest(const Vec3d& inPoint, Vec3d& outBarycentric) const;

    /// Calls `inVisit(triangle, squaredDistance)` for every triangle within `inRadius` (model units) of
    /// `inPoint`, some more than once (a triangle is listed in every cell it overlaps), in no set order but
    /// the same every time. Cost: the cells the ball overlaps, a bounding-box test per triangle listed there
    /// and a closest point per triangle whose box the ball meets.
    template <class Visit> void ForEachWithin(const Vec3d& inPoint, double inRadius, Visit&& inVisit) const;

    /// The barycentric coordinates of triangle `inTriangle`'s point nearest `inPoint` (`ClosestBarycentric`).
    Vec3d Barycentric(std::uint32_t inTriangle, const Vec3d& inPoint) const;

    /// Triangles gridded.
    std::uint32_t TriangleCount() const { return mGridded; }
    /// The edge of a cell (model units); 0 when empty.
    double CellSize() const { return mCell; }
    /// Heap bytes held (cells, references, corners and bounding boxes).
    std::size_t MemoryBytes() const
    {
        return (mCellBegin.capacity() + mCellTriangles.capacity()) * sizeof(std::uint32_t) +
               (mCorners.capacity() + mBounds.capacity()) * sizeof(Vec3f);
    }

private:
    double SquaredDistance(std::uint32_t inTriangle, const Vec3d& inPoint) const;
    // The squared distance from the point to the triangle's bounding box (a tenth of a closest point's cost).
    double BoxDistance2(std::uint32_t inTriangle, const Vec3d& inPoint) const
    {
        return (mBounds[2 * inTriangle].cast<double>() - inPoint)
            .cwiseMax(inPoint - mBounds[2 * inTriangle + 1].cast<double>())
            .cwiseMax(0.0)
            .squaredNorm();
    }
    // The cell index of a point along each axis, clamped into the grid.
    Eigen::Vector3i CellOf(const Vec3d& inPoint) const;
    std::uint32_t CellIndex(int inX, int inY, int inZ) const
    {
        return std::uint32_t((inZ * mDims[1] + inY) * mDims[0] + inX);
    }

    Vec3d mOrigin = Vec3d::Zero(); // the grid's lowest corner
    double mCell = 0.0;
    Eigen::Vector3i mDims = Eigen::Vector3i::Zero();
    std::vector<std::uint32_t> mCellBegin;     // per cell (+ 1): its range of mCellTriangles
    std::vector<std::uint32_t> mCellTriangles; // triangle indices, cell by cell, ascending within a cell
    std::vector<Vec3f> mCorners;               // three rest corners per triangle (index 3t .. 3t + 2)
    std::vector<Vec3f> mBounds;                // each triangle's rest bounding box: lowest, highest corner
    std::uint32_t mGridded = 0;
};

template <class Visit>
void TriangleGrid::ForEachWithin(const Vec3d& inPoint, double inRadius, Visit&& inVisit) const
{
    if (mGridded == 0 || !inPoint.allFinite() || !(inRadius >= 0.0))
        return;
    const Eigen::Vector3i low = CellOf(inPoint - Vec3d::Constant(inRadius));
    const Eigen::Vector3i high = CellOf(inPoint + Vec3d::Constant(inRadius));
    const double radius2 = inRadius * inRadius;
    for (int z = low.z(); z <= high.z(); ++z)
        for (int y = low.y(); y <= high.y(); ++y)
            for (int x = low.x(); x <= high.x(); ++x)
            {
                const std::uint32_t index = CellIndex(x, y, z);
                for (std::uint32_t i = mCellBegin[index]; i < mCellBegin[index + 1]; ++i)
                {
                    const std::uint32_t t = mCellTriangles[i];
                    if (BoxDistance2(t, inPoint) > radius2)
                        continue;
                    const double distance2 = SquaredDistance(t, inPoint);
                    if (distance2 <= radius2)
                        inVisit(t, distance2);
                }
            }
}

} // namespace bdt

#include "ContactPieces.h"
#include "core/geometry/TriangleGeometry.h"

#include <bdt/core/base/Error.h>
#include <algorithm>
#include <array>
#include <cmath>

namespace bdt
{

namespace
{

// The share of the box's diagonal a flat piece is extruded by behind its real face: as deep as the surface
// model takes a feature behind a face to be in the body (`PatchView::depthLimit`: half a proxy's radius), and
// never deeper than the body is thick there (`ThicknessBehind`).
constexpr double cExtrusion = 0.25;
// A triangle faces along a box face's normal when its unit normal is within about 1.8 degrees of it.
constexpr double cFacingCos = 0.9995;

// How deep the body goes behind a real face (model units): the least distance, over the face's centre and its
// four quarter points, from the face along `inInward` to the next surface triangle that is not inside the body
// (the far side of a seat or a plank), or +inf where no ray meets one. `inHalfU`, `inHalfV` are the face's half
// sides as vectors. An extrusion deeper than this would stand out of the far side, where it would push a body
// lying under a thin part up through it. A ray descent on the rest spheres per point.
double ThicknessBehind(const BDTree& inTree, const std::vector<std::uint8_t>& inInternal, const Vec3d& inFaceCentre,
                       const Vec3d& inHalfU, const Vec3d& inHalfV, const Vec3d& inInward)
{
    const Model& model = inTree.GetModel();
    const auto positions = model.Positions();
    const double skip = 1e-6 * double(inTree.Row(0)[3]); // past the face's own triangles
    double thinnest = std::numeric_limits<double>::infinity();
    thread_local std::vector<std::uint32_t> stack;
    for (const Eigen::Vector2d& at : {Eigen::Vector2d(0.0, 0.0), Eigen::Vector2d(0.5, 0.5), Eigen::Vector2d(-0.5, 0.5),
                                      Eigen::Vector2d(0.5, -0.5), Eigen::Vector2d(-0.5, -0.5)})
    {
        Ray ray;
        ray.origin = inFaceCentre + at.x() * inHalfU + at.y() * inHalfV + skip * inInward;
        ray.direction = inInward;
        ray.maxT = thinnest;
        stack.assign(1, 0u);
        while (!stack.empty())
        {
            const std::uint32_t index = stack.back();
            stack.pop_back();
            const float* row = inTree.Row(index);
            const Vec3d toCentre = Vec3d(row[0], row[1], row[2]) - ray.origin;
            const double along = std::max(0.0, toCentre.dot(inInward));
            const double radius2 = double(row[3]) * double(row[3]) * (1.0 + 1e-6);
            if (along > ray.maxT + double(row[3]) ||
                ((toCentre - along * inInward).squaredNorm() > radius2 && toCentre.squaredNorm() > radius2))
                continue; // the ray misses the sphere, or meets it beyond the nearest hit
            const BDTreeNode& node = inTree.Node(index);
            if (!node.IsLeaf())
            {
                stack.push_back(node.firstChild);
                stack.push_back(node.firstChild + 1);
                continue;
            }
            for (std::uint32_t t = node.firstTriangle; t < node.firstTriangle + node.triangleCount; ++t)
            {
                if (inInternal[t] != 0)
                    continue;
                const Triangle& triangle = model.Triangles()[t];
                const Vec3d corners[3] = {positions[triangle[0]].cast<double>(),
                                          positions[triangle[1]].cast<double>(),
                                          positions[triangle[2]].cast<double>()};
                if (const std::optional<double> hit = RayTriangle(ray, corners))
                    ray.maxT = std::min(ray.maxT, *hit);
            }
        }
        thinnest = std::min(thinnest, ray.maxT + skip);
    }
    return thinnest;
}

// Classifies one node: the box of its rest triangles, each triangle on a face it faces out of, the real faces
// covered. Not a piece (realFaces 0) otherwise.
ContactPiece Classify(const BDTree& inTree, const BDTreeNode& inNode, const float* inRow,
                      const std::vector<std::uint8_t>& inInternal)
{
    const Model& inModel = inTree.GetModel();
    const auto positions = inModel.Positions();
    const auto triangles = inModel.Triangles();
    Vec3d lo = Vec3d::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
    for (std::uint32_t t = inNode.firstTriangle; t < inNode.firstTriangle + inNode.triangleCount; ++t)
        if (inInternal[t] == 0)
            for (const std::uint32_t v : triangles[t])
            {
                lo = lo.cwiseMin(positions[v].cast<double>());
                hi = hi.cwiseMax(positions[v].cast<double>());
            }
    ContactPiece piece;
    if (inNode.triangleCount == 0)
        return piece;
    if (!lo.allFinite() || !hi.allFinite())
    {
        piece.inside = true; // every triangle lies inside the body
        return piece;
    }
    const Vec3d extent = hi - lo;
    const double tolerance = cPieceFlatness * extent.norm() + 1e-12;
    std::array<double, 6> area{};
    std::uint8_t real = 0;
    for (std::uint32_t t = inNode.firstTriangle; t < inNode.firstTriangle + inNode.triangleCount; ++t)
    {
        if (inInternal[t] != 0)
            continue;
        const Vec3d a = positions[triangles[t][0]].cast<double>(), b = positions[triangles[t][1]].cast<double>(),
                    c = positions[triangles[t][2]].cast<double>();
        const Vec3d cross = (b - a).cross(c - a);
        const double length = cross.norm();
        if (!(length > 0.0))
            continue; // a degenerate triangle has no side; its vertices are in the box
        const Vec3d normal = cross / length;
        int face = -1;
        for (int k = 0; k < 3 && face < 0; ++k)
            for (const int side : {-1, 1})
            {
                const double plane = side < 0 ? lo[k] : hi[k];
                if (side * normal[k] >= cFacingCos && std::abs(a[k] - plane) <= tolerance &&
                    std::abs(b[k] - plane) <= tolerance && std::abs(c[k] - plane) <= tolerance)
                {
                    face = 2 * k + (side > 0 ? 1 : 0);
                    break;
                }
            }
        if (face < 0)
            return piece; // a triangle inside the box or facing into it: not a box's outside
        real |= std::uint8_t(1u << face);
        area[std::size_t(face)] += 0.5 * length;
    }
    for (int face = 0; face < 6; ++face)
    {
        if (((real >> face) & 1u) == 0)
            continue;
        const int k = face / 2;
        const double faceArea = extent[(k + 1) % 3] * extent[(k + 2) % 3];
        if (faceArea > 0.0 && area[std::size_t(face)] < cPieceCoverage * faceArea)
            return piece;
    }
    if (real == 0)
        return piece;
    // Along an axis with one real face, the box reaches the extrusion depth behind it, or the body's thickness
    // there if that is less (never less than the triangles' own extent).
    const double extrusion = cExtrusion * extent.norm();
    for (int k = 0; k < 3; ++k)
    {
        const bool low = (real >> (2 * k)) & 1u, high = (real >> (2 * k + 1)) & 1u;
        if (low == high || extent[k] >= extrusion)
            continue;
        const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
        Vec3d faceCentre = 0.5 * (lo + hi);
        faceCentre[k] = low ? lo[k] : hi[k];
        const Vec3d halfU = 0.5 * extent[k1] * Vec3d::Unit(k1), halfV = 0.5 * extent[k2] * Vec3d::Unit(k2);
        const Vec3d inward = (low ? 1.0 : -1.0) * Vec3d::Unit(k);
        const double depth =
            std::max(extent[k], std::min(extrusion, ThicknessBehind(inTree, inInternal, faceCentre, halfU, halfV, inward)));
        if (low)
            hi[k] = lo[k] + depth;
        else
            lo[k] = hi[k] - depth;
    }
    const Vec3d centre = 0.5 * (lo + hi);
    piece.offset = (centre - Vec3d(inRow[0], inRow[1], inRow[2])).cast<float>();
    piece.halfExtents = (0.5 * (hi - lo)).cast<float>();
    piece.realFaces = real;
    return piece;
}

// The winding number of the closed rest surface about `inPoint`, counted along a ray in `inDirection`: the
// crossings where the ray leaves the surface (along a triangle's normal) less those where it enters, over
// every triangle it hits (a descent on the rest spheres). 0 outside, 1 inside one part, 2 inside two parts
// that overlap (as modelled furniture's boxes do).
int WindingAlong(const BDTree& inTree, const Vec3d& inPoint, const Vec3d& inDirection)
{
    const Model& model = inTree.GetModel();
    const auto positions = model.Positions();
    Ray ray;
    ray.origin = inPoint;
    ray.direction = inDirection;
    int winding = 0;
    thread_local std::vector<std::uint32_t> stack;
    stack.assign(1, 0u);
    while (!stack.empty())
    {
        const std::uint32_t index = stack.back();
        stack.pop_back();
        const float* row = inTree.Row(index);
        const Vec3d toCentre = Vec3d(row[0], row[1], row[2]) - inPoint;
        const double along = std::max(0.0, toCentre.dot(inDirection));
        if ((toCentre - along * inDirection).squaredNorm() > double(row[3]) * double(row[3]) * (1.0 + 1e-6) &&
            toCentre.squaredNorm() > double(row[3]) * double(row[3]))
            continue; // the ray misses the sphere
        const BDTreeNode& node = inTree.Node(index);
        if (node.IsLeaf())
        {
            for (std::uint32_t t = node.firstTriangle; t < node.firstTriangle + node.triangleCount; ++t)
            {
                const Triangle& triangle = model.Triangles()[t];
                const Vec3d corners[3] = {positions[triangle[0]].cast<double>(),
                                          positions[triangle[1]].cast<double>(),
                                          positions[triangle[2]].cast<double>()};
                if (RayTriangle(ray, corners))
                {
                    const Vec3d normal = (corners[1] - corners[0]).cross(corners[2] - corners[0]);
                    winding += normal.dot(inDirection) > 0.0 ? 1 : -1;
                }
            }
            continue;
        }
        stack.push_back(node.firstChild);
        stack.push_back(node.firstChild + 1);
    }
    return winding;
}

// Per tree-order triangle: whether it lies inside the body (behind another part's surface, as a chair's leg
// reaching into its seat does), so that it is no surface a contact can reach without passing through others:
// the winding number just outside it is at least 1 along two of three skewed rays.
std::vector<std::uint8_t> InternalTriangles(const BDTree& inTree)
{
    const Model& model = inTree.GetModel();
    const auto positions = model.Positions();
    const double size = double(inTree.Row(0)[3]);
    const Vec3d directions[3] = {Vec3d(0.5773, 0.5775, 0.5771).normalized(),
                                 Vec3d(-0.6312, 0.4501, 0.6317).normalized(),
                                 Vec3d(0.2113, -0.8619, 0.4610).normalized()};
    std::vector<std::uint8_t> internal(model.TriangleCount(), 0);
    for (std::uint32_t t = 0; t < model.TriangleCount(); ++t)
    {
        const Triangle& triangle = model.Triangles()[t];
        const Vec3d a = positions[triangle[0]].cast<double>(), b = positions[triangle[1]].cast<double>(),
                    c = positions[triangle[2]].cast<double>();
        const Vec3d cross = (b - a).cross(c - a);
        if (!(cross.norm() > 0.0))
            continue;
        const Vec3d outside = (a + b + c) / 3.0 + 1e-5 * size * cross.normalized();
        int votes = 0;
        for (const Vec3d& direction : directions)
            votes += WindingAlong(inTree, outside, direction) >= 1 ? 1 : 0;
        internal[t] = votes >= 2 ? 1 : 0;
    }
    return internal;
}

// The least-area rectangle holding 2D points: its centre, unit axis u (v is u turned by 90 degrees) and half
// sides, from the edges of their convex hull (a least-area rectangle has a side along one of them).
void LeastRectangle(std::vector<Eigen::Vector2d>& ioPoints, Eigen::Vector2d& outCentre, Eigen::Vector2d& outAxis,
                    Eigen::Vector2d& outHalf)
{
    std::sort(ioPoints.begin(), ioPoints.end(), [](const Eigen::Vector2d& inP, const Eigen::Vector2d& inQ)
              { return inP.x() != inQ.x() ? inP.x() < inQ.x() : inP.y() < inQ.y(); });
    const auto cross = [](const Eigen::Vector2d& inO, const Eigen::Vector2d& inA, const Eigen::Vector2d& inB)
    { return (inA.x() - inO.x()) * (inB.y() - inO.y()) - (inA.y() - inO.y()) * (inB.x() - inO.x()); };
    std::vector<Eigen::Vector2d> hull;
    for (int pass = 0; pass < 2; ++pass)
    {
        const std::size_t start = hull.size();
        for (std::size_t k = 0; k < ioPoints.size(); ++k)
        {
            const Eigen::Vector2d& p = pass == 0 ? ioPoints[k] : ioPoints[ioPoints.size() - 1 - k];
            while (hull.size() >= start + 2 && cross(hull[hull.size() - 2], hull.back(), p) <= 0.0)
                hull.pop_back();
            hull.push_back(p);
        }
        hull.pop_back();
    }
    double bestArea = std::numeric_limits<double>::infinity();
    outAxis = Eigen::Vector2d::UnitX();
    outCentre = ioPoints.front();
    outHalf.setZero();
    for (std::size_t i = 0; i < std::max<std::size_t>(hull.size(), 1); ++i)
    {
        Eigen::Vector2d u = hull.size() >= 2 ? Eigen::Vector2d(hull[(i + 1) % hull.size()] - hull[i])
                                             : Eigen::Vector2d(Eigen::Vector2d::UnitX());
        if (!(u.norm() > 0.0))
            continue;
        u.normalize();
        const Eigen::Vector2d v(-u.y(), u.x());
        double loU = std::numeric_limits<double>::infinity(), hiU = -loU, loV = loU, hiV = -loU;
        for (const Eigen::Vector2d& p : hull.empty() ? ioPoints : hull)
        {
            loU = std::min(loU, p.dot(u));
            hiU = std::max(hiU, p.dot(u));
            loV = std::min(loV, p.dot(v));
            hiV = std::max(hiV, p.dot(v));
        }
        const double area = (hiU - loU) * (hiV - loV);
        if (area < bestArea)
        {
            bestArea = area;
            outAxis = u;
            outCentre = 0.5 * (loU + hiU) * u + 0.5 * (loV + hiV) * v;
            outHalf = Eigen::Vector2d(0.5 * (hiU - loU), 0.5 * (hiV - loV));
        }
    }
}

// The facets of a node that is not a box: its triangles grouped by plane (normals within `cFacingCos`, vertices
// within the flatness of the node's size) and split into connected groups, each a thin box of its least-area
// rectangle. False (and nothing appended) if a group covers its rectangle thinly, or there are too many.
bool MakeFacets(const BDTree& inTree, std::uint32_t inNodeIndex, const BDTreeNode& inNode, const float* inRow,
                const std::vector<std::uint8_t>& inInternal, std::vector<ContactFacet>& ioFacets,
                std::vector<std::uint32_t>& ioTriangles)
{
    const Model& inModel = inTree.GetModel();
    const auto positions = inModel.Positions();
    const auto triangles = inModel.Triangles();
    const auto at = [&](std::uint32_t inVertex) { return Vec3d(positions[inVertex].cast<double>()); };
    Vec3d lo = Vec3d::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
    for (std::uint32_t t = inNode.firstTriangle; t < inNode.firstTriangle + inNode.triangleCount; ++t)
        if (inInternal[t] == 0)
            for (const std::uint32_t v : triangles[t])
            {
                lo = lo.cwiseMin(at(v));
                hi = hi.cwiseMax(at(v));
            }
    if (!lo.allFinite())
        return false;
    const double tolerance = cPieceFlatness * (hi - lo).norm() + 1e-12;
    // Planes, then each triangle's group: the triangles of a plane joined where they share a vertex.
    std::vector<Vec3d> normals;
    std::vector<double> offsets;
    const std::uint32_t count = inNode.triangleCount;
    std::vector<std::uint32_t> plane(count, cNoIndex), group(count);
    for (std::uint32_t i = 0; i < count; ++i)
    {
        const Triangle& triangle = triangles[inNode.firstTriangle + i];
        const Vec3d cross = (at(triangle[1]) - at(triangle[0])).cross(at(triangle[2]) - at(triangle[0]));
        if (!(cross.norm() > 0.0) || inInternal[inNode.firstTriangle + i] != 0)
            continue; // no area, no side (its vertices belong to its neighbours), or inside the body
        const Vec3d normal = cross.normalized();
        for (std::uint32_t p = 0; p < normals.size() && plane[i] == cNoIndex; ++p)
            if (normals[p].dot(normal) >= cFacingCos &&
                std::all_of(triangle.begin(), triangle.end(), [&](std::uint32_t inVertex)
                            { return std::abs(normals[p].dot(at(inVertex)) - offsets[p]) <= tolerance; }))
                plane[i] = p;
        if (plane[i] == cNoIndex)
        {
            plane[i] = std::uint32_t(normals.size());
            normals.push_back(normal);
            offsets.push_back(normal.dot(at(triangle[0])));
        }
    }
    for (std::uint32_t i = 0; i < count; ++i)
        group[i] = i;
    const auto root = [&](std::uint32_t inI)
    {
        while (group[inI] != inI)
            inI = group[inI] = group[group[inI]];
        return inI;
    };
    for (std::uint32_t i = 0; i < count; ++i)
        for (std::uint32_t j = i + 1; j < count; ++j)
            if (plane[i] != cNoIndex && plane[i] == plane[j])
            {
                const Triangle& a = triangles[inNode.firstTriangle + i];
                const Triangle& b = triangles[inNode.firstTriangle + j];
                const bool shared = std::any_of(a.begin(), a.end(), [&](std::uint32_t inV)
                                                { return std::find(b.begin(), b.end(), inV) != b.end(); });
                if (shared)
                    group[root(i)] = root(j);
            }
    std::vector<std::uint32_t> roots;
    for (std::uint32_t i = 0; i < count; ++i)
        if (plane[i] != cNoIndex && std::find(roots.begin(), roots.end(), root(i)) == roots.end())
            roots.push_back(root(i));
    const auto faced = std::uint32_t(std::count_if(plane.begin(), plane.end(),
                                                   [](std::uint32_t inPlane) { return inPlane != cNoIndex; }));
    if (roots.empty() || roots.size() > cMaxFacets || roots.size() * cMinFacetTriangles > faced)
        return false;
    const std::size_t firstFacet = ioFacets.size(), firstTriangle = ioTriangles.size();
    for (const std::uint32_t groupRoot : roots)
    {
        const Vec3d n = normals[plane[groupRoot]];
        // In-plane axes, then the group's points in them.
        const Vec3d e1 = (std::abs(n.x()) < 0.9 ? Vec3d::UnitX() : Vec3d::UnitY()).cross(n).normalized();
        const Vec3d e2 = n.cross(e1);
        std::vector<Eigen::Vector2d> points;
        double area = 0.0, height = -std::numeric_limits<double>::infinity();
        ContactFacet facet;
        facet.node = inNodeIndex;
        facet.firstTriangle = std::uint32_t(ioTriangles.size());
        for (std::uint32_t i = 0; i < count; ++i)
        {
            if (plane[i] == cNoIndex || root(i) != groupRoot)
                continue;
            const Triangle& triangle = triangles[inNode.firstTriangle + i];
            ioTriangles.push_back(inNode.firstTriangle + i);
            area += 0.5 * (at(triangle[1]) - at(triangle[0])).cross(at(triangle[2]) - at(triangle[0])).norm();
            for (const std::uint32_t v : triangle)
            {
                points.emplace_back(e1.dot(at(v)), e2.dot(at(v)));
                height = std::max(height, n.dot(at(v)));
            }
        }
        facet.triangleCount = std::uint32_t(ioTriangles.size()) - facet.firstTriangle;
        Eigen::Vector2d centre2, axis2, half2;
        LeastRectangle(points, centre2, axis2, half2);
        if (area < cPieceCoverage * 4.0 * half2.x() * half2.y())
        {
            ioFacets.resize(firstFacet);
            ioTriangles.resize(firstTriangle);
            return false;
        }
        const Vec3d u = axis2.x() * e1 + axis2.y() * e2;
        const Vec3d v = n.cross(u);
        const double depth = std::max(0.0, std::min(cExtrusion * 2.0 * half2.norm(),
                                                    ThicknessBehind(inTree, inInternal, height * n + centre2.x() * e1 + centre2.y() * e2,
                                                                    half2.x() * u, half2.y() * v, -n)));
        const Vec3d centre = (height - 0.5 * depth) * n + centre2.x() * e1 + centre2.y() * e2;
        facet.axes.col(0) = n.cast<float>();
        facet.axes.col(1) = u.cast<float>();
        facet.axes.col(2) = v.cast<float>();
        facet.halfExtents = Vec3f(float(0.5 * depth), float(half2.x()), float(half2.y()));
        facet.offset = (centre - Vec3d(inRow[0], inRow[1], inRow[2])).cast<float>();
        ioFacets.push_back(facet);
    }
    return true;
}

} // namespace

ContactPieces::ContactPieces(std::shared_ptr<const BDAabbTree> inBoxes, std::uint32_t inNodeCount,
                             std::uint32_t inProxyLevel, bool inClosed)
    : mBoxes(std::move(inBoxes))
{
    if (!mBoxes)
        throw Error("ContactPieces: no box rows given");
    const BDTree& tree = mBoxes->Tree();
    const std::uint32_t count = std::min(inNodeCount, tree.NodeCount());
    mPieces.resize(count);
    mRestBoxes.resize(tree.NodeCount());
    for (std::uint32_t node = 0; node < tree.NodeCount(); ++node)
    {
        const float* row = mBoxes->Row(node);
        mRestBoxes[node] = {row[0], row[1], row[2], row[4], row[5], row[6]};
    }
    mParents.assign(count, cNoIndex);
    for (std::uint32_t node = 0; node < count; ++node)
        if (const BDTreeNode& n = tree.Node(node); !n.IsLeaf())
            for (const std::uint32_t child : {n.firstChild, n.firstChild + 1})
                if (child < count)
                    mParents[child] = node;
    if (!inClosed)
        return;
    mFacetBegin.assign(std::size_t(count) + 1, 0);
    const std::vector<std::uint8_t> internal = InternalTriangles(tree);
    std::vector<std::uint32_t> proxies;
    for (std::uint32_t node = 0; node < count; ++node)
    {
        mPieces[node] = Classify(tree, tree.Node(node), mBoxes->Row(node), internal);
        mPieceCount += mPieces[node].IsPiece() ? 1 : 0;
        const BDTreeNode& n = tree.Node(node);
        const bool proxy = n.level == inProxyLevel || (n.level < inProxyLevel && n.IsLeaf());
        if (proxy)
            proxies.push_back(node);
        const std::size_t before = mFacets.size();
        if (proxy && !mPieces[node].IsPiece() &&
            MakeFacets(tree, node, n, mBoxes->Row(node), internal, mFacets, mFacetTriangles))
            for (std::size_t f = before; f < mFacets.size(); ++f)
                mFacetIds.push_back(std::uint32_t(f));
        mFacetBegin[node + 1] = std::uint32_t(mFacetIds.size());
    }
    if (CoveredCount(proxies) * cMinPieceCoverage < proxies.size())
        DropAll();
    if (mPieceCount > 0)
        mAffine = AffinePieceBounds(*mBoxes, mPieces);
}

namespace
{

// Whether node `inNode` is wholly covered by pieces at rest: it is one, or both its children are covered, down
// to the last classified level.
bool CoveredBelow(const BDTree& inTree, const ContactPieces& inPieces, std::uint32_t inNode)
{
    if (inPieces.Piece(inNode).IsPiece() || inPieces.Piece(inNode).inside)
        return true;
    const BDTreeNode& node = inTree.Node(inNode);
    if (node.IsLeaf() || node.firstChild + 1 >= inPieces.NodeCount())
        return false;
    return CoveredBelow(inTree, inPieces, node.firstChild) && CoveredBelow(inTree, inPieces, node.firstChild + 1);
}

} // namespace

std::size_t ContactPieces::CoveredCount(std::span<const std::uint32_t> inProxies) const
{
    const BDTree& tree = mBoxes->Tree();
    std::size_t covered = 0;
    for (const std::uint32_t proxy : inProxies)
    {
        bool pieceAbove = false;
        for (std::uint32_t up = proxy; up != cNoIndex && !pieceAbove; up = mParents[up])
            pieceAbove = mPieces[up].IsPiece();
        if (pieceAbove || !Facets(proxy).empty() || CoveredBelow(tree, *this, proxy))
            ++covered;
    }
    return covered;
}

void ContactPieces::DropAll()
{
    for (ContactPiece& piece : mPieces)
        piece.realFaces = 0;
    mPieceCount = 0;
    mFacets.clear();
    mFacetIds.clear();
    mFacetTriangles.clear();
    std::fill(mFacetBegin.begin(), mFacetBegin.end(), 0u);
}

std::uint32_t ContactPieces::LocateTriangle(std::uint32_t inNode, const Vec3d& inPoint, Vec3d& outBarycentric) const
{
    std::uint32_t best = mBoxes->Tree().Node(inNode).firstTriangle;
    double bestDistance2 = std::numeric_limits<double>::infinity();
    outBarycentric = Vec3d(1.0, 0.0, 0.0);
    Search(inNode, inPoint, best, bestDistance2, outBarycentric);
    return best;
}

std::uint32_t ContactPieces::LocateTriangleAround(std::uint32_t inNode, const Vec3d& inPoint, double inOnSurface,
                                                  Vec3d& outBarycentric) const
{
    std::uint32_t best = mBoxes->Tree().Node(inNode).firstTriangle;
    double bestDistance2 = std::numeric_limits<double>::infinity();
    outBarycentric = Vec3d(1.0, 0.0, 0.0);
    // Done at the first triangle the point lies on, to within a hundredth of `inOnSurface`.
    const double onIt2 = 1e-4 * inOnSurface * inOnSurface;
    Search(inNode, inPoint, best, bestDistance2, outBarycentric, onIt2);
    // Up the ancestors while the point is off the triangles found: each adds its other child's subtree, opened
    // only where its boxes come nearer than the best so far.
    for (std::uint32_t node = inNode; bestDistance2 > inOnSurface * inOnSurface && Parent(node) != cNoIndex;
         node = Parent(node))
    {
        const std::uint32_t first = mBoxes->Tree().Node(Parent(node)).firstChild;
        Search(node == first ? first + 1 : first, inPoint, best, bestDistance2, outBarycentric, onIt2);
    }
    return best;
}

double ContactPieces::RestGap2(std::uint32_t inTriangle, const Vec3d& inPoint, Vec3d& outBarycentric) const
{
    const Model& model = mBoxes->Tree().GetModel();
    const auto positions = model.Positions();
    const auto& triangle = model.Triangles()[inTriangle];
    const Vec3d corners[3] = {positions[triangle[0]].cast<double>(), positions[triangle[1]].cast<double>(),
                              positions[triangle[2]].cast<double>()};
    outBarycentric = ClosestBarycentric(inPoint, corners);
    return (outBarycentric[0] * corners[0] + outBarycentric[1] * corners[1] + outBarycentric[2] * corners[2] -
            inPoint)
        .squaredNorm();
}

void ContactPieces::Search(std::uint32_t inNode, const Vec3d& inPoint, std::uint32_t& ioBest, double& ioBestDistance2,
                           Vec3d& ioBarycentric, double inOnIt2) const
{
    const BDTree& tree = mBoxes->Tree();
    const Vec3f point = inPoint.cast<float>();
    // The squared distance from the point to a node's rest box (float: a bound to prune by, slightly loosened).
    const auto distance2 = [&](std::uint32_t inIndex)
    {
        const std::array<float, 6>& box = mRestBoxes[inIndex];
        const Vec3f outside = ((point - Vec3f(box[0], box[1], box[2])).cwiseAbs() - Vec3f(box[3], box[4], box[5]))
                                  .cwiseMax(0.0f);
        return 0.999 * double(outside.squaredNorm());
    };
    const double tie = 1e-18 * (1.0 + inPoint.squaredNorm());
    // Branch and bound, the nearer child first: a point on the node's surface is found at distance 0 on the
    // first path that holds it, and the boxes apart from it are not opened. Of triangles through the point (a
    // vertex, an edge), the lowest in tree order, unless `inOnIt2` ends the search at the first.
    thread_local std::vector<std::pair<double, std::uint32_t>> stack;
    stack.assign(1, {distance2(inNode), inNode});
    while (!stack.empty())
    {
        const auto [bound, index] = stack.back();
        stack.pop_back();
        if (bound > ioBestDistance2 + tie)
            continue;
        const BDTreeNode& node = tree.Node(index);
        if (node.IsLeaf())
        {
            for (std::uint32_t t = node.firstTriangle; t < node.firstTriangle + node.triangleCount; ++t)
            {
                Vec3d bary;
                const double gap2 = RestGap2(t, inPoint, bary);
                if (gap2 < ioBestDistance2 - tie || (gap2 <= ioBestDistance2 + tie && t < ioBest))
                {
                    ioBestDistance2 = gap2;
                    ioBest = t;
                    ioBarycentric = bary;
                }
            }
            if (ioBestDistance2 <= inOnIt2)
                return;
            continue;
        }
        const std::uint32_t first = node.firstChild;
        const double near0 = distance2(first), near1 = distance2(first + 1);
        if (near0 <= near1)
        {
            stack.emplace_back(near1, first + 1);
            stack.emplace_back(near0, first);
        }
        else
        {
            stack.emplace_back(near0, first);
            stack.emplace_back(near1, first + 1);
        }
    }
}

} // namespace bdt

#include "PieceDescent.h"

#include "core/queries/RegionTraversal.h"

#include <algorithm>

namespace bdt
{

namespace
{

using ECut = PieceSide::ECut;
using NodePair = std::pair<std::uint32_t, std::uint32_t>;

// The proxies under piece `inPiece` of `ioSide` (down to the proxy level, or the one above it if it lies below)
// whose boxes meet `inOther` (the other side's proxy box, `inGap` grown on A's side): the proxy pairs a piece
// against an uncovered proxy is taken to.
void ProxiesMeeting(PieceSide& ioSide, std::uint32_t inPiece, const WorldBox& inOther, bool inSideIsA, double inGap,
                    const BoxOverlapTest& inOverlap, std::vector<std::uint32_t>& outProxies, QueryStats& ioStats)
{
    const BDTree& tree = ioSide.Body().state->Tree();
    const ContactProxies& proxies = ioSide.Body().state->Proxies();
    if (tree.Node(inPiece).level >= proxies.Level() || proxies.IsProxy(inPiece))
    {
        outProxies.push_back(ioSide.ProxyAbove(inPiece));
        return;
    }
    thread_local std::vector<std::uint32_t> stack;
    stack.assign(1, inPiece);
    while (!stack.empty())
    {
        const std::uint32_t node = stack.back();
        stack.pop_back();
        WorldBox box = ioSide.Box(node);
        ++ioStats.overlapTests;
        bool meets = false;
        if (inSideIsA)
        {
            box.halfExtents.array() += inGap;
            meets = inOverlap(box, inOther);
        }
        else
        {
            WorldBox other = inOther;
            other.halfExtents.array() += inGap;
            meets = inOverlap(other, box);
        }
        if (!meets)
            continue;
        if (proxies.IsProxy(node))
        {
            outProxies.push_back(node);
            continue;
        }
        stack.push_back(tree.Node(node).firstChild + 1);
        stack.push_back(tree.Node(node).firstChild);
    }
}

} // namespace

// Whether the box `inBox` (A's axes `inRotation`) is further than `inGap` from the primitive: then no
// feature of the patch inside it comes within `inGap` of the primitive, in front of it or behind it.
bool BoxApart(const WorldBox& inBox, const Mat3d& inRotation, const Plane& inPlane, double inGap)
{
    const double reach = (inRotation.transpose() * inPlane.normal).cwiseAbs().dot(inBox.halfExtents);
    const double height = inPlane.normal.dot(inBox.center) - inPlane.offset;
    return std::abs(height) > reach + inGap + 1e-9 * (reach + std::abs(inPlane.offset)) + 1e-12;
}
bool BoxApart(const WorldBox& inBox, const Mat3d& inRotation, const Sphere& inSphere, double inGap)
{
    const Vec3d local = inRotation.transpose() * (inSphere.center - inBox.center);
    const Vec3d outside = (local.cwiseAbs() - inBox.halfExtents).cwiseMax(0.0);
    const double slack = 1e-9 * (inSphere.radius + inBox.halfExtents.sum() + inSphere.center.cwiseAbs().maxCoeff());
    return outside.norm() > inSphere.radius + inGap + slack;
}
bool BoxApart(const WorldBox& inBox, const Mat3d& inRotation, const OrientedBox& inOther, double inGap)
{
    WorldBox grown = inBox;
    grown.halfExtents.array() += inGap;
    return !BoxOverlapTest(inRotation, inOther.pose.rotation)(grown, {inOther.pose.translation, inOther.halfExtents});
}
bool BoxApart(const WorldBox& inBox, const Mat3d& inRotation, const Capsule& inCapsule, double inGap)
{
    // The capsule's own box: along its segment and two directions across it.
    const Vec3d axis = inCapsule.b - inCapsule.a;
    const double length = axis.norm();
    Mat3d frame = Mat3d::Identity();
    if (length > 0.0)
    {
        const Vec3d u = axis / length;
        const Vec3d v = (std::abs(u.x()) < 0.9 ? Vec3d::UnitX() : Vec3d::UnitY()).cross(u).normalized();
        frame.col(0) = u;
        frame.col(1) = v;
        frame.col(2) = u.cross(v);
    }
    OrientedBox box;
    box.pose.rotation = frame;
    box.pose.translation = 0.5 * (inCapsule.a + inCapsule.b);
    box.halfExtents = Vec3d(0.5 * length + inCapsule.radius, inCapsule.radius, inCapsule.radius);
    return BoxApart(inBox, inRotation, box, inGap);
}

void DescendToCut(PieceSide& ioA, PieceSide& ioB, double inGap, CutPairs& outPairs, QueryStats& ioStats)
{
    outPairs.Clear();
    const BoxOverlapTest overlap(ioA.Body().pose.rotation, ioB.Body().pose.rotation);
    const BDTree& treeA = ioA.Body().state->Tree();
    const BDTree& treeB = ioB.Body().state->Tree();
    thread_local std::vector<NodePair> stack;
    thread_local std::vector<std::uint32_t> proxies;
    stack.assign(1, {0u, 0u});
    while (!stack.empty())
    {
        const auto [a, b] = stack.back();
        stack.pop_back();
        WorldBox boxA = ioA.Box(a);
        boxA.halfExtents.array() += inGap;
        const WorldBox& boxB = ioB.Box(b);
        ++ioStats.overlapTests;
        if (!overlap(boxA, boxB))
            continue;
        const ECut cutA = ioA.Cut(a);
        const ECut cutB = ioB.Cut(b);
        if (cutA == ECut::Empty || cutB == ECut::Empty)
            continue;
        const bool boxesA = cutA == ECut::Piece || cutA == ECut::Facets;
        const bool boxesB = cutB == ECut::Piece || cutB == ECut::Facets;
        if (boxesA && boxesB)
        {
            const std::span<const std::uint32_t> idsA = ioA.IdsOf(a, cutA);
            const std::span<const std::uint32_t> idsB = ioB.IdsOf(b, cutB);
            for (const std::uint32_t pieceA : idsA)
                for (const std::uint32_t pieceB : idsB)
                    outPairs.pieces.emplace_back(pieceA, pieceB);
            continue;
        }
        if (cutA == ECut::Exact && cutB == ECut::Exact)
        {
            outPairs.proxies.emplace_back(a, b);
            continue;
        }
        if (cutA != ECut::Inner && cutB != ECut::Inner)
        {
            // A piece against a proxy no piece covers: the proxies under the piece that meet it, as triangles.
            proxies.clear();
            if (boxesA)
            {
                ProxiesMeeting(ioA, a, ioB.Box(b), true, inGap, overlap, proxies, ioStats);
                for (const std::uint32_t proxy : proxies)
                    outPairs.proxies.emplace_back(proxy, b);
            }
            else
            {
                ProxiesMeeting(ioB, b, ioA.Box(a), false, inGap, overlap, proxies, ioStats);
                for (const std::uint32_t proxy : proxies)
                    outPairs.proxies.emplace_back(a, proxy);
            }
            continue;
        }
        // Split the side that goes on (the larger box when both do).
        const bool splitA =
            cutB != ECut::Inner ||
            (cutA == ECut::Inner && ioA.Box(a).halfExtents.squaredNorm() >= boxB.halfExtents.squaredNorm());
        if (splitA)
        {
            const std::uint32_t first = treeA.Node(a).firstChild;
            stack.emplace_back(first + 1, b);
            stack.emplace_back(first, b);
        }
        else
        {
            const std::uint32_t first = treeB.Node(b).firstChild;
            stack.emplace_back(a, first + 1);
            stack.emplace_back(a, first);
        }
    }
    for (auto* list : {&outPairs.pieces, &outPairs.proxies})
    {
        std::sort(list->begin(), list->end());
        list->erase(std::unique(list->begin(), list->end()), list->end());
    }
}

template <class Primitive>
void DescendToCut(PieceSide& ioA, const Primitive& inPrimitive, double inGap, CutPairs& outPairs, QueryStats& ioStats)
{
    outPairs.Clear();
    const BDTree& tree = ioA.Body().state->Tree();
    const Mat3d& rotation = ioA.Body().pose.rotation;
    thread_local std::vector<std::uint32_t> stack;
    stack.assign(1, 0u);
    while (!stack.empty())
    {
        const std::uint32_t node = stack.back();
        stack.pop_back();
        ++ioStats.overlapTests;
        if (BoxApart(ioA.Box(node), rotation, inPrimitive, inGap))
            continue;
        const ECut cut = ioA.Cut(node);
        if (cut == ECut::Empty)
            continue;
        if (cut == ECut::Piece || cut == ECut::Facets)
        {
            for (const std::uint32_t piece : ioA.IdsOf(node, cut))
                outPairs.pieces.emplace_back(piece, cNoIndex);
            continue;
        }
        if (cut == ECut::Exact)
        {
            outPairs.proxies.emplace_back(node, cNoIndex);
            continue;
        }
        stack.push_back(tree.Node(node).firstChild + 1);
        stack.push_back(tree.Node(node).firstChild);
    }
    std::sort(outPairs.pieces.begin(), outPairs.pieces.end());
    std::sort(outPairs.proxies.begin(), outPairs.proxies.end());
}

template void DescendToCut<Plane>(PieceSide&, const Plane&, double, CutPairs&, QueryStats&);
template void DescendToCut<Sphere>(PieceSide&, const Sphere&, double, CutPairs&, QueryStats&);
template void DescendToCut<OrientedBox>(PieceSide&, const OrientedBox&, double, CutPairs&, QueryStats&);

} // namespace bdt

#include "SurfacePieces.h"
#include "bullet/ShapeSolver.h"

#include "bullet/manifold/ContactRegions.h"
#include "bullet/PieceMemory.h"

#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/bounds/BDAabbTree.h>

#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <limits>

namespace bdt
{

PieceSide::PieceSide(const DeformableShape& inShape, const DeformedBody& inBody, PieceScratch& ioScratch)
    : mShape(inShape), mBody(inBody), mScratch(ioScratch)
{
    for (const std::uint32_t node : mScratch.touched)
        mScratch.usable[node] = mScratch.covered[node] = mScratch.boxed[node] = 0;
    mScratch.touched.clear();
    const ShapeSolver& solver = ShapeSolver::Of(inShape);
    const ContactPieces* pieces = solver.Pieces();
    mTolerance = inShape.Settings().pieceTolerance;
    if (pieces == nullptr || pieces->PieceCount() + pieces->FacetCount() == 0 || !(mTolerance > 0.0) ||
        &pieces->Boxes().Tree() != &inBody.state->Tree())
        return;
    mPieces = pieces;
    PieceMemory* use = solver.PieceUse();
    mUse = use != nullptr && use->NodeCount() == pieces->NodeCount() ? use : nullptr;
    mRegionLevel = RegionLevel(inBody.state->Proxies().Level(), inShape.Settings().regionDepth);
    const std::span<const float> q = inBody.state->Q();
    mQq.resize(8 * q.size());
    MakeBoxUpdateInput(q, mQq.data());
    if (mScratch.usable.size() < pieces->NodeCount())
    {
        mScratch.usable.resize(pieces->NodeCount(), 0);
        mScratch.covered.resize(pieces->NodeCount(), 0);
        mScratch.boxed.resize(pieces->NodeCount(), 0);
        mScratch.boxes.resize(pieces->NodeCount());
        mScratch.centres.resize(pieces->NodeCount());
        mScratch.growths.resize(pieces->NodeCount());
        mScratch.frames.resize(pieces->NodeCount());
    }
}

void PieceSide::Touch(std::uint32_t inNode)
{
    if (mScratch.usable[inNode] == 0 && mScratch.covered[inNode] == 0 && mScratch.boxed[inNode] == 0)
        mScratch.touched.push_back(inNode);
}

Vec3d PieceSide::RestCentre(std::uint32_t inNode)
{
    Box(inNode);
    return mScratch.centres[inNode];
}

const PieceFrame& PieceSide::Frame(std::uint32_t inNode)
{
    if (WithinTolerance(inNode) && mScratch.usable[inNode] == 3)
        return mScratch.frames[inNode];
    const ContactPiece& piece = mPieces->Piece(inNode);
    mFrame.centre = RestCentre(inNode) + piece.offset.cast<double>();
    mFrame.halfExtents = piece.halfExtents.cast<double>();
    mFrame.growth = mScratch.growths[inNode];
    return mFrame;
}

bool PieceSide::WithinTolerance(std::uint32_t inNode)
{
    if (mScratch.usable[inNode] == 0)
    {
        const float* row = mPieces->Boxes().Row(inNode);
        UpdatedBox box;
        UpdateBox(row, mQq.data(), mPieces->Boxes().ModeCount(), box);
        double growth = 0.0;
        for (int k = 0; k < 3; ++k)
            growth += std::max(0.0, double(box.halfExtents[k]) - double(row[4 + k]));
        // Taken up within half the tolerance, kept up to all of it (a hysteresis): a piece whose growth hovers
        // about the limit would otherwise take turns with its triangles step after step, each turn moving the
        // contacts, whose impulses ring the modes that made the growth.
        const bool aboveRegions = mBody.state->Tree().Node(inNode).level < mRegionLevel;
        const auto within = [&](double inGrowth)
        {
            const double grown = mBody.scale * inGrowth;
            return aboveRegions ? inGrowth == 0.0
                                : 2.0 * grown <= mTolerance ||
                                      (grown <= mTolerance && mUse != nullptr && mUse->WasUsed(inNode));
        };
        // A piece below the regions takes its affine frame wherever the frame holds it, and only else its box
        // moved by the BD-AABB bound: the frame follows q continuously, where taking turns between the two (an
        // axis-aligned box one step, a turned one the next) would turn the contacts' normals step by step and
        // ring the modes. Above the regions only a body at rest shape (no growth at all) may use a piece.
        const ContactPiece& piece = mPieces->Piece(inNode);
        PieceFrame& affine = mScratch.frames[inNode];
        std::uint8_t usable = 0;
        if (!aboveRegions && piece.IsPiece() && mPieces->Affine().Frame(inNode, piece, mBody.state->Q(), affine) &&
            within(affine.growth))
        {
            growth = affine.growth;
            usable = 3;
        }
        else
            usable = within(growth) ? 2 : 1;
        Touch(inNode);
        mScratch.growths[inNode] = growth;
        mScratch.usable[inNode] = usable;
    }
    return mScratch.usable[inNode] >= 2;
}

void PieceSide::MadeContact(std::uint32_t inId)
{
    if (mUse != nullptr && inId < mPieces->NodeCount())
        mUse->MarkUsed(inId);
}

bool PieceSide::Usable(std::uint32_t inNode)
{
    return mPieces->Piece(inNode).IsPiece() && WithinTolerance(inNode);
}

std::span<const std::uint32_t> PieceSide::IdsOf(std::uint32_t inNode, ECut inCut)
{
    mIds.clear();
    if (inCut == ECut::Piece)
        mIds.push_back(inNode);
    else if (inCut == ECut::Facets)
        for (const std::uint32_t facet : mPieces->Facets(inNode))
            mIds.push_back(mPieces->NodeCount() + facet);
    return mIds;
}

bool PieceSide::Covered(std::uint32_t inProxy, bool inCollect)
{
    if (!inCollect && mScratch.covered[inProxy] != 0)
        return mScratch.covered[inProxy] == 2;
    const BDTree& tree = mBody.state->Tree();
    const std::size_t first = mList.size();
    bool covered = true;
    mStack.assign(1, inProxy);
    while (!mStack.empty() && covered)
    {
        const std::uint32_t node = mStack.back();
        mStack.pop_back();
        if (Usable(node))
        {
            if (inCollect)
                mList.push_back(node);
            continue;
        }
        const BDTreeNode& n = tree.Node(node);
        if (n.IsLeaf() || n.firstChild + 1 >= mPieces->NodeCount())
            covered = false;
        else
        {
            mStack.push_back(n.firstChild + 1);
            mStack.push_back(n.firstChild);
        }
    }
    if (!covered)
        mList.resize(first);
    Touch(inProxy);
    mScratch.covered[inProxy] = covered ? 2 : 1;
    return covered;
}

std::span<const std::uint32_t> PieceSide::PiecesOf(std::uint32_t inProxy)
{
    mList.clear();
    if (mPieces == nullptr || inProxy >= mPieces->NodeCount())
        return {};
    // The proxy's ancestors, coarsest first: the first usable piece among them.
    std::uint32_t chain[64];
    std::uint32_t length = 0;
    for (std::uint32_t node = inProxy; node != cNoIndex && length < 64; node = mPieces->Parent(node))
        chain[length++] = node;
    for (std::uint32_t i = length; i-- > 0;)
        if (Usable(chain[i]))
        {
            mList.push_back(chain[i]);
            return mList;
        }
    // Else its facets, or the usable pieces below it that cover it.
    if (!mPieces->Facets(inProxy).empty() && WithinTolerance(inProxy))
    {
        for (const std::uint32_t facet : mPieces->Facets(inProxy))
            mList.push_back(mPieces->NodeCount() + facet);
        return mList;
    }
    Covered(inProxy, true);
    return mList;
}

PieceSide::ECut PieceSide::Cut(std::uint32_t inNode)
{
    if (mPieces->Piece(inNode).inside)
        return ECut::Empty;
    if (Usable(inNode))
        return ECut::Piece;
    const ContactProxies& proxies = mBody.state->Proxies();
    if (mBody.state->Tree().Node(inNode).level < proxies.Level() && !proxies.IsProxy(inNode))
        return ECut::Inner;
    if (proxies.IsProxy(inNode))
    {
        if (!mPieces->Facets(inNode).empty() && WithinTolerance(inNode))
            return ECut::Facets;
        return Covered(inNode, false) ? ECut::Inner : ECut::Exact;
    }
    return ECut::Inner; // below a covered proxy: pieces further down
}

const WorldBox& PieceSide::Box(std::uint32_t inNode)
{
    if (mScratch.boxed[inNode] == 0)
    {
        UpdatedBox box;
        UpdateBox(mPieces->Boxes().Row(inNode), mQq.data(), mPieces->Boxes().ModeCount(), box);
        WorldBox& world = mScratch.boxes[inNode];
        mScratch.centres[inNode] = Vec3d(box.center[0], box.center[1], box.center[2]);
        world.center = mBody.pose.Apply(mBody.scale * mScratch.centres[inNode]);
        world.halfExtents = mBody.scale * Vec3d(box.halfExtents[0], box.halfExtents[1], box.halfExtents[2]);
        Touch(inNode);
        mScratch.boxed[inNode] = 1;
    }
    return mScratch.boxes[inNode];
}

namespace
{

// The ancestor of `inNode` at the proxy level of `inBody` (the node itself at or above it).
std::uint32_t ProxyLevelAncestor(const DeformedBody& inBody, const ContactPieces& inPieces, std::uint32_t inNode)
{
    const std::uint32_t level = inBody.state->Proxies().Level();
    std::uint32_t node = inNode;
    while (inBody.state->Tree().Node(node).level > level)
        node = inPieces.Parent(node);
    return node;
}

} // namespace

std::uint32_t PieceSide::ProxyAbove(std::uint32_t inNode) const
{
    return ProxyLevelAncestor(mBody, *mPieces, inNode);
}

PlacedPiece PieceSide::Place(std::uint32_t inPiece)
{
    PlacedPiece placed;
    if (inPiece >= mPieces->NodeCount())
    {
        const ContactFacet& facet = mPieces->Facet(inPiece - mPieces->NodeCount());
        placed.center = mBody.pose.Apply(mBody.scale * (RestCentre(facet.node) + facet.offset.cast<double>()));
        placed.axes = mBody.pose.rotation * facet.axes.cast<double>();
        placed.halfExtents = mBody.scale * facet.halfExtents.cast<double>();
        placed.realFaces = 0x02; // the outward face, +axis 0
        return placed;
    }
    const PieceFrame& frame = Frame(inPiece);
    placed.center = mBody.pose.Apply(mBody.scale * frame.centre);
    placed.axes = mBody.pose.rotation * frame.axes;
    placed.halfExtents = mBody.scale * frame.halfExtents;
    placed.realFaces = mPieces->Piece(inPiece).realFaces;
    placed.facesCarryOn = !frame.turned;
    return placed;
}

UnnamedPoint PieceSide::Unnamed(std::uint32_t inPiece, const Vec3d& inPoint)
{
    const std::uint32_t node = NodeOf(inPiece);
    const float* row = mPieces->Boxes().Row(node);
    const Vec3d restCentre(row[0], row[1], row[2]);
    const Vec3d at = mBody.pose.ApplyInverse(inPoint) / mBody.scale;
    UnnamedPoint point;
    point.piece = inPiece;
    if (inPiece < mPieces->NodeCount())
    {
        const PieceFrame& frame = Frame(node);
        point.rest = frame.RestPoint(at, restCentre + mPieces->Piece(node).offset.cast<double>());
        point.motion = at - point.rest;
        if (frame.turned)
            point.turn = frame.axes * frame.stretch.asDiagonal() - Mat3d::Identity();
    }
    else
    {
        point.motion = RestCentre(node) - restCentre;
        point.rest = at - point.motion;
    }
    return point;
}

double PieceSide::Growth(std::uint32_t inPiece)
{
    const std::uint32_t node = NodeOf(inPiece);
    WithinTolerance(node);
    return mBody.scale * mScratch.growths[node];
}

PieceNamer::PieceNamer(const DeformedBody& inBodyA, const ContactPieces* inPiecesA, const DeformedBody* inBodyB,
                       const ContactPieces* inPiecesB)
{
    mSides[0] = {inBodyA, inPiecesA};
    if (inBodyB != nullptr)
        mSides[1] = {*inBodyB, inPiecesB};
}

PieceNamer PieceNamer::ForPair(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB)
{
    const DeformableShape& shapeA = *AsDeformable(inA.getCollisionShape());
    const DeformedBody bodyA = shapeA.QueryView(inA.getWorldTransform());
    const DeformableShape* shapeB = AsDeformable(inB.getCollisionShape());
    if (shapeB == nullptr)
        return PieceNamer(bodyA, ShapeSolver::Of(shapeA).Pieces(), nullptr, nullptr);
    const DeformedBody bodyB = shapeB->QueryView(inB.getWorldTransform());
    return PieceNamer(bodyA, ShapeSolver::Of(shapeA).Pieces(), &bodyB, ShapeSolver::Of(*shapeB).Pieces());
}

std::uint32_t PieceNamer::ProxyOf(const Side& inSide, std::uint32_t inNode, std::uint32_t inTriangle) const
{
    // Named as the triangle contacts name their points (`ProxyPatches`): the proxy holding the triangle, so a
    // point keeps its identifiers, and its warm start, when its pair goes from pieces to triangles and back.
    const BDTree& tree = inSide.body.state->Tree();
    const ContactProxies& proxies = inSide.body.state->Proxies();
    std::uint32_t node = ProxyLevelAncestor(inSide.body, *inSide.pieces, inNode);
    while (!proxies.IsProxy(node) && !tree.Node(node).IsLeaf())
    {
        const std::uint32_t first = tree.Node(node).firstChild;
        node = inTriangle >= tree.Node(first + 1).firstTriangle ? first + 1 : first;
    }
    return node;
}

ContactFeature PieceNamer::Feature(int inSide, const UnnamedPoint& inPoint) const
{
    const Side& side = mSides[inSide];
    const ContactPieces& pieces = *side.pieces;
    ContactFeature feature;
    if (inPoint.piece >= pieces.NodeCount())
    {
        // The facet's triangle nearest the point.
        const ContactFacet& f = pieces.Facet(inPoint.piece - pieces.NodeCount());
        double best = std::numeric_limits<double>::infinity();
        for (const std::uint32_t t : pieces.FacetTriangles().subspan(f.firstTriangle, f.triangleCount))
        {
            Vec3d bary;
            const double gap2 = pieces.RestGap2(t, inPoint.rest, bary);
            if (gap2 < best)
            {
                best = gap2;
                feature.triangle = t;
                feature.barycentric = bary;
            }
        }
        feature.node = ProxyOf(side, f.node, feature.triangle);
        return feature;
    }
    // A point of the box its own triangles do not reach (a real face they cover only in part, as a cube's
    // corner node covers its corner): the body's triangle there, whichever node holds it.
    feature.triangle =
        pieces.LocateTriangleAround(inPoint.piece, inPoint.rest, OnSurface(side), feature.barycentric);
    feature.node = ProxyOf(side, 0, feature.triangle);
    return feature;
}

double PieceNamer::OnSurface(const Side& inSide) const
{
    return 1e-4 * double(inSide.body.state->Tree().Row(0)[3]);
}

ContactFeature PieceNamer::Feature(int inSide, const UnnamedPoint& inPoint, std::uint32_t inHint) const
{
    const Side& side = mSides[inSide];
    if (inHint < side.body.state->Tree().GetModel().TriangleCount() && inPoint.piece < side.pieces->NodeCount())
    {
        Vec3d bary;
        const double onSurface = OnSurface(side);
        if (side.pieces->RestGap2(inHint, inPoint.rest, bary) <= onSurface * onSurface)
        {
            ContactFeature feature;
            feature.triangle = inHint;
            feature.barycentric = bary;
            feature.node = ProxyOf(side, 0, inHint);
            return feature;
        }
    }
    return Feature(inSide, inPoint);
}

double PieceNamer::OffsetAlong(int inSide, const UnnamedPoint& inPoint, const ContactFeature& inFeature,
                               const Vec3d& inDirection) const
{
    const DeformedBody& body = mSides[inSide].body;
    const Model& model = body.state->Tree().GetModel();
    if (inFeature.triangle >= model.TriangleCount())
        return 0.0;
    const Triangle& corners = model.Triangles()[inFeature.triangle];
    const std::span<const float> q = body.state->Q();
    Vec3d moved = Vec3d::Zero(), rest = Vec3d::Zero();
    for (int k = 0; k < 3; ++k)
    {
        const Vec3d corner = model.Positions()[corners[std::size_t(k)]].cast<double>();
        moved += inFeature.barycentric[k] * (model.DeformedPosition(corners[std::size_t(k)], q) - corner);
        rest += inFeature.barycentric[k] * corner;
    }
    const Vec3d boxMotion = inPoint.motion + inPoint.turn * (rest - inPoint.rest);
    return inDirection.dot(body.pose.rotation * (body.scale * (moved - boxMotion)));
}

void PieceNamer::Name(PairContact& ioContact, const std::array<std::uint32_t, 2>& inHints) const
{
    if (!ioContact.Unnamed())
        return;
    double offsetB = 0.0;
    if (ioContact.unnamed[1].piece != cNoIndex)
    {
        ioContact.feature1 = Feature(1, ioContact.unnamed[1], inHints[1]);
        offsetB = OffsetAlong(1, ioContact.unnamed[1], ioContact.feature1, ioContact.normal);
    }
    ioContact.feature0 = Feature(0, ioContact.unnamed[0], inHints[0]);
    const double offsetA = OffsetAlong(0, ioContact.unnamed[0], ioContact.feature0, ioContact.normal);
    ioContact.distance += ioContact.unnamedSlack + offsetA - offsetB;
    ioContact.pointOnB += offsetB * ioContact.normal;
    ioContact.unnamed = {};
    ioContact.unnamedSlack = 0.0;
}

} // namespace bdt

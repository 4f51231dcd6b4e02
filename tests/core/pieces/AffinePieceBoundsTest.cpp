// The pieces' affine bounds (core/pieces/AffinePieceBounds.h), checked vertex by vertex: at any q, every deformed vertex
// of a piece's node stands within the frame's growth of where the frame's box puts it, and inside that box grown
// by it; an undeformed body's frames are exactly its rest boxes; a bending body's growth is far below the
// BD-AABB growth of the same nodes.
#include "core/pieces/ContactPieces.h"

#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/asset/DeformableAsset.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <gtest/gtest.h>
#include <random>

namespace bdt
{
namespace
{

std::shared_ptr<const DeformableAsset> MakeChair()
{
    ShapeMesh mesh = MakeShape(EShape::Chair, 4000);
    return DeformableAsset::Create(std::make_shared<const BDTree>(
        BDTree::Build(MakeSmoothModel(std::move(mesh.positions), std::move(mesh.triangles), 6))));
}

// A random q whose largest vertex displacement is `inShare` of the body's bounding radius.
std::vector<float> RandomQ(const Model& inModel, double inRadius, double inShare, std::mt19937& ioRandom)
{
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::vector<float> q(inModel.ModeCount());
    for (float& value : q)
        value = float(uniform(ioRandom));
    double largest = 0.0;
    for (std::uint32_t v = 0; v < inModel.VertexCount(); ++v)
        largest = std::max(largest, (inModel.DeformedPosition(v, q) - inModel.Positions()[v].cast<double>()).norm());
    for (float& value : q)
        value = float(value * inShare * inRadius / largest);
    return q;
}

// Each piece node's vertices, deformed, against its frame: within the growth of the box's image of their rest
// point, and inside the placed box grown by it. Returns the frames checked.
std::uint32_t CheckFrames(const ContactPieces& inPieces, std::span<const float> inQ)
{
    const BDTree& tree = inPieces.Boxes().Tree();
    const Model& model = tree.GetModel();
    std::uint32_t checked = 0;
    ForEachNodeVertices(model, tree.Nodes().first(inPieces.NodeCount()),
                        [&](std::uint32_t inNode, std::span<const std::uint32_t> inVertices)
                        {
                            const ContactPiece& piece = inPieces.Piece(inNode);
                            PieceFrame frame;
                            if (!piece.IsPiece() || !inPieces.Affine().Frame(inNode, piece, inQ, frame))
                                return;
                            ++checked;
                            const float* row = inPieces.Boxes().Row(inNode);
                            const Vec3d restCentre = Vec3d(row[0], row[1], row[2]) + piece.offset.cast<double>();
                            for (const std::uint32_t v : inVertices)
                            {
                                const Vec3d rest = model.Positions()[v].cast<double>();
                                const Vec3d image =
                                    frame.centre + frame.axes * frame.stretch.cwiseProduct(rest - restCentre);
                                const Vec3d deformed = model.DeformedPosition(v, inQ);
                                // The box's inverse takes the image back to the rest point.
                                ASSERT_LE((frame.RestPoint(image, restCentre) - rest).norm(), 1e-9);
                                ASSERT_LE((deformed - image).norm(), frame.growth + 1e-12)
                                    << "node " << inNode << " vertex " << v;
                                // A vertex of the piece's rest box (not one of the node's triangles inside the
                                // body, behind another part) lies in the placed box grown by the growth.
                                const Vec3d restLocal = rest - restCentre;
                                const Vec3d half = piece.halfExtents.cast<double>();
                                if ((restLocal.cwiseAbs() - half).maxCoeff() > 1e-6)
                                    continue;
                                const Vec3d local = frame.axes.transpose() * (deformed - frame.centre);
                                ASSERT_LE((local.cwiseAbs() - frame.halfExtents).maxCoeff(), frame.growth + 1e-9)
                                    << "node " << inNode << " vertex " << v;
                            }
                        });
    return checked;
}

TEST(AffinePieceBounds, DeformedVerticesStayWithinTheGrowthOfTheirImage)
{
    const auto asset = MakeChair();
    const auto pieces = asset->Pieces(8);
    const Model& model = asset->Tree().GetModel();
    const double radius = asset->Tree().Row(0)[3];
    std::mt19937 random(7);
    for (const double share : {1e-3, 1e-2, 5e-2, 0.2})
        for (int trial = 0; trial < 3; ++trial)
        {
            const std::vector<float> q = RandomQ(model, radius, share, random);
            EXPECT_GT(CheckFrames(*pieces, q), pieces->PieceCount() / 2) << "share " << share;
        }
}

TEST(AffinePieceBounds, AnUndeformedBodyIsItsRestBoxes)
{
    const auto asset = MakeChair();
    const auto pieces = asset->Pieces(8);
    const std::vector<float> q(asset->Tree().ModeCount(), 0.0f);
    std::uint32_t checked = 0;
    for (std::uint32_t node = 0; node < pieces->NodeCount(); ++node)
    {
        const ContactPiece& piece = pieces->Piece(node);
        PieceFrame frame;
        if (!piece.IsPiece())
            continue;
        ASSERT_TRUE(pieces->Affine().Frame(node, piece, q, frame));
        const float* row = pieces->Boxes().Row(node);
        EXPECT_EQ(frame.centre, Vec3d(row[0], row[1], row[2]) + piece.offset.cast<double>());
        EXPECT_EQ(frame.axes, Mat3d::Identity());
        EXPECT_EQ(frame.halfExtents, piece.halfExtents.cast<double>());
        EXPECT_EQ(frame.growth, 0.0);
        ++checked;
    }
    EXPECT_EQ(checked, pieces->PieceCount());
}

TEST(AffinePieceBounds, BendingGrowsFarLessThanTheBoxBound)
{
    // The smooth basis bends, twists and shears the chair; near the proxies a node's displacement is nearly
    // affine, and the frame turns and stretches with it, where the BD-AABB (BD-Tree paper §3.5) spreads the
    // whole of each mode's displacement over the box. What is left is the shear on the frame's axes, which a
    // box cannot follow: the frame's growth is under half the box bound's (about 0.3 here).
    const auto asset = MakeChair();
    constexpr std::uint32_t cLevel = 8;
    const auto pieces = asset->Pieces(cLevel);
    const BDTree& tree = asset->Tree();
    std::mt19937 random(11);
    const std::vector<float> q = RandomQ(tree.GetModel(), tree.Row(0)[3], 2e-2, random);
    std::vector<float> qq(8 * q.size());
    MakeBoxUpdateInput(q, qq.data());
    double affine = 0.0, boxes = 0.0;
    std::uint32_t counted = 0;
    for (std::uint32_t node = tree.LevelBegin(cLevel); node < tree.LevelEnd(cLevel); ++node)
    {
        const ContactPiece& piece = pieces->Piece(node);
        PieceFrame frame;
        if (!piece.IsPiece() || !pieces->Affine().Frame(node, piece, q, frame))
            continue;
        const float* row = pieces->Boxes().Row(node);
        UpdatedBox box;
        UpdateBox(row, qq.data(), tree.ModeCount(), box);
        for (int k = 0; k < 3; ++k)
            boxes += std::max(0.0, double(box.halfExtents[k]) - double(row[4 + k]));
        affine += frame.growth;
        ++counted;
    }
    ASSERT_GT(counted, 100u);
    EXPECT_LT(affine, 0.5 * boxes) << "affine " << affine / counted << " boxes " << boxes / counted;
}

} // namespace
} // namespace bdt

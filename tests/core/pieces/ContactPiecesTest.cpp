// The surface model's contact pieces (core/pieces/ContactPieces.h), checked triangle by triangle on procedural meshes:
// a piece's box holds its node's outer triangles, each on a real face it faces out of; a facet's triangles lie
// in its plane inside its box; the triangles found inside the body are those an analytic test puts there.
#include "core/pieces/ContactPieces.h"

#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/asset/DeformableAsset.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <gtest/gtest.h>

namespace bdt
{
namespace
{

std::shared_ptr<const DeformableAsset> MakeAsset(EShape inShape, std::uint32_t inTriangles)
{
    ShapeMesh mesh = MakeShape(inShape, inTriangles);
    return DeformableAsset::Create(std::make_shared<const BDTree>(
        BDTree::Build(MakeSmoothModel(std::move(mesh.positions), std::move(mesh.triangles), 4))));
}

// Whether a point lies inside one of the chair's boxes (strictly).
bool InsideChair(const Vec3d& inPoint)
{
    for (const BoxPart& part : ChairParts())
        if (((inPoint - part.center).cwiseAbs() - 0.5 * part.size).maxCoeff() < 0.0)
            return true;
    return false;
}

Vec3d Corner(const Model& inModel, std::uint32_t inTriangle, int inCorner)
{
    return inModel.Positions()[inModel.Triangles()[inTriangle][std::size_t(inCorner)]].cast<double>();
}

// Whether triangle t is inside the body by the analytic test: just off its outside, inside a part.
bool AnalyticInside(const Model& inModel, std::uint32_t inTriangle)
{
    const Vec3d a = Corner(inModel, inTriangle, 0), b = Corner(inModel, inTriangle, 1),
                c = Corner(inModel, inTriangle, 2);
    return InsideChair((a + b + c) / 3.0 + 1e-5 * (b - a).cross(c - a).normalized());
}

TEST(ContactPieces, ChairPiecesHoldTheirTrianglesOnRealFaces)
{
    const auto asset = MakeAsset(EShape::Chair, 4000);
    constexpr std::uint32_t cLevel = 8;
    const auto pieces = asset->Pieces(cLevel);
    const BDTree& tree = asset->Tree();
    const Model& model = tree.GetModel();
    ASSERT_EQ(pieces->NodeCount(), tree.LevelEnd(cLevel + cPieceLevelsBelow));
    std::uint32_t checked = 0;
    for (std::uint32_t node = 0; node < pieces->NodeCount(); ++node)
    {
        const ContactPiece& piece = pieces->Piece(node);
        if (!piece.IsPiece())
            continue;
        const float* row = pieces->Boxes().Row(node);
        const Vec3d centre = Vec3d(row[0], row[1], row[2]) + piece.offset.cast<double>();
        const Vec3d half = piece.halfExtents.cast<double>();
        const BDTreeNode& n = tree.Node(node);
        for (std::uint32_t t = n.firstTriangle; t < n.firstTriangle + n.triangleCount; ++t)
        {
            if (AnalyticInside(model, t))
                continue;
            const Vec3d normal = (Corner(model, t, 1) - Corner(model, t, 0))
                                     .cross(Corner(model, t, 2) - Corner(model, t, 0))
                                     .normalized();
            bool onRealFace = false;
            for (int k = 0; k < 3; ++k)
                for (const int side : {-1, 1})
                {
                    bool on = piece.Real(k, side) && side * normal[k] > 0.999;
                    for (int c = 0; c < 3 && on; ++c)
                        on = std::abs(Corner(model, t, c)[k] - (centre[k] + side * half[k])) < 1e-5;
                    onRealFace = onRealFace || on;
                }
            EXPECT_TRUE(onRealFace) << "node " << node << " triangle " << t;
            for (int c = 0; c < 3; ++c)
                EXPECT_LE(((Corner(model, t, c) - centre).cwiseAbs() - half).maxCoeff(), 1e-5)
                    << "node " << node << " triangle " << t;
            ++checked;
        }
    }
    EXPECT_GT(checked, model.TriangleCount()) << "the pieces of many levels hold every outer triangle";
    // Pieces cover most of the chair a few levels down: the levels' nodes that are pieces.
    std::uint32_t level8 = 0;
    for (std::uint32_t node = tree.LevelBegin(cLevel); node < tree.LevelEnd(cLevel); ++node)
        level8 += pieces->Piece(node).IsPiece() ? 1 : 0;
    EXPECT_GT(level8, (tree.LevelEnd(cLevel) - tree.LevelBegin(cLevel)) * 3 / 4);
}

TEST(ContactPieces, ExtrusionsStayInsideThinParts)
{
    // A piece or facet extruded behind its one real face along an axis ends inside the part it belongs to, not
    // out of its far side: the chair's seat is 4 cm thick, a quarter of a seat-top piece's diagonal more. Its
    // far face's centre and quarter points, just short of it, lie inside the chair (the analytic test).
    const auto asset = MakeAsset(EShape::Chair, 4000);
    const auto pieces = asset->Pieces(8);
    const auto farFaceInside = [](const Vec3d& inCentre, const Mat3d& inAxes, const Vec3d& inHalf, int inAxis,
                                  int inInward)
    {
        const int k1 = (inAxis + 1) % 3, k2 = (inAxis + 2) % 3;
        bool inside = true;
        for (const double u : {0.0, -0.5, 0.5})
            for (const double v : {0.0, -0.5, 0.5})
            {
                if ((u == 0.0) != (v == 0.0))
                    continue;
                const Vec3d at = inCentre + inAxes.col(inAxis) * (inInward * (inHalf[inAxis] - 1e-4)) +
                                 inAxes.col(k1) * (u * inHalf[k1]) + inAxes.col(k2) * (v * inHalf[k2]);
                inside = inside && InsideChair(at);
            }
        return inside;
    };
    std::uint32_t extruded = 0;
    for (std::uint32_t node = 0; node < pieces->NodeCount(); ++node)
    {
        const ContactPiece& piece = pieces->Piece(node);
        if (!piece.IsPiece())
            continue;
        const float* row = pieces->Boxes().Row(node);
        const Vec3d centre = Vec3d(row[0], row[1], row[2]) + piece.offset.cast<double>();
        for (int k = 0; k < 3; ++k)
            if (piece.Real(k, -1) != piece.Real(k, 1))
            {
                ++extruded;
                EXPECT_TRUE(farFaceInside(centre, Mat3d::Identity(), piece.halfExtents.cast<double>(), k,
                                          piece.Real(k, -1) ? 1 : -1))
                    << "node " << node << " axis " << k;
            }
    }
    for (std::uint32_t f = 0; f < pieces->FacetCount(); ++f)
    {
        const ContactFacet& facet = pieces->Facet(f);
        const float* row = pieces->Boxes().Row(facet.node);
        const Vec3d centre = Vec3d(row[0], row[1], row[2]) + facet.offset.cast<double>();
        ++extruded;
        EXPECT_TRUE(farFaceInside(centre, facet.axes.cast<double>(), facet.halfExtents.cast<double>(), 0, -1))
            << "facet " << f;
    }
    EXPECT_GT(extruded, 100u);
}

TEST(ContactPieces, FacetsLieInTheirPlanes)
{
    const auto asset = MakeAsset(EShape::Chair, 4000);
    const auto pieces = asset->Pieces(8);
    const Model& model = asset->GetModel();
    ASSERT_GT(pieces->FacetCount(), 0u);
    for (std::uint32_t f = 0; f < pieces->FacetCount(); ++f)
    {
        const ContactFacet& facet = pieces->Facet(f);
        EXPECT_FALSE(pieces->Piece(facet.node).IsPiece());
        const float* row = pieces->Boxes().Row(facet.node);
        const Vec3d centre = Vec3d(row[0], row[1], row[2]) + facet.offset.cast<double>();
        const Mat3d axes = facet.axes.cast<double>();
        const Vec3d half = facet.halfExtents.cast<double>();
        ASSERT_GT(facet.triangleCount, 0u);
        for (const std::uint32_t t : pieces->FacetTriangles().subspan(facet.firstTriangle, facet.triangleCount))
        {
            const Vec3d normal = (Corner(model, t, 1) - Corner(model, t, 0))
                                     .cross(Corner(model, t, 2) - Corner(model, t, 0))
                                     .normalized();
            EXPECT_GT(normal.dot(axes.col(0)), 0.999) << "facet " << f;
            for (int c = 0; c < 3; ++c)
            {
                const Vec3d local = axes.transpose() * (Corner(model, t, c) - centre);
                // On the outward face (+ axis 0), within the rectangle.
                EXPECT_NEAR(local[0], half[0], 1e-5) << "facet " << f;
                EXPECT_LE(std::abs(local[1]) - half[1], 1e-5) << "facet " << f;
                EXPECT_LE(std::abs(local[2]) - half[2], 1e-5) << "facet " << f;
            }
        }
    }
}

TEST(ContactPieces, InsideTrianglesAreThoseBehindAnotherPart)
{
    const auto asset = MakeAsset(EShape::Chair, 4000);
    const auto pieces = asset->Pieces(8);
    const BDTree& tree = asset->Tree();
    const Model& model = tree.GetModel();
    // A node marked inside holds only triangles inside another part; and the legs' tops inside the seat are
    // such triangles, in nodes of their own some levels down.
    std::uint32_t insideNodes = 0;
    for (std::uint32_t node = 0; node < pieces->NodeCount(); ++node)
    {
        if (!pieces->Piece(node).inside)
            continue;
        ++insideNodes;
        const BDTreeNode& n = tree.Node(node);
        for (std::uint32_t t = n.firstTriangle; t < n.firstTriangle + n.triangleCount; ++t)
            EXPECT_TRUE(AnalyticInside(model, t)) << "node " << node << " triangle " << t;
    }
    EXPECT_GT(insideNodes, 0u);
}

TEST(ContactPieces, OpenSurfacesHaveNone)
{
    const auto asset = MakeAsset(EShape::Curtain, 2000);
    const auto pieces = asset->Pieces(6);
    EXPECT_EQ(pieces->PieceCount(), 0u);
    EXPECT_EQ(pieces->FacetCount(), 0u);
}

TEST(ContactPieces, CurvedMeshesGetNoneAndBoxyOnesKeepTheirs)
{
    // A sphere and a torus: a few stray axis-aligned triangles and quads of two triangles, which cost more as
    // pieces and facets than as triangles. Their classification found them (the sphere's near its cube faces'
    // centres, the torus's quads as facets); the coverage rule drops them all.
    for (const EShape shape : {EShape::Sphere, EShape::Torus})
    {
        const auto pieces = MakeAsset(shape, 3000)->Pieces(8);
        EXPECT_EQ(pieces->PieceCount(), 0u) << ShapeName(shape);
        EXPECT_EQ(pieces->FacetCount(), 0u) << ShapeName(shape);
    }
    // Boxy meshes keep theirs, and the pawn its flat base.
    for (const EShape shape : {EShape::Chair, EShape::Box, EShape::Slab, EShape::Pawn})
        EXPECT_GT(MakeAsset(shape, 3000)->Pieces(8)->PieceCount(), 100u) << ShapeName(shape);
}

TEST(ContactPieces, FacetsHoldSeveralTrianglesEach)
{
    // Per proxy with facets, several triangles a facet on average (`cMinFacetTriangles`, at least 3); the
    // pawn's surface of revolution (quads) and the chair's creases both had proxies of one- and two-triangle
    // facets.
    static_assert(cMinFacetTriangles >= 3);
    for (const EShape shape : {EShape::Chair, EShape::Pawn})
    {
        const auto asset = MakeAsset(shape, 3000);
        const auto pieces = asset->Pieces(8);
        std::uint32_t withFacets = 0;
        for (std::uint32_t node = 0; node < pieces->NodeCount(); ++node)
        {
            const std::span<const std::uint32_t> facets = pieces->Facets(node);
            if (facets.empty())
                continue;
            ++withFacets;
            std::uint32_t triangles = 0;
            for (const std::uint32_t f : facets)
                triangles += pieces->Facet(f).triangleCount;
            EXPECT_GE(triangles, 3u * std::uint32_t(facets.size()))
                << ShapeName(shape) << " node " << node;
        }
        EXPECT_GT(withFacets, 0u) << ShapeName(shape);
    }
}

TEST(ContactPieces, LocateTriangleAroundReachesTheNeighboursTriangles)
{
    // A point on the surface, located from a node of the proxy level that does not hold it (a piece's box
    // reaching past its own triangles): the search climbs the ancestors to a triangle through the point. From
    // the node holding it, the answer is `LocateTriangle`'s. Brute force: the point lies on a triangle.
    const auto asset = MakeAsset(EShape::Chair, 4000);
    constexpr std::uint32_t cLevel = 8;
    const auto pieces = asset->Pieces(cLevel);
    const BDTree& tree = asset->Tree();
    const Model& model = tree.GetModel();
    const double onSurface = 1e-4 * double(tree.Row(0)[3]);
    std::uint32_t checked = 0;
    for (std::uint32_t t = 0; t < model.TriangleCount(); t += 7)
    {
        const Vec3d point = 0.2 * Corner(model, t, 0) + 0.3 * Corner(model, t, 1) + 0.5 * Corner(model, t, 2);
        std::uint32_t holder = 0;
        for (std::uint32_t node = tree.LevelBegin(cLevel); node < tree.LevelEnd(cLevel); ++node)
            if (t >= tree.Node(node).firstTriangle && t < tree.Node(node).firstTriangle + tree.Node(node).triangleCount)
                holder = node;
        const std::uint32_t other = tree.LevelBegin(cLevel) + (holder - tree.LevelBegin(cLevel) + 5) %
                                                                   (tree.LevelEnd(cLevel) - tree.LevelBegin(cLevel));
        for (const std::uint32_t from : {holder, other})
        {
            Vec3d bary;
            const std::uint32_t found = pieces->LocateTriangleAround(from, point, onSurface, bary);
            ASSERT_LT(found, model.TriangleCount());
            const Vec3d at = bary[0] * Corner(model, found, 0) + bary[1] * Corner(model, found, 1) +
                             bary[2] * Corner(model, found, 2);
            EXPECT_LT((at - point).norm(), onSurface) << "triangle " << t << " from node " << from;
        }
        Vec3d baryHolder, baryAround;
        EXPECT_EQ(pieces->LocateTriangleAround(holder, point, onSurface, baryAround),
                  pieces->LocateTriangle(holder, point, baryHolder));
        ++checked;
    }
    EXPECT_GT(checked, 500u);
}

TEST(ContactPieces, LocateTriangleFindsTheTriangleUnderAPointOnAFace)
{
    const auto asset = MakeAsset(EShape::Chair, 4000);
    const auto pieces = asset->Pieces(8);
    const Model& model = asset->GetModel();
    // Each outer triangle's centroid, located from the root: the triangle through that point, the barycentric
    // coordinates of the point on it.
    std::uint32_t exact = 0, outer = 0;
    for (std::uint32_t t = 0; t < model.TriangleCount(); ++t)
    {
        if (AnalyticInside(model, t))
            continue;
        ++outer;
        const Vec3d centroid = (Corner(model, t, 0) + Corner(model, t, 1) + Corner(model, t, 2)) / 3.0;
        Vec3d bary;
        const std::uint32_t found = pieces->LocateTriangle(0, centroid, bary);
        ASSERT_LT(found, model.TriangleCount());
        EXPECT_NEAR(bary.sum(), 1.0, 1e-9);
        const Vec3d at = bary[0] * Corner(model, found, 0) + bary[1] * Corner(model, found, 1) +
                         bary[2] * Corner(model, found, 2);
        EXPECT_LT((at - centroid).norm(), 1e-6) << "triangle " << t;
        exact += (at - centroid).norm() < 1e-6 ? 1 : 0;
    }
    EXPECT_EQ(exact, outer);
}

} // namespace
} // namespace bdt
